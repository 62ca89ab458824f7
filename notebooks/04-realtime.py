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
# Now the source is the native clock: one packet per tick, and the processor must keep up.
# The input queue holds 100 ms worth of ticks (the article's `MAX_CAPTURING_DELAY_MS`), so a
# stall longer than that loses packets however fast the processor is otherwise. The figure
# we look for is the smallest tick interval at which nothing is lost after the warm-up.
#
# It is found by bisection: each probe is a separate run at one interval, lossy probes raise
# the lower bound and clean ones lower the upper bound. An interval shorter than the batch
# time per packet cannot be kept up with, so under the shorter profiles the search starts
# there and tries twice that first. Where no interval up to the search's upper end is clean,
# the table shows the share of packets lost at 1000 ns instead, as the article does, and in
# parentheses the loss with a larger heap (the article's 10 GB column, scaled like every heap
# of the study).

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool.chapters import display as show
from allocorpool.chapters import sections
from allocorpool.data import reference
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("realtime")
plan = sweep.profile.search
show.note(f"Search under profile **{sweep.profile.name}**: intervals up to {plan.high_ns} ns, probes of "
          f"{sweep.profile.probe_s:g} s after a {sweep.profile.probe_warmup_s:g} s warm-up, stopping when the bounds "
          f"are within {plan.relative_tolerance:.0%} (or {plan.tolerance_ns} ns). Heaps: "
          + "; ".join(f"{s.label} {s.heap_mb(sweep.profile.scale)} MB"
                      + (f", big heap {s.big_heap_mb(sweep.profile.scale)} MB" if s.big_heap_mb(sweep.profile.scale) else "")
                      for s in chosen) + ".")

# %% tags=["progress"]
searches = sweep.realtime(chosen)

# %%
sections.show_realtime(searches, reference_figures, "CMS on Java 8")

# %% [markdown]
# ## Where the packets went
#
# The article printed two runs at 1000 ns with CMS, case A: allocation lost a burst early and
# then nothing, pooling lost a large burst every few seconds. The same runs here, longer than
# a probe, with the GC log laid over the seconds that lost packets. The table under each
# figure pairs each lossy second with the pauses that overlap it and estimates how many ticks
# a pause of that length could not fit into the queue.

# %% tags=["progress"]
runs = sweep.timelines(chosen)

# %%
sections.show_timelines(runs)

# %% tags=["check"]
sweep.finish(searches.table)
