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
# # The native queue: a clock for the real-time test
#
# The real-time half of the study needs packets that arrive at a steady pace no matter what
# the processor is busy with, the way a network card delivers them. A native thread plays the
# card: it busy-waits on the CPU's time-stamp counter and writes one sequence number per
# interval into a queue. The processor turns each number into a packet; a gap in the numbers
# is a packet that was lost because the queue was full when it arrived.
#
# The queue is the dual-array single-producer, single-consumer design of the article's
# predecessor: two arrays side by side and one shared word that tells the consumer how much of
# the other array it may read. A cache line crosses between the cores once per batch of
# numbers rather than once per number, which is what makes the clock fine-grained. Before we
# use it as a measuring instrument, we measure the instrument: the shortest interval at which
# it loses nothing, from C++ to C++ and from C++ to Java, by bisection over short probes.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool.chapters.page import display as show
from allocorpool.chapters import native_queue
from allocorpool.run.experiments import stored as measure_stored
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None)
show.note(f"Profile **{sweep.profile.name}**: {sweep.profile.description}.")

# %% tags=["progress"]
queue = measure_stored.queue_bench(sweep.executor)

# %% tags=["lead"]
native_queue.show_results(queue)

# %% [markdown]
# Every probe of the bisection: a probe keeps up when the consumer saw every number the
# producer wrote. The shortest interval that kept up bounds what the real-time test can ask
# for on this machine.

# %% tags=["check"]
sweep.finish(*(half["result"] for half in queue.values()))
