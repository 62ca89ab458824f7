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
# of each collection (the `GarbageCollectorMXBean` notifications).
#
# **Which events count, and when.** The log is put on the run's clock exactly: the JVM
# decorates every line with `timenanos` (its `System.nanoTime()`), and the engine's header
# gives `clock_origin_nanotime`, the same clock at the run's t = 0, so an event ends at
# (timenanos − clock_origin_nanotime) / 10⁹ s into the run. Every column counts the events
# that start in the measured window (after the fill phase and the warm-up). A run whose
# header has no origin (an engine older than the field) or whose log has no `timenanos` is
# marked "not aligned" in the table's last column and gets no log figure: its log is never
# guessed into place.
#
# **The article's columns, as it defined them.**
# - *Max* and *Avg GC pause*: the longest and the average stop-the-world pause the log
#   reports (its `Pause ...` lines). CMS on JDK 11 logs the Full GC of a promotion failure
#   inside the Young pause that failed; that stop counts once.
# - *GC count / s*: "the average number of GC invocations per second", i.e. collections, one
#   per GC id (`GC(n)`) of the log. A ZGC or Shenandoah collection makes three or four
#   pauses and G1's concurrent cycle makes its Remark and Cleanup pauses under its own id:
#   each is one invocation. On the article's Java 8 Parallel logs, one line was one
#   collection and one pause, so there the two counts were the same.
# - *GC fraction*: "the percentage of execution time spent in GC": the pauses' total over
#   the window.
# - *Live objects* after a full collection at the end of the run, and *GC time / object*:
#   the average pause over the live objects.
#
# **Ours beside them.**
# - *Pauses / s*: every pause line per second (GC count × pauses per collection).
# - *Stops / s* and *Longest stop*: each stop of the world once, as the application sees
#   it. The pauses done in one safepoint are one stop (Parallel's young collection and the
#   `Pause Full (Ergonomics)` it turned into), timed by the safepoint's total, which includes
#   bringing the threads to a halt (JDK 17+ `Safepoint "...", Total: N ns`, JDK 11
#   `Total time for which application threads were stopped`).
# - *Stalls*, *Stall time* and *Longest stall*: ZGC's allocation and relocation stalls of
#   threads outside the collector. A stall stops one thread, which waits for memory or for an
#   object being moved, while the others run: it is never counted as a pause. A GC worker's
#   relocation stall (`GC(22) y: Relocation Stall (ZWorkerYoung#0)`) stops no application
#   thread and is left out.

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
sections.show_left_out(sweep, "gclogs")

# %% tags=["progress"]
batch = sweep.batch(chosen)

# %%
show.show_failures(tables.failures(batch), "batch cell")
sections.show_gc(sweep.gc_table(batch), sweep.pauses(batch), reference_figures,
                 "Parallel on Java 8, the article's \"CMS\", 2 GB heap, 2019")

# %% [markdown]
# The log against the engine's records, both on the run's clock: each pause the engine was
# notified of should have a line in the log starting at the same moment and lasting as long,
# within the bean's millisecond resolution. Log pauses without a record are expected where a
# collector reports its pauses only as part of a concurrent cycle (CMS's initial mark and
# remark, JDK 11 ZGC's three pauses); a Full GC logged inside a Young pause is held against
# nothing, as the ParNew record times the Young pause around it.

# %%
gc_logs.show_cross_check(sweep.gc_runs(batch))

# %% [markdown]
# ## The article's claims on this machine
#
# Each claim the article drew from its GC table, in our words, checked on this chapter's table and,
# beside it, on the article's own (its "CMS" as it ran, with its 100 ms queue); the cells behind each
# verdict here are folded under it.

# %%
gc_logs.show_verdicts(reference_figures, sweep.gc_table(batch), sweep.profile.capture_delay_ms)

# %% tags=["check"]
sweep.finish(batch)
