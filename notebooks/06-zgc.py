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
# # ZGC
#
# ZGC does nearly all of its work while the program runs, with pauses that do not grow with
# the heap or the live set. When the article was written it was an experimental option of
# JDK 11 on Linux; it became a product feature in JDK 15 and gained a generational mode in
# JDK 21, its only mode since JDK 24. The article's row runs the original,
# non-generational ZGC on JDK 11; beside it, generational ZGC and Shenandoah (the other
# concurrent compacting collector) on JDK 25.

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool import display as show, figures, reference, tables
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
article = reference.load()
chosen = study.solutions("zgc")

# %% tags=["progress"]
batch = study.batch(chosen)

# %%
show.show_failures(tables.failures(batch), "batch cell")
show.show_table(tables.batch_chapter(batch, reference.batch(article)),
                caption="Batch: ns per packet, this machine beside the article's (ZGC on Java 11, 2019)")
show.show_figure(figures.ns_per_packet(batch, reference.batch(article)))

# %% [markdown]
# The article skipped the GC table for ZGC: it found no way to log its pauses. Unified
# logging gives them (pause mark start, mark end and relocate start), so the table is here,
# with nothing beside it. A thread that allocates faster than ZGC frees memory waits in an
# *allocation stall*, which the log records separately and which is not counted as a pause.

# %%
show.show_table(tables.gc_chapter(study.gc_table(batch), reference.gc_table(article)),
                caption="GC table of the batch runs, this machine beside the article's where it has one")
pauses = study.pauses(batch)
if len(pauses):
    show.show_figure(figures.pause_histogram(pauses))

# %% [markdown]
# ## Real time

# %% tags=["progress"]
searches = study.realtime(chosen)

# %%
show.show_failures(tables.failures(searches.table), "search")
show.show_table(tables.realtime_chapter(searches.table, reference.realtime(article)),
                caption="Real-time: smallest loss-free interval in ns, or the loss at 1000 ns (with the big heap), this machine beside the article's (ZGC on Java 11, 2019)")
show.show_figure(figures.loss_vs_interval(searches.probes))
