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
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool import chapter, display as show, reference
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
article = reference.load()
chosen = study.solutions("cpp")

# %% tags=["progress"]
batch = study.batch(chosen)

# %%
chapter.show_batch(batch, article, "glibc")

# %% [markdown]
# Allocations per packet, as the engine counts them, tell the designs apart regardless of
# speed: the flat design's pooling strategy should allocate nothing.

# %%
counts = batch[batch["status"] == "ok"].pivot_table(index=["label", "strategy_label"], columns="case",
                                                     values="allocs_per_packet", sort=False)
counts.index.names = ["solution", "strategy"]
show.show_table(counts, caption="Allocations per packet", precision=2)

# %% [markdown]
# ## Real time

# %% tags=["progress"]
searches = study.realtime(chosen)

# %%
chapter.show_realtime(searches, article, "glibc", big_heap=False)
