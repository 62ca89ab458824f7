# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Batch test
#
# The model is a much simplified network analyser: a source fills packet buffers with
# IP-like headers, a queue holds a number of them alive, and a processor parses each one,
# allocating a few small objects as it goes and keeping the TCP packets (one in sixteen) in a
# store with random replacement. The three cases differ in how many packets stay alive: case
# **A** keeps few, **B** a realistic number, **C** nearly as many as the pool holds.
#
# Four ways to get a buffer: **Allocation** makes a new one per packet, **Pooling** takes it
# from a large pool sized for case C, **Mix** uses a smaller pool and allocates when it runs
# dry, and **Dummy** reuses a single packet for everything, so it measures the cost of the
# test harness itself. In batch mode the source produces as fast as the processor consumes;
# the figure is the average time per packet after the warm-up.
#
# The article ran this chapter with CMS. CMS is gone after JDK 14, so its row runs on JDK 11,
# the last long-term release that has it. Beside it: Parallel, the throughput collector of
# today's JDKs, and Epsilon, which never collects, as a baseline for what allocation costs
# when nobody cleans up (its heap is fixed; a run that fills it fails and is shown as such).

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool.chapters import batch as batch_chapter
from allocorpool.chapters import sections
from allocorpool.data import reference
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("batch")

# %% tags=["progress"]
batch = sweep.batch(chosen)

# %%
sections.show_batch(batch, reference_figures, "CMS on Java 8")

# %% [markdown]
# Which strategy was fastest, per solution and case (the dummy strategy left out):

# %%
batch_chapter.show_fastest(batch)

# %% [markdown]
# Three things make a strategy slow here: allocating (and zeroing) buffers, collecting often,
# and collecting a lot of live data each time. Allocation pays the first two, pooling the
# third, and the mixed strategy a little of each. The gap between the dummy strategy and the
# others is what memory management costs in this model; the next chapter looks at the
# collector's side of it in the GC logs.

# %% [markdown]
# ## The article's claims on this machine
#
# Each claim of the article about the batch test, checked on this chapter's cells: the article's
# "CMS" (Parallel, as it ran), real CMS and today's Parallel. A claim holds when it is true of every
# cell it speaks of; the cells behind each verdict, those against it first, are folded under it.

# %%
batch_chapter.show_verdicts(batch)

# %% tags=["check"]
sweep.finish(batch)
