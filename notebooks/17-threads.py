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
# # Several threads
#
# The 2019 article measured one processing thread and left the multi-threaded case for later. It
# warned that pooling "can become quite tricky" there, while allocation stays cheap: each thread
# allocates from a buffer of its own (a TLAB). Servers today seldom write their own pool. Many pool
# through Netty's allocator, which keeps a cache per thread over arenas the threads share.
#
# This chapter runs the batch test with several processing threads. The case is split between them:
# each thread makes its own share of the packets and keeps its own FIFO and store. The live set, and
# the heap against it, stay the case's whatever the number of threads. Five strategies compete in
# Java, the first three in C++:
#
# | Strategy | Where a thread's buffers come from |
# |---|---|
# | Allocation | a new buffer per packet: in Java from the thread's TLAB, in C++ from malloc's cache for the thread |
# | Pool per thread | the thread's own pool, as the article's pooling |
# | Shared pool | one pool for all threads: a lock-free stack, last in, first out |
# | Netty, heap | Netty's pooled allocator, heap buffers |
# | Netty, direct | Netty's pooled allocator, buffers off the heap |
#
# Times are **thread time per packet**: elapsed time times the number of threads, per packet. A
# strategy that scales perfectly keeps it flat as threads are added. Each solution and case is one
# block: every strategy at every thread count, interleaved and repeated.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters import display as show
from allocorpool.chapters import threads
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
plan = sweep.profile.threads
chosen = sweep.solutions_named(plan.solutions)
show.note(f"Solutions: {', '.join(s.label for s in chosen) or 'none in this selection'}; thread counts planned: "
          f"{', '.join(map(str, plan.counts))}, each run where the machine has a CPU per thread.")

# %% tags=["progress"]
table = sweep.threads(chosen)

# %% [markdown] tags=["lead"]
# ## The answer by thread count

# %% tags=["lead"]
threads.show_chapter(table, plan.counts)

# %% [markdown]
# ## Real time: one clock, several consumers
#
# Both engines also run the real-time test with several threads. One clock thread feeds N
# consumer threads in turn, so each consumer takes every Nth packet from a queue of its own. The
# clock ticks N times as often, so that every consumer sees the same interval as one would alone.
# Each consumer and the clock need a CPU of their own: N consumers need N + 1 CPUs. A strategy
# keeps up where none of its repeated probes lost a packet.

# %% tags=["progress"]
probes = sweep.thread_probes(chosen)

# %%
from allocorpool.chapters import threads_realtime

threads_realtime.show_realtime(probes, plan.counts, threads.measured_cpus(table))

# %% tags=["check"]
sweep.finish(table, probes)
