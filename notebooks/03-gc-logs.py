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
# # GC logs
#
# A good batch figure can hide long pauses, and a pause longer than the input queue can
# bridge is what loses packets in the real-time test. Every Java batch run of the study
# writes a unified GC log (`-Xlog:gc*,safepoint`), and ends with a count of the live objects
# after a full collection. From them, the article's GC table: the longest and the average
# stop-the-world pause, how many pauses per second, the share of time spent paused, the
# live objects, and the average pause divided by the live objects.
#
# The article read its logs by hand and took the live count from a profiler; here both come
# from the runs themselves, and the log's pauses are checked against the engine's own record
# of each collection (the `GarbageCollectorMXBean` notifications).

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool.chapters import display as show
from allocorpool.chapters import gc_logs, sections, tables
from allocorpool.data import reference
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("gclogs")

# %% tags=["progress"]
batch = sweep.batch(chosen)

# %%
show.show_failures(tables.failures(batch), "batch cell")
sections.show_gc(sweep.gc_table(batch), sweep.pauses(batch), reference_figures,
                 "Parallel on Java 8, the article's \"CMS\", 2 GB heap, 2019")

# %% [markdown]
# The log against the engine's records: each pause the engine was notified of should have a
# line in the log starting at the same moment and lasting as long, within the bean's
# millisecond resolution. Log pauses without a record are expected where a collector reports
# its pauses only as part of a concurrent cycle (CMS's initial mark and remark).

# %%
gc_logs.show_cross_check(sweep.gc_runs(batch))

# %% tags=["check"]
sweep.finish(batch)
