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
# after a full collection. From them, the article's GC table, and the columns a concurrent
# collector needs beside it.
#
# The article read its logs by hand and took the live count from a profiler; here both come
# from the runs themselves, and the log's pauses are checked against the engine's own record
# of each collection (the JVM notifies the engine of every collection).
#
# **Which events count, and when.** The log is put on the run's clock exactly. The JVM stamps
# every log line with its nanosecond clock, and the engine records the same clock at the run's
# start, so each event has an exact time in the run. Every column counts the events that start
# in the measured window, after the fill phase and the warm-up. A run whose log or record lacks
# those stamps is marked "not aligned" and gets no log figure: its log is never guessed into
# place.
#
# **The columns.** The first five are the article's, as it defined them; the rest are ours.
#
# | column | what it counts |
# | --- | --- |
# | Max and Avg GC pause | the longest and the average stop-the-world pause the log reports; CMS logs a promotion failure's Full GC inside the Young pause that failed, and that stop counts once |
# | GC count / s | collections per second, one per collection the log numbers; ZGC and Shenandoah make three or four pauses per collection, and G1's Remark and Cleanup share one |
# | GC fraction | the pauses' total over the window |
# | Live objects | the objects alive after a full collection at the end of the run |
# | GC time / object | the average pause over the live objects |
# | Pauses / s | every pause line per second (on the article's Java 8 logs, one per collection) |
# | Stops / s, Longest stop | each stop of the world once, as the application sees it, timed by its safepoint including bringing the threads to a halt |
# | Stalls, Stall time, Longest stall | ZGC's allocation and relocation stalls: one thread waits for memory while the others run, so a stall is not a pause; a GC worker's stall is left out |

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters.page import display as show
from allocorpool.chapters import gc_logs
from allocorpool.chapters.page import sections, tables
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, stored as measure_stored
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("gclogs")
sections.show_left_out(sweep, "gclogs")

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)

# %%
show.show_failures(tables.failures(batch), "batch cell")
sections.show_gc(measure_stored.gc_table(sweep.executor, batch), measure_stored.pauses(sweep.executor, batch),
                 reference_figures, "Parallel on Java 8, the article's \"CMS\", 2 GB heap, 2019")

# %% [markdown]
# The log against the engine's records, both on the run's clock: each pause the engine was
# notified of should have a line in the log starting at the same moment and lasting as long,
# within the JVM's millisecond resolution. Some log pauses have no record, as expected: a few
# collectors report pauses only as part of a concurrent cycle (CMS's initial mark and remark,
# JDK 11 ZGC's three pauses). A Full GC logged inside a Young pause is matched with nothing,
# because the engine's record times the Young pause around it.

# %%
gc_logs.show_cross_check(measure_stored.gc_runs(sweep.executor, batch))

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim the article drew from its GC table, in our words, checked on this chapter's table and,
# beside it, on the article's own (its "CMS" as it ran, with its 100 ms queue); the cells behind each
# verdict here are folded under it.

# %% tags=["lead"]
gc_logs.show_verdicts(reference_figures, measure_stored.gc_table(sweep.executor, batch), sweep.profile.capture_delay_ms)

# %% tags=["check"]
sweep.finish(batch)
