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
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters import native_buffers
from allocorpool.chapters.page import sections
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime, stored as measure_stored
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("native")
sections.show_left_out(sweep, "native")

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)

# %%
sections.show_batch(batch, reference_figures, "Java 8 / 11")

# %%
sections.show_gc(measure_stored.gc_table(sweep.executor, batch), measure_stored.pauses(sweep.executor, batch),
                 reference_figures)

# %% [markdown]
# ## Real time
#
# The article's native tables add a notation: "250; lost: 0.0025%" where a small loss remains
# at every interval but the interval where it became small is worth knowing. Our search
# reports the loss at 1,000 ns in that case.

# %% tags=["progress"]
searches = measure_realtime.realtime(sweep.executor, chosen)

# %%
sections.show_realtime(sweep, searches, reference_figures, "Java 8 / 11", big_heap=False)

# %% [markdown]
# The article explained the native CMS pooling losses in case C from its GC log: frequent
# short young collections that leave a little more behind each time, until a long full
# collection. The same run here, with its pauses over the lost packets:

# %% tags=["progress"]
runs = measure_realtime.timelines(sweep.executor, chosen)

# %%
sections.show_timelines(runs)

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim the article made in this chapter, in our words, checked on this chapter's cells and,
# beside it, on the article's own figures; the cells behind each verdict here, those against it
# first, are folded under it.

# %% tags=["progress"]
twins = sweep.solutions_named(native_buffers.TWINS.values())  # the same collectors, heap buffers
heap_batch = measure_batch.batch(sweep.executor, twins)

# %% tags=["lead"]
native_buffers.show_verdicts(reference_figures, batch=batch, searches=sections.standing(sweep, searches), heap_batch=heap_batch)

# %% tags=["check"]
sweep.finish(batch, searches.table)
