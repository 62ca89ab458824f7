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
# # Collectors across the JDKs
#
# The article ran Java 8 in 2019. Between JDK 11 and JDK 25, Parallel and G1 were tuned release after
# release, ZGC became a product and then generational, Shenandoah arrived and became generational
# too, and CMS was removed. This chapter runs case C, which decided the article's real-time
# results, on each JDK the study has. Each collector runs as its JDK ships it, with no flag but
# its own choice (no pause goal, unlike the article's G1 rows), in the article's heap at the
# profile's scale. Each JDK and collector runs its strategies in batch as one block (interleaved,
# repeated, in one boot), so that its medians carry intervals and its comparisons are ratios with
# intervals; each strategy also gets one real-time probe at 1,000 ns.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters.page import display as show
from allocorpool.chapters import jdks
from allocorpool.chapters.page import sections
from allocorpool.profiles import jdk_solutions
from allocorpool.run.experiments import jdks as measure_jdks
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
plan = sweep.profile.jdks
collectors = (show.series(plan.collectors) if plan.collectors
              else "every collector each ships but Epsilon (which never collects)")
show.note(f"JDKs {show.series(plan.jdks)}, with {collectors}: {show.strategies(plan.strategies)} in "
          f"{show.cases(plan.cases or sweep.profile.cases)}.")

# %% tags=["progress"]
table = measure_jdks.across_jdks(sweep.executor, sweep.selection)
# A probe that kept up stands unless a stored run of the same configuration lost at its interval or above it.
probed = table.dropna(subset=["probe_key"]).rename(columns={"probe_key": "key"})
table = jdks.standing(table, sections.stored_runs(sweep, probed))

# %% [markdown] tags=["lead"]
# ## Each JDK's collectors side by side

# %% tags=["lead"]
jdks.show_chapter(table, planned=len(jdk_solutions(plan)))

# %% tags=["check"]
sweep.finish(table)
