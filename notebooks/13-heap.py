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
# # The heap as a multiple of the minimum heap
#
# The article gave every Java run 2 GB, and 10 GB for one column. A heap size means little on its
# own: 2 GB is plenty for a live set of a few megabytes and barely enough for one of a gigabyte, and
# each collector needs a different amount of room. So, as DaCapo Chopin reports its benchmarks, each
# heap here is a multiple of the *minimum heap*: the smallest heap in which the batch run
# completes, found by bisection. A run completes unless it runs out of memory, its JVM will not
# start, or its collections keep it from finishing in time.
#
# Each cell then runs at several multiples of its minimum heap. Its cost is given two ways: wall
# time per packet (what the processing thread waits for) and CPU time per packet, the whole
# process's (what the machine pays: a concurrent collector's threads work on the other core). Each
# cost is compared with the cheapest configuration seen for the same strategy and case, any
# collector at any heap: that ratio, minus one, is the *lower-bound overhead* of a configuration.
# It is a lower bound because the cheapest configuration also pays for its memory management.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool import effects
from allocorpool.chapters.page import display as show
from allocorpool.chapters import heap
from allocorpool.run.experiments import heap as measure_heap
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
plan = sweep.profile.heap
show.note(f"{show.strategies(plan.strategies).capitalize()} in {show.cases(plan.cases or sweep.profile.cases)}, "
          f"at {show.series(f'{f:g}' for f in plan.factors)} times the minimum heap, each minimum found to within "
          f"{effects.pct(plan.resolution)}.")

# %% tags=["progress"]
multiples = measure_heap.heap_multiples(sweep.executor, sweep.solutions("heap"))

# %% [markdown]
# ## The minimum heaps

# %%
heap.show_minimum(multiples.minimum)

# %% [markdown] tags=["lead"]
# ## Time per packet against the heap
#
# Wall time first, then the process's CPU time, on logarithmic axes.

# %% tags=["lead"]
show.show_figure(heap.cost_figure(multiples.multiples, "ns_per_packet"))
show.show_figure(heap.cost_figure(multiples.multiples, "cpu_ns_per_packet"))

# %% [markdown]
# ## Lower-bound overheads

# %%
heap.show_overheads(multiples.multiples)

# %% tags=["check"]
sweep.finish(multiples.multiples)  # a cell whose minimum was not found has no run at a multiple
