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
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters.page import sections
from allocorpool.chapters import zgc as zgc_chapter
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime, stored as measure_stored
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("zgc")
sections.show_left_out(sweep, "zgc")

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)

# %%
sections.show_batch(batch, reference_figures, "ZGC on Java 11")

# %% [markdown]
# The article skipped the GC table for ZGC: it found no way to log its pauses. Unified
# logging gives them (pause mark start, mark end and relocate start), so the table is here,
# with nothing beside it. A thread that allocates faster than ZGC frees memory waits in an
# *allocation stall*, which the log records separately and which is not counted as a pause.

# %%
sections.show_gc(measure_stored.gc_table(sweep.executor, batch), measure_stored.pauses(sweep.executor, batch),
                 reference_figures)

# %% [markdown]
# ## Real time

# %% tags=["progress"]
searches = measure_realtime.realtime(sweep.executor, chosen)

# %%
sections.show_realtime(sweep, searches, reference_figures, "ZGC on Java 11")

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim the article made in this chapter, in our words, checked on this chapter's cells and,
# beside it, on the article's own figures; the cells behind each verdict here, those against it
# first, are folded under it.

# %% tags=["progress"]
# the article's G1 as it ran, for comparison
g1_batch = measure_batch.batch(sweep.executor, sweep.solutions_named(["g1"]))

# %% tags=["lead"]
zgc_chapter.show_verdicts(reference_figures, batch=batch, searches=sections.standing(sweep, searches), g1_batch=g1_batch)

# %% tags=["check"]
sweep.finish(batch, searches.table)
