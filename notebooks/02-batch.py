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
# The article called its collector CMS, but its command line named none (`java -Xloggc:gclog
# -Xms2g -Xmx2g -server Main X strategy batch`) and the logs it quotes say "Full GC (Ergonomics)",
# which only Parallel prints: its "CMS" was Java 8's default collector, **Parallel**. So the row
# compared with the article's "CMS" is Parallel on JDK 11, labelled "the article's CMS, as run";
# real CMS (JDK 11, the last long-term release that has it) is a row of its own. Beside them:
# Parallel on JDK 25, and Epsilon, which never collects, as a baseline for what allocation costs
# when nobody cleans up (its heap is fixed; a run ends its window when the heap is 90 % used).
#
# How the cells are made to measure what the article measured:
# - **Case A is 1,000 / 1,000** (internal queue / store). The article's table says 10,000 / 10,000,
#   but every case-A figure it prints was made by its published code at 1,000 / 1,000: its run header
#   reads "Internal queue: 1000 = 1 ms, Stored: 1000" and its live-object counts fit 1,000. The
#   table's sizes stay reachable (`--internal-queue-size`, `--stored-count` in both engines).
# - **The packets come from the published code's draws** (`--source counter`): every field and the
#   store's replacement slot are successive values of one counter. That makes the store's
#   replacement a sweep in small strides rather than the random replacement the article describes;
#   the last section runs the same cells with independent random draws to show what that changes.
# - **Measuring starts when the model is full**: a fill phase runs until the internal queue is full
#   and 99 % of the store's slots hold a packet, then the warm-up, then the measured window.

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool import study
from allocorpool.chapters import batch as batch_chapter
from allocorpool.chapters import sections
from allocorpool.data import reference
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("batch")
sections.show_left_out(sweep, "batch")

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

# %%
batch_chapter.show_window_fill(batch)

# %% [markdown]
# ## The packet source: the published code's draws or independent ones
#
# The same batch cells of the article's "CMS" (as run) and of flat C++, with the `random` source:
# every field of a packet, and the store slot a TCP packet replaces, is an independent hash of the
# seed, the packet's number and the field. Random replacement can miss the cache on a TCP packet where
# the counter's short strides may not; the ratio below is what the choice costs in each cell.

# %% tags=["progress"]
random_batch = sweep.batch(sweep.solutions_named(study.SOURCE_SOLUTIONS), source="random")

# %%
batch_chapter.show_sources(batch[batch["solution"].isin(study.SOURCE_SOLUTIONS)], random_batch)

# %% [markdown]
# ## The article's claims on this machine
#
# Each claim of the article about the batch test, checked on this chapter's cells: the article's
# "CMS" (Parallel, as it ran), real CMS and today's Parallel. A claim holds when it is true of every
# cell it speaks of; the cells behind each verdict, those against it first, are folded under it.

# %%
batch_chapter.show_verdicts(reference_figures, batch=batch)

# %% tags=["check"]
sweep.finish(batch, random_batch)
