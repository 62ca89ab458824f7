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
# # What the answer depends on
#
# The answer's blocks were measured in several **boots**: each boot is one start of a virtual machine,
# and the next may land on another host. The boots differ in CPU model, kernel and engine build, and the
# same cell has run several times slower in one boot than in another. So the boots are not repeats of
# one machine. This chapter models them as a sample of machines: the CPU model's **host class** (AMD EPYC
# or Intel Xeon) is a factor, and what is left between boots is random.
#
# For each solution and case, pooling is compared with allocation:
#
# | test | effect | margin |
# | --- | --- | --- |
# | batch | pooling's time per packet over allocation's (a ratio) | 5 % |
# | real time at one packet a microsecond | pooling's share of packets lost less allocation's (percentage points) | 1 point |
#
# Each effect comes with its 95 % interval over boots and a **prediction** for one new machine of the
# same class, which adds what varies between machines. A verdict has four outcomes. Pooling or
# allocation is **faster** where the interval clears parity by the margin. The two are **equal** where
# an equivalence test puts the effect inside the margin. Anything else is **undecided**, with the
# number of boots that would decide it.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.analysis import model
from allocorpool.chapters import depends
from allocorpool.chapters.page import display as show
from allocorpool.collectors import THREAD_BUDGET
from allocorpool.data.store import Store

store = Store.chosen(profile, data_dir or None)
runs = model.answer_runs(store.index, store.table("blocks"))
fits = model.fits(runs)
cpu_fits = model.fits(runs, value="cpu_ns_per_packet", tests=[t for t in model.tests_of(runs) if model.is_batch(t)])
show.note(depends.lead(runs, fits))

# %% [markdown]
# ## Batch, machine by machine
#
# Each row is a solution and case. A dot is the effect on one host class, its thick bar the 95 %
# interval, its thin line the prediction for a new machine of that class. The grey band is the margin:
# 5 % either side of parity. Left of it, pooling takes less time per packet.

# %%
if any(f.test == model.BATCH and f.estimates for f in fits):
    show.show_figure(depends.forest(fits, model.BATCH))
else:
    show.nothing_to_show("No batch block was measured in this store.")

# %% [markdown]
# ## Real time, machine by machine
#
# The same for the real-time blocks at one packet a microsecond: pooling's share of packets lost less
# allocation's, in percentage points. Left of the band, pooling loses fewer.

# %%
if any(f.test == model.REALTIME and f.estimates for f in fits):
    show.show_figure(depends.forest(fits, model.REALTIME))
else:
    show.nothing_to_show("No real-time block was measured in this store.")

# %% [markdown]
# ## Heap headroom
#
# The article ran every Java collector in a 2 GB heap, which holds case C's live set with little to
# spare. Here both strategies run in heaps of three and six times the case's minimum heap (the larger
# of the two strategies' minimums), so that the collector has room. Left of the band, pooling takes
# less time per packet.

# %%
headroom = [t for t in model.tests_of(runs) if t not in model.TESTS]
for test in headroom:
    show.note(f"**{test[0].upper() + test[1:]}**")
    show.show_figure(depends.forest(fits, test))
if not headroom:
    show.nothing_to_show("No block at a multiple of the minimum heap was measured in this store.")

# %% [markdown]
# ## Every comparison
#
# The table gives each effect with its interval and its prediction for a new machine. It also gives the
# spread of the effect between boots of one class, and for batch the same ratio in process CPU time.

# %%
for test in model.tests_of(runs):
    what = depends.test_words(test).capitalize()
    table = depends.comparison_table(fits, test, cpu_fits)
    show.show_table(table.set_index(["solution", "case", "machines"]), caption=what)
if not model.tests_of(runs):
    show.nothing_to_show("Nothing to compare: no block was measured in this store.")

# %% [markdown] tags=["lead"]
# ## What separates the boots
#
# Each boot's batch effect is set against the mean effect of its solution and case. The deviations are
# then compared with what was recorded of the boot: its host class, its memory latency over 1 GiB, and
# the time of its reference run. A term that matters moves the effect; one that does not has an interval
# across zero.

# %% tags=["lead"]
explained = depends.explained_table(runs)
if len(explained):
    show.show_table(explained.set_index("what the boot had"))
else:
    show.nothing_to_show("Fewer than three boots measured the batch blocks: nothing separates them yet.")

# %% [markdown]
# ## What two CPUs can and cannot say
#
# On a machine with two CPUs, the consumer thread runs on one of them. The collector's threads and the
# JIT compilers share both, with a budget set in every run. The process's CPU time per packet,
# beside its wall time, shows how much of the second CPU the collector took.

# %%
show.note(f"The budget of every Java run: {THREAD_BUDGET.text()}.")
cores = depends.cores(runs)
if len(cores):
    show.show_figure(depends.cores_figure(runs))
    show.note(depends.cores_sentence(runs))
    show.show_details("CPU and wall time per packet, and the cores kept busy",
                      cores.set_index(["solution", "case", "strategy"]), precision=2)
else:
    show.nothing_to_show("No batch run recorded its CPU time.")

# %% [markdown]
# ## What would decide the rest
#
# An undecided comparison needs more boots of its host class. The estimate assumes the effect is what
# was measured, and takes the spread between and within boots from the model. It asks for a verdict
# that 80 % of such studies would reach.

# %%
needed = depends.budget_table(fits)
if len(needed):
    show.show_table(needed.set_index(["test", "solution", "case", "machines"]), precision=0)
elif any(f.estimates for f in fits):
    show.note("Every comparison is decided: no more boots are needed.")
else:
    show.nothing_to_show("Nothing was compared in this store, so nothing is left to decide.")
