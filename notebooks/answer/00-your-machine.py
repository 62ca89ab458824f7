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
# # Your machine's answer
#
# The study's answer, measured again on this machine in about half an hour, beside the same answer at
# the 2019 article's sizes (measured over hours and committed with the study). Both ask one question
# per solution and case: does pooling beat allocation? In batch, the answer is the ratio of the two
# strategies' median times per packet with its 95 % interval; pooling wins only where the interval
# lies at least 5 % below parity. In real time, each strategy is probed repeatedly at one packet a
# microsecond, and pooling wins only where it loses fewer packets in every resample.
#
# Here the runs are short and the model a tenth of the article's sizes. The input queue and the heap
# are scaled so that a collection pause stands to the queue as it does at full size; the study's
# chapter on small runs shows where that holds.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name(default="answer")
data_dir = settings.data_dir() or ""  # empty: data/<profile>
full_data_dir = ""  # empty: data/full, the committed store of the article's sizes

# %%
from allocorpool.chapters import answer, summary, your_machine
from allocorpool.chapters.page import tables
from allocorpool.chapters.page import display as show
from allocorpool.data import reference
from allocorpool.data.tables import SEARCH_COLUMNS
from allocorpool.run.experiments import batch as measure_batch, stored as measure_stored
from allocorpool.run.sweep import Sweep

import pandas as pd

sweep = Sweep(profile, data_dir or None)
chosen = sweep.solutions()

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)
probes = measure_batch.probe_blocks(sweep.executor, chosen)
# Read only, and read after the runs above: the article's sizes, as committed
full = Sweep("full", full_data_dir or None, replay=True)
full_chosen = [s for s in full.solutions() if s.name in {c.name for c in chosen}]
full_batch = measure_batch.batch(full.executor, full_chosen)
full_probes = measure_batch.probe_blocks(full.executor, full_chosen)

# %% tags=["answer"]
your_machine.show_comparison(your_machine.verdicts(batch, probes), your_machine.verdicts(full_batch, full_probes))

# %% [markdown]
# ## This machine's answer table
#
# Each cell names the best strategy of a solution and case and its margin over the next, with the
# 2019 article's best beside it, as the article's first screen does at full size.

# %%
none_searched = pd.DataFrame(columns=SEARCH_COLUMNS)
table = answer.answer_table(batch, none_searched, reference.load(), probes)
for test, words in (("batch", "in batch: its margin over the next in time per packet"),
                    ("real time", "in real time: each strategy's loss at one interval, over repeated probes")):
    part = table[[c for c in table.columns if c.startswith(test + ",")]] if len(table) else table
    if len(part.columns):
        show.show_table(tables.wrapping(part.rename(columns=lambda c: c.split(", ")[1])),
                        caption=f"This machine: the best strategy of each solution and case, {words}")

# %% [markdown]
# ## Where these figures were measured

# %%
show.show_table(summary.machine_table(measure_stored.machine(sweep.executor)).set_index("what").rename_axis(None),
                caption="Where these figures were measured")
show.note(f"Profile **{sweep.profile.name}**: {sweep.profile.description}.")

# %% tags=["check"]
sweep.finish(batch)
