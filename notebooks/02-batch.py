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
# The model is a much simplified network analyser. A source fills packet buffers with IP-like
# headers, and a queue holds a number of them alive. A processor parses each packet, allocating
# a few small objects as it goes, and keeps the TCP packets (one in sixteen) in a store with
# random replacement. The three cases differ in how many packets stay alive:
#
# | case | internal queue | store | live packets |
# | --- | --- | --- | --- |
# | **A** | 1,000 | 1,000 | few |
# | **B** | 100,000 | 100,000 | a realistic number |
# | **C** | 495,000 | 495,000 | nearly as many as the pool holds |
#
# A **strategy** is the way the processor gets a buffer:
#
# | strategy | how it gets a buffer |
# | --- | --- |
# | **Allocation** | a new one per packet |
# | **Pooling** | from a large pool sized for case C |
# | **Mix** | from a smaller pool, allocating when it runs dry |
# | **Dummy** | one packet reused for everything: the cost of the test harness itself |
#
# In batch mode the source produces as fast as the processor consumes. The figure is the
# average time per packet after the warm-up.
#
# The article called its collector CMS, but its command line named none, and the logs it quotes
# say "Full GC (Ergonomics)", which only Parallel prints. Its "CMS" was Java 8's default
# collector, **Parallel**. Here that row is Parallel on JDK 11, labelled *Parallel 11, 2019
# "CMS"*; real CMS on JDK 11 is a row of its own. Beside them run Parallel on JDK 25 and
# Epsilon, which never collects: a baseline for what allocation costs when nobody cleans up.
#
# How the cells measure what the article measured:
#
# | choice | why |
# | --- | --- |
# | case A is 1,000 / 1,000 | the article's table says 10,000, but its published run header and live-object counts fit 1,000 |
# | packets from one counter | the published code draws every field and the store's slot from one counter, so replacement sweeps in small strides; the last section shows what random draws change |
# | measuring starts when the model is full | the queue is full and 99 % of the store's slots hold a packet before the warm-up |

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool import study
from allocorpool.chapters import batch as batch_chapter
from allocorpool.chapters.page import sections
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("batch")
sections.show_left_out(sweep, "batch")

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)

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
# ## CPU time beside wall time
#
# The time per packet above is wall time. The process's CPU time per packet counts every thread:
# the consumer's and the collector's. Their ratio is the number of cores the run kept busy. Above
# one, the collector worked beside the consumer on the machine's other CPU, so a collector that
# looks cheap in wall time may only have been given a core.

# %%
batch_chapter.show_cpu(batch)

# %% [markdown]
# ## The packet source: the published code's draws or independent ones
#
# The same batch cells of Parallel 11 (the 2019 "CMS") and of flat C++, with random draws: every
# field of a packet, and the store slot a TCP packet replaces, is an independent hash of a fixed
# number, the packet's number and the field. Random replacement can miss the cache on a TCP packet where
# the counter's short strides may not; the ratio below is what the choice costs in each cell.

# %% tags=["progress"]
random_batch = measure_batch.batch(sweep.executor, sweep.solutions_named(study.SOURCE_SOLUTIONS), source="random")

# %%
batch_chapter.show_sources(batch[batch["solution"].isin(study.SOURCE_SOLUTIONS)], random_batch)

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim of the article about the batch test, checked on this chapter's cells: the article's
# "CMS" (Parallel, as it ran), real CMS and today's Parallel. A claim holds when it is true of every
# cell it speaks of; the cells behind each verdict, those against it first, are folded under it.

# %% tags=["lead"]
batch_chapter.show_verdicts(reference_figures, batch=batch)

# %% tags=["check"]
sweep.finish(batch, random_batch)
