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
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis import model
from allocorpool.chapters.page import display as show
from allocorpool.chapters import answer, summary
from allocorpool.chapters.page import sections, tables
from allocorpool.data import reference
from allocorpool.run.experiments import batch as measure_batch, continuum as measure_continuum
from allocorpool.run.experiments import realtime as measure_realtime, stored as measure_stored
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
reference_figures = reference.load()
chosen = sweep.solutions()
# Chapter 14 measures the pool sizes; the summary reads what the store holds of them and runs nothing
# (`make article` replays every chapter, so the article's summary has them once chapter 14 has run).
stored = Sweep(profile, data_dir or None, replay=True)
pool_solutions = stored.continuum_solutions()

# %% tags=["progress"]
batch = measure_batch.batch(sweep.executor, chosen)
searches = measure_realtime.realtime(sweep.executor, chosen)
probes = measure_batch.probe_blocks(sweep.executor, chosen)

# %%
# A search's loss-free interval stands unless a stored run of the same cell lost at it or above it.
standing = sections.standing(sweep, searches)

# %% tags=["answer"]
answer.show_answer(reference_figures, model.answer_runs(sweep.store.index, sweep.store.table("blocks")),
                   summary.heap_multiples(stored, chosen, "C"))

# %% [markdown] tags=["answer"]
# ## The 2019 conclusions today
#
# The 2019 article closed with nine conclusions. Each is restated here in a few words and checked on
# every cell of the study and, beside it, on the article's own figures. The chapter named decides it.

# %% tags=["answer"]
what_if = measure_realtime.what_if_queue(sweep.executor, sweep.solutions_named(["parallel-11"]))
pool_sizes = measure_continuum.pool_sizes(stored.executor, pool_solutions, stored.off_heap_solutions())
summary.show_conclusions(reference_figures, batch=batch, searches=standing, probes=probes, what_if=what_if,
                         pool_sizes=pool_sizes, queue_ms=sweep.profile.capture_delay_ms)

# %% [markdown] tags=["answer"]
# ## The best strategy of each solution and case

# %% tags=["answer"]
# A search's loss-free interval stands unless a stored run of the same cell lost at it or above it.
answer.show_best_tables(batch, standing, reference_figures, answer.boots_of(batch), probes)

# %% [markdown]
# ## Batch

# %%
show.show_failures(tables.failures(batch), "batch cell")
show.show_table(tables.batch_summary(batch, reference.batch(reference_figures)),
                caption="Batch test: ns per packet")
show.note(tables.MARK_LEGEND)

# %% [markdown]
# ## Real time

# %%
show.show_failures(tables.failures(searches.table), "search")
show.show_table(tables.realtime_summary(standing, reference.realtime(reference_figures, with_extras=False)),
                caption="Real-time test: smallest loss-free interval in ns, or the loss at 1,000 ns")
show.note(tables.MARK_LEGEND + (" " + tables.CONTRADICTED_LEGEND if standing["lost_above_ns"].notna().any() else ""))

# %% [markdown]
# A search finds each strategy's shortest loss-free interval once. To compare the strategies with a
# margin, each is also probed several times at one packet a microsecond, the probes of a solution and
# case interleaved in one boot. A strategy keeps up there only if no probe lost a packet.

# %%
summary.show_realtime_blocks(probes)

# %% [markdown]
# ## What this machine says

# %%
summary.show_best(batch, standing, sweep.profile.cases)

# %% [markdown]
# ## Does it hold in another boot?
#
# A virtual machine can boot on other hardware, or run at another speed on the same. Each batch
# block records the boot it ran in, with its CPU model and kernel in the Methods appendix; where
# several boots measured the same block, each boot's verdict stands in its own column. The answer
# above is taken across the boots, so that a pair holds only where its boots agree, and counts
# the pairs whose boots disagree.

# %%
machines = block_figures.machine_names(sweep.store.table("blocks"), sweep.store.index)
summary.show_reproducibility(batch, machines)

# %% [markdown]
# ## Does one configuration read the same everywhere?
#
# Some configurations were measured more than once: by a block, by another chapter's run, or in
# another boot. Where their figures differ, the table names them.

# %%
summary.show_consistency(sweep.store.index, machines)

# %% [markdown]
# ## The machine and the runs

# %%
show.show_table(summary.machine_table(measure_stored.machine(sweep.executor)).set_index("what").rename_axis(None),
                caption="Where these figures were measured")
show.note(f"Profile **{sweep.profile.name}**: {sweep.profile.description}.")

# %% tags=["check"]
sweep.finish(batch, searches.table)
