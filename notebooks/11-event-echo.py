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
# # One allocation per event
#
# Seed 004 asks what a single small object per event costs where nothing else allocates.
# Clients send 44-byte TopOfBook events over loopback TCP to a service that sends each one
# back: as it read it, into an object reused for every event (**reuse**), or as a new copy
# (**copy**), so that the two modes differ by one allocation per event. The service and its
# clients run in one JVM, as in the seed, over Chronicle Wire's channels (chronicle-wire
# 2.26ea10, the seed's library) and over plain NIO (the same frames with no library), on each
# JDK and collector. A second benchmark only allocates such objects, on 1 and 2 threads, to
# show where the allocation rate stops growing.
#
# The seed's figures come from another machine (a 16-core Ryzen 5950X, 16 clients, Java 17);
# they are shown beside ours and checked by the rules in `chapters/event_echo.py`.

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool.chapters import display as show
from allocorpool.chapters import event_echo as chapter
from allocorpool.run.event_echo import WINDOW, EchoSweep
from allocorpool.run.machine import cpus

sweep = EchoSweep(profile, data_dir or None)
seed_figures = chapter.reference()

# %% tags=["progress"]
echo = sweep.echo()
allocation = sweep.allocation()

# %% [markdown]
# ## The runs

# %%
chapter.show_runs(echo, allocation)
show.note(f"Profile **{sweep.profile.name}**: {sweep.profile.duration_s:g} s measured after a "
          f"{sweep.profile.warmup_s:g} s warm-up per echo run, heap {sweep.profile.heap}, {WINDOW} events in "
          f"flight per client; the allocation loop: {sweep.profile.forks} fork(s) x "
          f"{sweep.profile.iterations} iteration(s) of {sweep.profile.iteration_ms} ms after "
          f"{sweep.profile.warmup_iterations} warm-up iteration(s).")

# %% [markdown]
# ## Throughput, and what the copy costs
#
# Events per second count round trips (the seed's "messages" count each event twice, sent and
# received). The seed's measure of the copy's cost is the difference in its average latency,
# clients / events per second, between the modes; the extra CPU time per event (the process's
# CPU time over the events) is the same difference without the waiting for a core.

# %%
cost = chapter.costs(echo)
chapter.show_throughput(echo, cost)
wrong = chapter.copy_check(cost)
show.note("In every row compared, the copy mode allocated at least an event's 44 bytes more per event than "
          "reuse on the service's threads." if not len(wrong) else
          f"**{len(wrong)} row(s) where the copy did not allocate an event per event** on the service's "
          f"threads: {', '.join(wrong['copy_key'])}; their costs are not of one allocation per event.")

# %% [markdown]
# ## Latency

# %%
chapter.show_latency(echo)

# %% [markdown]
# ## Collections and allocation rate

# %%
chapter.show_gc(echo)

# %% [markdown]
# ## The allocation loop

# %%
chapter.show_allocation(allocation)

# %% [markdown]
# ## Two cores for clients and service

# %%
show.note(chapter.sharing_note(echo, cpus()))

# %% [markdown]
# ## The seed's claims on this machine

# %%
chapter.show_seed_figures(seed_figures)
chapter.show_verdicts(chapter.verdicts(cost, allocation, seed_figures))

# %% [markdown]
# ## Where these figures were measured

# %%
show.show_table(chapter.machine(sweep.store.index).set_index("what").rename_axis(None),
                caption="The machine, runtimes and commits of the stored event-echo runs")

# %%
chapter.raise_if_failed(echo, allocation, sweep.profile.name)
