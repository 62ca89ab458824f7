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
# # Native buffers
#
# If the collectors struggle with a million live byte arrays, move the arrays out of their
# reach. The native strategies keep every packet's bytes in direct (off-heap) memory,
# handed out from an off-heap pool in every strategy, because allocating direct buffers one
# by one is slow and freeing them depends on the collector. What still differs is the packet
# objects: allocated per packet (native allocation), pooled, or a mix. The Java heap shrinks
# accordingly (the article used 1 GB of heap and 2 GB of direct memory; heaps here scale with
# the profile).
#
# Rows: the article's three collectors on JDK 11, and generational ZGC on JDK 25.

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool import display as show, figures, reference, tables
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
article = reference.load()
chosen = study.solutions("native")

# %% tags=["progress"]
batch = study.batch(chosen)

# %%
show.show_failures(tables.failures(batch), "batch cell")
show.show_table(tables.batch_chapter(batch, reference.batch(article)),
                caption="Batch: ns per packet, this machine beside the article's (Java 8 / 11, 2019)")
show.show_figure(figures.ns_per_packet(batch, reference.batch(article)))

# %%
show.show_table(tables.gc_chapter(study.gc_table(batch), reference.gc_table(article)),
                caption="GC table of the batch runs, this machine beside the article's where it has one")
pauses = study.pauses(batch)
if len(pauses):
    show.show_figure(figures.pause_histogram(pauses))

# %% [markdown]
# ## Real time
#
# The article's native tables add a notation: "250; lost: 0.0025%" where a small loss remains
# at every interval but the interval where it became small is worth knowing. Our search
# reports the loss at 1000 ns in that case.

# %% tags=["progress"]
searches = study.realtime(chosen)

# %%
show.show_failures(tables.failures(searches.table), "search")
show.show_table(tables.realtime_chapter(searches.table, reference.realtime(article)),
                caption="Real-time: smallest loss-free interval in ns, or the loss at 1000 ns, this machine beside the article's (Java 8 / 11, 2019)")
show.show_figure(figures.loss_vs_interval(searches.probes))

# %% [markdown]
# The article explained the native CMS pooling losses in case C from its GC log: frequent
# short young collections that leave a little more behind each time, until a long full
# collection. The same run here, with its pauses over the lost packets:

# %% tags=["progress"]
runs = study.timelines(chosen)

# %%
for solution, strategy, case, result in runs:
    title = f"{solution.label}, {strategy}, case {case}, 1000 ns"
    if result.status != "ok":
        show.note(f"{title}: the run failed ({result.error}).")
        continue
    fig, attribution = figures.pause_timeline(result, title)
    show.show_figure(fig)
    if len(attribution):
        show.show_table(figures.attribution_table(attribution).head(12),
                        caption=f"{title}: lossy periods and the pauses over them")
    else:
        show.note(f"{title}: no packet was lost in this run.")
