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
# # Summary
#
# Every solution in one place, as the article closed: first the batch test, then the
# real-time test, each figure of this machine beside the article's, without the dummy
# strategy and without the big-heap runs. Rows without an article figure are the modern
# collectors and allocators the article could not try.

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool import display as show, reference, tables
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
article = reference.load()
chosen = study.solutions()

# %% tags=["progress"]
batch = study.batch(chosen)
searches = study.realtime(chosen)

# %% [markdown]
# ## Batch

# %%
show.show_failures(tables.failures(batch), "batch cell")
show.show_table(tables.batch_summary(batch, reference.batch(article)),
                caption="Batch test: ns per packet")
show.note(tables.MARK_LEGEND)

# %% [markdown]
# ## Real time

# %%
show.show_failures(tables.failures(searches.table), "search")
show.show_table(tables.realtime_summary(searches.table, reference.realtime(article, with_extras=False)),
                caption="Real-time test: smallest loss-free interval in ns, or the loss at 1000 ns")
show.note(tables.MARK_LEGEND)

# %% [markdown]
# ## What this machine says
#
# The best figure of each column, and the best Java one:

# %%
lines = []
for test, frame, column in (("batch", batch[batch["strategy"] != "dummy"], "ns_per_packet"),
                            ("real-time", searches.table[searches.table["outcome"] == "found"], "interval_ns")):
    ranked = frame[~frame["baseline"]]
    for case in study.profile.cases:
        in_case = ranked[ranked["case"] == case]
        overall = tables.best(in_case, column, ["case"])
        java = tables.best(in_case[in_case["engine"] == "java"], column, ["case"])
        parts = [f"{r.label} {r.strategy_label} ({getattr(r, column):.0f} ns)" for r in overall.itertuples()]
        parts += [f"best Java: {r.label} {r.strategy_label} ({getattr(r, column):.0f} ns)" for r in java.itertuples()]
        lines.append(f"- {test}, case {case}: " + ("; ".join(parts) if parts else "no solution"))
unsolved = searches.table[(searches.table["outcome"] != "found") & ~searches.table["baseline"]]
lines.append(f"- real-time cells with no loss-free interval: {len(unsolved)} of "
             f"{int((~searches.table['baseline']).sum())}")
show.note("\n".join(lines))

# %% [markdown]
# ## The machine and the runs

# %%
show.show_table(study.machine().set_index("what").rename_axis(None), caption="Where these figures were measured")
show.note(f"Profile **{study.profile.name}**: {study.profile.description}.")
