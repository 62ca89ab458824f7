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
# # Small runs and the article's sizes
#
# The article's sizes take hours to measure. A **profile** is a scale for the whole study: the
# quick profile divides every count of the model (pool, mix pool, internal queue, store) by ten.
# Counts alone would not keep the outcome. A pause grows with the live set, so a tenth of the
# live set pauses for less, and an input queue that still bridged 100 ms would swallow every
# pause. So the small profiles scale what decides the outcome with the counts.
#
# | property | kept? | how, or why not |
# | --- | --- | --- |
# | live set against heap | kept | the heap scales with the counts |
# | pause against queue capacity | kept | the queue holds as long as the measured pauses, plus the delay that does not scale |
# | collections per probe | kept | probes last long enough to hold several |
# | share of time in GC pauses | not kept | a tenth of the heap fills ten times as often, while a pause shrinks less than tenfold |
# | memory latency | not kept | a tenth of case B's packets fits in the caches; small runs are faster per packet in B and C |
#
# Where two strategies both lose, the small profile's losses therefore differ in size. Whether the
# small profile agrees with the article's sizes where it matters is measured on a few
# **sentinel cells**: each is measured in both profiles, and the verdicts, intervals and orders
# of the strategies are compared.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>
full_data_dir = ""  # empty: data/full, the committed store of the article's sizes

# %%
from allocorpool.chapters.page import display as show
from allocorpool.chapters import miniature
from allocorpool.run.experiments import sentinels as measure_sentinels
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)

# %% tags=["progress"]
small_held = sweep.sentinel_solutions()
small_batch = measure_sentinels.sentinel_batch(sweep.executor, small_held)
small_searches = measure_sentinels.sentinels(sweep.executor, small_held)
small_long_runs = measure_sentinels.sentinel_long_runs(sweep.executor, small_searches, small_held)
# Read only, and read after the runs above: under the full profile they are this store's own cells.
full = Sweep("full", full_data_dir or None, replay=True)
full_held = full.sentinel_solutions()
full_batch = measure_sentinels.sentinel_batch(full.executor, full_held)
full_searches = measure_sentinels.sentinels(full.executor, full_held)
full_long_runs = measure_sentinels.sentinel_long_runs(full.executor, full_searches, full_held)

# %% [markdown] tags=["lead"]
# ## Pauses against the input queue
#
# A real-time verdict turns on whether a pause outlasts the input queue. A pause does not shrink in
# proportion to the live set: a collection has fixed costs (stopping the threads, scanning the roots),
# so a tenth of the live set pauses more than a tenth as long. The small profile's queue is therefore
# sized from how its pauses measured against the article's sizes, not by the scale alone. Here are
# the longest pauses of the sentinel cells' batch runs in both profiles, each against its queue.

# %% tags=["lead"]
delay_ms = sweep.profile.unscaled_delay_ms
pause_table = miniature.pauses(small_batch, full_batch, sweep.profile.capture_delay_ms, full.profile.capture_delay_ms,
                               delay_ms)
if sweep.profile.name != "full":
    miniature.show_pauses(pause_table, sweep.profile.name, sweep.profile.capture_delay_ms,
                          full.profile.capture_delay_ms, delay_ms)
else:
    show.nothing_to_show(show.NOTHING_SMALLER)

# %% [markdown]
# ## The delay that does not scale
#
# A packet waits for more than the pauses: the collector's concurrent threads, the JIT and the machine
# take the consumer's core for a few milliseconds at a time, whatever the live set. At the article's
# sizes that is small against a 100 ms queue; against a small profile's queue it is not. So the small
# profile keeps that delay whole in its queue, as it keeps whole the heap a collector needs whatever
# the live set. Here it is measured: in the small profile's real-time probes whose consumer keeps well
# ahead of the clock, the longest metered latency less the longest pause.

# %%
if sweep.profile.name != "full":
    miniature.show_delays(miniature.delays(small_searches.probes, small_batch, sweep.store.index),
                          sweep.profile.name, delay_ms)
else:
    show.nothing_to_show(show.NOTHING_SMALLER)

# %% [markdown]
# ## The sentinel searches
#
# A verdict at 1,000 ns can sit on the edge at the article's sizes themselves: a cell whose own probes
# near 1,000 ns both keep up and lose, or whose loss there the article's tables would print as 0 %.
# No smaller run can be expected to land on the same side of such an edge, so those cells are named,
# and the verdict is checked both in every cell and in the cells the article's sizes decide.
#
# A short probe can also miss a collection that comes less often than it is long. So each sentinel
# search that kept up at 1,000 ns is followed by one long run there (at the article's sizes ten times
# as long as at a tenth of them), and the verdict is checked once more over those runs.

# %%
if sweep.profile.name == "full":
    show.note(show.NOTHING_SMALLER)
    miniature.show_long_runs(small_long_runs, sweep.profile.name)
else:
    miniature.show_comparison(small_searches.table, full_searches.table, sweep.profile.name, pause_table,
                              full_searches.probes, small_long_runs, full_long_runs)
    show.note(miniature.gc_share_sentence(miniature.gc_shares(small_searches.probes, sweep.store.index),
                                          miniature.gc_shares(full_searches.probes, full.store.index),
                                          sweep.profile.name))

# %% tags=["check"]
sweep.finish(small_batch, small_searches.table)
