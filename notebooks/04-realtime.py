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
# # Real-time test
#
# Now the source is the native clock: one packet per tick, and the processor must keep up. The
# input queue holds 100 ms of ticks at the article's sizes (scaled with the pauses in the smaller
# profiles: chapter 12). A stall longer than that loses packets, however fast the processor is
# otherwise.
#
# The figure we look for is the shortest tick interval at which nothing is lost after the
# warm-up and the processor kept up. A consumer slower than the clock may not yet have
# overflowed the queue: it loses nothing but processes fewer packets than came due, and such a
# run does not count as clean.
#
# A **probe** is one run at one interval, started after the model has been filled. A **search**
# finds a cell's interval with probes:
#
# | step | what it does |
# | --- | --- |
# | start | a little above the batch time per packet (the plan below gives the factor); bisection may go lower |
# | up | doubles until a probe is clean, taking 1,000 ns, the article's reference interval, on the way |
# | down | bisects on the article's two-digit grid until the clean interval is within 10 % of a lossy one |
# | confirm | probes the clean interval again, longer where a collection could hide |
# | failure | a crashed probe runs once more; a second crash fails the search and never counts as a loss |
#
# Where no interval is clean, the table shows the share of packets lost at 1,000 ns, as the
# article does. In parentheses is the loss with a heap five times larger (the article's 10 GB
# column).
#
# The article's "CMS" rows ran Java 8's default collector, Parallel: its command lines name no
# collector. They are compared with Parallel on JDK 11, and real CMS has rows of its own.
#
# Loss is one bit per probe. Beside it, every probe meters how late its packets were made, from
# the moment each tick was due (one packet in 64 timed). A cell that loses nothing may still hold
# packets for as long as its longest pause. The table after the loss curve gives that latency at
# each loss-free interval, and the timelines draw it under the pauses.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters import realtime as realtime_chapter
from allocorpool.chapters.page import sections
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("realtime")
sections.show_left_out(sweep, "realtime")
realtime_chapter.show_plan(sweep.profile, chosen)

# %% tags=["progress"]
searches = measure_realtime.realtime(sweep.executor, chosen)

# %%
sections.show_realtime(sweep, searches, reference_figures, "its \"CMS\": Parallel on Java 8")

# %% [markdown]
# ## Where the packets went
#
# The article printed two runs at 1,000 ns with its "CMS", case A: allocation lost a burst early and
# then nothing, pooling lost a large burst every few seconds. The same runs here, longer than
# a probe, with the GC log laid over the seconds that lost packets. The table under each
# figure pairs each lossy second with the pauses that overlap it and estimates how many ticks
# a pause of that length could not fit into the queue.

# %% tags=["progress"]
runs = measure_realtime.timelines(sweep.executor, chosen)

# %%
sections.show_timelines(runs)

# %% [markdown]
# ## A longer input queue
#
# The article ends its conclusions with a what-if: if the source queue could hold a second of
# packets instead of 100 ms, pooling would work even with its "CMS". Here it is measured: pooling
# probed at 1,000 ns with an input queue ten times the usual one, each probe long enough to hold the
# cell's slowest collection twice.

# %% tags=["progress"]
what_if = measure_realtime.what_if_queue(sweep.executor, sweep.solutions_named(["parallel-11"]))
batch = measure_batch.batch(sweep.executor, chosen)
# each strategy probed repeatedly at 1,000 ns (the summary's blocks)
probes = measure_batch.probe_blocks(sweep.executor, chosen)

# %%
realtime_chapter.show_what_if(what_if)

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim of the article about the real-time test, checked on this chapter's searches; a claim
# about 1,000 ns reads each strategy's repeated probes there, where they were measured. The cells
# behind each verdict, those against it first, are folded under it.

# %% tags=["lead"]
realtime_chapter.show_verdicts(reference_figures, searches=sections.standing(sweep, searches), batch=batch, probes=probes)

# %% tags=["check"]
sweep.finish(searches.table)
