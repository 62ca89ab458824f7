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
# # G1
#
# G1 became the default collector in JDK 9. It divides the heap into regions, collects the
# ones with the most garbage first, and aims at a pause-time goal. The article tried it on
# Java 8 with an 80 ms goal, hoping for shorter pauses than CMS. Here it runs three ways:
#
# | run | JDK | pause goal | note |
# | --- | --- | --- | --- |
# | the article's row | 11 | 80 ms | |
# | today's default | 25 | 200 ms | |
# | compact headers | 25 | 200 ms | object headers of 8 bytes instead of 12 |
#
# Each pooled packet is a handful of small objects beside its buffer, so compact headers
# shrink the live set too.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters import g1 as g1_chapter
from allocorpool.chapters.page import sections
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime, stored as measure_stored
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions("g1")
sections.show_left_out(sweep, "g1")

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)

# %%
sections.show_batch(batch, reference_figures, "G1 on Java 8")

# %% [markdown]
# Unlike CMS's log, not every line of G1's marks a pause: concurrent marking runs beside the
# program. Only the stop-the-world pauses count below.

# %%
sections.show_gc(measure_stored.gc_table(sweep.executor, batch), measure_stored.pauses(sweep.executor, batch),
                 reference_figures)

# %% [markdown]
# ## Real time
#
# The real-time search, as in the CMS chapter:

# %% tags=["progress"]
searches = measure_realtime.realtime(sweep.executor, chosen)

# %%
sections.show_realtime(sweep, searches, reference_figures, "G1 on Java 8")

# %% [markdown] tags=["lead"]
# ## The article's claims on this machine
#
# Each claim the article made in this chapter, in our words, checked on this chapter's cells and,
# beside it, on the article's own figures; the cells behind each verdict here, those against it
# first, are folded under it.

# %% tags=["progress"]
as_run = sweep.solutions_named(["parallel-11"])  # the article's "CMS" as it ran, for comparison
baseline = measure_batch.batch(sweep.executor, as_run)
baseline_searches = sections.standing(sweep, measure_realtime.realtime(sweep.executor, as_run))

# %% tags=["lead"]
g1_chapter.show_verdicts(reference_figures, batch=batch, searches=sections.standing(sweep, searches), baseline=baseline,
                         baseline_searches=baseline_searches)

# %% tags=["check"]
sweep.finish(batch, searches.table)
