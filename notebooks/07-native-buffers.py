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
from allocorpool import chapter, reference
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
article = reference.load()
chosen = study.solutions("native")

# %% tags=["progress"]
batch = study.batch(chosen)

# %%
chapter.show_batch(batch, article, "Java 8 / 11")

# %%
chapter.show_gc(study.gc_table(batch), study.pauses(batch), article)

# %% [markdown]
# ## Real time
#
# The article's native tables add a notation: "250; lost: 0.0025%" where a small loss remains
# at every interval but the interval where it became small is worth knowing. Our search
# reports the loss at 1000 ns in that case.

# %% tags=["progress"]
searches = study.realtime(chosen)

# %%
chapter.show_realtime(searches, article, "Java 8 / 11", big_heap=False)

# %% [markdown]
# The article explained the native CMS pooling losses in case C from its GC log: frequent
# short young collections that leave a little more behind each time, until a long full
# collection. The same run here, with its pauses over the lost packets:

# %% tags=["progress"]
runs = study.timelines(chosen)

# %%
chapter.show_timelines(runs)
