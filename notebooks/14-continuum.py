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
# # The live-set continuum
#
# The article measured three points: cases A, B and C, whose internal FIFO and store hold 1,000,
# 100,000 and 495,000 packets each (case A as its published code ran it). A reader's program sits
# somewhere else. Here the FIFO and the store grow together along a geometric series, from
# 1,000 to 1,000,000 packets each (times the profile's scale, like every count). Each size runs
# in batch and is probed in real time at one interval. Allocation, mix and pooling run on a
# handful of collectors and on flat C++. The pool holds the article's 1,000,000 buffers, or the
# FIFO and the store if they need more.
#
# The crossovers are read from the data: where mix (or allocation) stops being faster than pooling
# in batch, and where each strategy starts losing packets in real time. A size is known only at the
# points measured, so each crossover is a bracket between two of them. One probe can lose to a rare
# delay, so the probes on either side of a change of verdict run twice, and a size keeps up only
# where both did; a line that loses at one size and not at a larger one has no single crossover, and
# says so.
#
# Last, the article's what-if "much worse with ten million buffers": pooling in case B with pools
# of one to ten million buffers (times the scale), each JVM in the big heap (the article's 10 GB
# times the scale). Ten million pooled buffers of 1 KiB cannot fit a 10 GB heap. Where a pool on the
# heap runs out of it, a bisection finds the largest pool that fits, and its time per packet is
# set beside one million's. The native-buffer solutions keep their buffers off the heap, in direct
# memory sized for them, and run the smallest and the largest pool.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters import continuum as chapter
from allocorpool.chapters.page import display as show
from allocorpool.run.experiments import continuum as measure_continuum
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
plan = sweep.profile.continuum
show.note(f"Profile {sweep.profile.name}: sizes {', '.join(f'{s:,}' for s in plan.sizes)} (× scale "
          f"{sweep.profile.scale:g}); {show.strategies(plan.strategies)}; real-time probes at "
          f"{plan.interval_ns:,} ns; pools of {', '.join(f'{s:,}' for s in plan.pool_sizes)} buffers (× scale), the "
          f"largest that fits the heap found to within {plan.pool_resolution:,}.")

# %% tags=["progress"]
measured = measure_continuum.continuum(sweep.executor, sweep.continuum_solutions(), sweep.off_heap_solutions())

# %%
chapter.show_curves(measured.curves)

# %% [markdown]
# ## Crossovers

# %%
chapter.show_crossovers(measured.curves)

# %% [markdown] tags=["lead"]
# ## At the article's sizes
#
# A small profile keeps the live set's proportions, not the article's sizes: a crossover that sits
# where a collection's pause meets the input queue can move with the scale. The committed full-size
# store holds this chapter's runs for the article's own solutions; where both profiles
# read a crossover, the table says whether their brackets can meet.

# %% tags=["lead"]
full_data_dir = ""  # empty: data/full, the committed store of the article's sizes
if sweep.profile.name == "full":
    show.nothing_to_show(show.NOTHING_SMALLER)
else:
    full = Sweep("full", full_data_dir or None, replay=True)  # read only: nothing of the full profile runs here
    shown = full.solutions_named([s.name for s in sweep.continuum_solutions()])
    at_full_size = measure_continuum.continuum(full.executor, shown, full.off_heap_solutions())
    chapter.show_against_full(measured.curves, at_full_size.curves, sweep.profile.name)

# %% [markdown]
# ## Ten million buffers

# %%
chapter.show_pool_sizes(measured.pool_sizes)

# %% tags=["check"]
sweep.finish(measured.curves.rename(columns={"batch_status": "status"}), measured.pool_sizes)
