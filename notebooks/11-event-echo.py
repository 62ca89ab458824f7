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
# Peter Lawrey's 2022 article "Java Is Very Fast if You Don't Create Many Objects" asks what a
# single small object per event costs where nothing else allocates. Clients send 44-byte events
# over loopback TCP to a service that sends each one back in one of two modes:
#
# | mode | what the service does with an event |
# | --- | --- |
# | reuse | reads it into one object reused for every event |
# | copy | reads it into a new object: one allocation more per event |
#
# The service and its clients run in one JVM, as in the article. They talk over Chronicle Wire's
# channels (version 2.26ea10, the article's library) and over plain NIO (the same frames, no
# library), on each JDK and collector. A second benchmark only allocates such objects, on 1 and
# 2 threads, to show where the allocation rate stops growing.
#
# Lawrey's figures come from another machine (a 16-core Ryzen 5950X, 16 clients, Java 17). They
# stand beside ours, and each of his claims is checked by a rule stated with it.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters.page import display as show
from allocorpool.chapters import event_echo as chapter
from allocorpool.chapters import event_echo_claims
from allocorpool.run.event_echo import WINDOW
from allocorpool.run.experiments import event_echo as measure_event_echo
from allocorpool.run.experiments.event_echo import EchoSweep
from allocorpool.run.machine import cpus

sweep = EchoSweep(profile, data_dir or None)
seed_figures = event_echo_claims.reference()

# %% tags=["progress"]
echo = measure_event_echo.echo(sweep.executor)
allocation = measure_event_echo.allocation(sweep.executor)

# %% [markdown]
# ## The runs

# %%
chapter.show_runs(echo, allocation)
stored = chapter.stored(echo, allocation)
plan = sweep.profile.echo
if stored:
    show.note(f"Each echo run measures {plan.duration_s:g} s after a {plan.warmup_s:g} s warm-up, "
              f"in a {plan.heap} heap, with {WINDOW} events in flight per client. The allocation loop runs "
              f"{show.count(plan.forks, 'process', 'processes')} of {plan.iterations} iterations "
              f"of {plan.iteration_ms} ms, after {plan.warmup_iterations} warm-up iterations.")

# %% [markdown]
# ## Throughput, and what the copy costs
#
# Events per second count round trips; Lawrey's "messages" count each event twice, sent and
# received. His measure of the copy's cost is the difference in average latency (clients over
# events per second) between the modes. The extra CPU time per event (the process's CPU time
# over the events) is the same difference without the waiting for a core.

# %%
cost = chapter.costs(echo)
chapter.show_throughput(echo, cost)
wrong = chapter.copy_check(cost)
if not len(cost):
    show.nothing_to_show("No row has both modes measured, so no allocation per event can be checked.")
else:
    show.note("In every row compared, the copy mode allocated at least an event's 44 bytes more per event than "
              "reuse on the service's threads." if not len(wrong) else
              f"**In {show.count(len(wrong), 'row')} the copy did not allocate an event per event** on the "
              f"service's threads: "
              f"{', '.join(f'{r.transport}, JDK {r.jdk} {r.collector}, {r.clients} clients' for r in wrong.itertuples())}. "
              "Their costs are not of one allocation per event.")

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
if stored:
    show.note(chapter.sharing_note(echo, cpus()))
else:
    show.nothing_to_show("No echo run is stored: nothing to say about the cores.")

# %% [markdown] tags=["lead"]
# ## Lawrey's claims on this machine

# %% tags=["lead"]
if stored:
    event_echo_claims.show_seed_figures(seed_figures)
    event_echo_claims.show_verdicts(event_echo_claims.claims(echo, allocation, seed_figures))
else:
    show.nothing_to_show("No run is stored to check Lawrey's claims on.")

# %% [markdown]
# ## Where these figures were measured

# %%
if stored:
    show.show_table(chapter.machine(sweep.store.index).set_index("what").rename_axis(None),
                    caption="The machine, runtimes and commits of the stored event-echo runs")
else:
    show.nothing_to_show("No run is stored: no machine to show.")

# %%
chapter.raise_if_failed(echo, allocation, sweep.profile.name)
