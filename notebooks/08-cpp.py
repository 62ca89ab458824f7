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
# # C++ and flat C++
#
# Without a collector, live objects cost nothing but memory and cache, so pooling should
# win outright. Two designs: **C++** translates the Java model directly, allocating the
# header and address objects while parsing each packet; **flat C++** keeps those objects
# inside the packet, so processing allocates nothing at all. The article used the system
# allocator; here each design runs with glibc's malloc and with three modern allocators,
# jemalloc, mimalloc and tcmalloc, since allocation is exactly what the strategies differ in.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters import cpp
from allocorpool.chapters.page import sections
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("cpp")
sections.show_left_out(sweep, "cpp")

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)

# %%
sections.show_batch(batch, reference_figures, "glibc")

# %% [markdown]
# Allocations per packet, as the engine counts them, tell the designs apart regardless of
# speed: the flat design's pooling strategy should allocate nothing.

# %%
cpp.show_allocations(batch)

# %% [markdown]
# ## Which pool
#
# The engine pools packets on a small free list of its own. A C++ programmer who does not write
# one has a general-purpose pool in the standard library: its unsynchronized pool resource, which
# serves each size from a pool of blocks. Here every packet and its buffer are made from that
# resource and destroyed back into it, as allocation does with new and delete. Both designs on
# glibc run it beside allocation and the free list, interleaved and repeated, one block per case.

# %% tags=["progress"]
pool_choice = measure_batch.pool_choice(sweep.executor, cpp.pool_choice_solutions(chosen))

# %%
cpp.show_pool_choice(pool_choice)

# %% [markdown]
# ## Real time

# %% tags=["progress"]
searches = measure_realtime.realtime(sweep.executor, chosen)

# %%
sections.show_realtime(sweep, searches, reference_figures, "glibc", big_heap=False)

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim the article made in this chapter, in our words, checked on this chapter's cells and,
# beside it, on the article's own figures; the cells behind each verdict here, those against it
# first, are folded under it.

# %% tags=["lead"]
cpp.show_verdicts(reference_figures, batch=batch, searches=sections.standing(sweep, searches))

# %% tags=["check"]
sweep.finish(batch, searches.table, pool_choice)
