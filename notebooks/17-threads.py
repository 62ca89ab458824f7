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
# This chapter runs the batch test with several processing threads. Each thread makes its own
# packets and keeps its own FIFO and store. The comparison is **weak scaling**: every thread keeps a
# live set of the case's size, so a thread's work stays the same as threads are added and the live
# set, and the heap against it, grow with them. **Strong scaling**, measured too and shown after,
# splits the case's live set between the threads. Seven strategies compete, five in each engine:
#
# | Strategy | Where a thread's buffers come from | Engines |
# |---|---|---|
# | Allocation | a new buffer per packet: in Java from the thread's TLAB, in C++ from malloc's cache for the thread | both |
# | Pool per thread | the thread's own pool, as the article's pooling | both |
# | Shared pool | one pool for all threads: a lock-free stack, last in, first out | both |
# | Synchronized pmr pool | one `std::pmr::synchronized_pool_resource` for all threads | C++ |
# | Netty, heap | Netty's pooled allocator, heap buffers | Java |
# | Netty, direct | Netty's pooled allocator, buffers off the heap | Java |
# | Netty Recycler | packet objects recycled by Netty's `Recycler`, each with its own array | Java |
#
# Netty strategies run on Netty's own thread class (`FastThreadLocalThread`), as an event loop does.
# Times are **thread time per packet**: elapsed time times the number of threads, per packet. A
# strategy that scales perfectly keeps it flat as threads are added. Beside it, each run records
# its threads' **CPU time** (per thread) and the whole process's: a thread that waits, for a CPU or
# for another thread, adds thread time but no CPU time. Each solution and case is one block: every
# strategy at every thread count, interleaved and repeated.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters.page import display as show
from allocorpool.chapters import threads
from allocorpool.run.experiments import batch as measure_batch, handoff as measure_handoff, threads as measure_threads
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
plan = sweep.profile.threads
chosen = sweep.solutions_named(plan.solutions)
show.note(f"Solutions: {', '.join(s.label for s in chosen) or 'none in this selection'}; thread counts planned: "
          f"{', '.join(map(str, plan.counts))}, each run where the machine has a CPU per thread.")

# %% tags=["progress"]
table = measure_threads.threads(sweep.executor, chosen)

# %% [markdown] tags=["lead"]
# ## The answer by thread count (weak scaling)

# %% tags=["lead"]
threads.show_chapter(table, plan.counts)

# %% [markdown]
# ## CPU time and Netty's allocator
#
# The same runs in CPU time: each thread's own, from its CPU clock (`ThreadMXBean` in Java,
# `CLOCK_THREAD_CPUTIME_ID` in C++), summed over the run's threads, per packet. Beside it, the share
# of the threads' time the collector **held** them, from the GC log of the run that stands for the
# cell: stopped with every thread, or stalled waiting for memory (ZGC's allocation stalls). Where it
# is large, the time measures the collector's work, which depends on the heap's size against the
# live set, as much as the strategy's. Below, what Netty's
# pooled allocator says of itself after each run (`PooledByteBufAllocatorMetric`): an arena counts
# only the buffers no thread cache served, so the share the caches served is one less the arena's
# allocations over the buffers the strategy allocated.

# %%
from allocorpool.chapters import threads_costs

threads_costs.show_costs(table)

# %% [markdown]
# ## One thread here and in the batch chapters
#
# With one thread, this chapter runs what the batch chapters run. Its figures need not match theirs:
# each figure stands for the newest machine that measured it, and the machines differ in speed.
# Where one machine ran both, their ratio shows how far the two engines agree.

# %%
from allocorpool.analysis import blocks as block_figures

threads_costs.show_against_batch(table, measure_batch.batch(sweep.executor, chosen),
                                 block_figures.machine_names(sweep.store.table("blocks"), sweep.store.index),
                                 sweep.profile)

# %% [markdown]
# ## Strong scaling: the case split between the threads
#
# Here the case's live set is split between the threads, as this chapter measured it before weak
# scaling became its comparison: each thread holds a share of the FIFO and the store, and the heap
# against the live set stays the case's.

# %%
threads_costs.show_strong(table)

# %% [markdown]
# ## Hand-off: allocated on one thread, released on another
#
# A message processor often receives on one thread and processes on others. In this test one
# producer thread acquires and fills every packet and hands it to N workers in turn, each with its
# own queue, FIFO and store (weak scaling); a worker releases the packets it drops. Every buffer is
# released on another thread than the one that took it: a pool per thread cannot do that, Netty's
# allocator and Recycler are built for it. The Java engine runs it, in batch (the real-time
# several-consumer test below feeds each consumer from the clock, not from a producer of packets).
# Time is wall time per packet: the producer makes every one. The producer and each worker take a
# CPU of their own where the machine has N + 1 CPUs for N workers. With N CPUs the producer shares
# them with the workers, and the tables mark that count.

# %% tags=["progress"]
from allocorpool.chapters import threads_handoff

handoff_table = measure_handoff.handoffs(sweep.executor, chosen)

# %%
threads_handoff.show_handoff(handoff_table)

# %% [markdown]
# ## Real time: one clock, several consumers
#
# Both engines also run the real-time test with several threads. One clock thread feeds N
# consumer threads in turn, so each consumer takes every Nth packet from a queue of its own. The
# clock ticks N times as often, so that every consumer sees the same interval as one would alone.
# Each consumer and the clock need a CPU of their own: N consumers need N + 1 CPUs. A strategy
# keeps up where none of its repeated probes lost a packet.

# %% tags=["progress"]
probes = measure_threads.thread_probes(sweep.executor, chosen)

# %%
from allocorpool.chapters import threads_realtime

threads_realtime.show_realtime(probes, plan.counts, threads.measured_cpus(table))

# %% [markdown]
# ## What a larger machine adds
#
# A machine of two CPUs, as this study's, stops this chapter at two threads, two hand-off workers
# sharing the CPUs with their producer, and one real-time consumer. There a Java collector's threads
# compete for the CPUs with the threads they serve. A machine with more CPUs adds what two cannot
# hold: 4 and 8 threads, hand-off to 2 workers or more with a CPU for the producer, one clock feeding
# several consumers, and a collector whose threads have CPUs of their own. To measure them there,
# start a Dask worker on that machine, then run
# `make record-threads PROFILE=full SCHEDULER=tcp://HOST:8786` and `make record-handoff` with the
# same settings from the machine that keeps the results. Each block runs whole on the larger
# machine, and the tables above show every count that some machine measured.

# %% tags=["check"]
# the hand-off table is checked where its cells ran (a replay of a store without them shows them not measured)
sweep.finish(table, probes, *([handoff_table] if (handoff_table["status"] != "missing").any() else []))
