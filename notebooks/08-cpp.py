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
from allocorpool import display as show, figures, reference, tables
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
article = reference.load()
chosen = study.solutions("cpp")

# %% tags=["progress"]
batch = study.batch(chosen)

# %%
show.show_failures(tables.failures(batch), "batch cell")
show.show_table(tables.batch_chapter(batch, reference.batch(article)),
                caption="Batch: ns per packet, this machine beside the article's (glibc, 2019)")
show.show_figure(figures.ns_per_packet(batch, reference.batch(article)))

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
show.show_failures(tables.failures(searches.table), "search")
show.show_table(tables.realtime_chapter(searches.table, reference.realtime(article)),
                caption="Real-time: smallest loss-free interval in ns, or the loss at 1000 ns, this machine beside the article's (glibc, 2019)")
show.show_figure(figures.loss_vs_interval(searches.probes))
