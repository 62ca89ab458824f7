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
# # Allocate or pool, for your workload
#
# Type your message rate and the number of messages your processor keeps live (the article's
# internal FIFO and store together) in the parameters below, and run the notebook. It answers from
# every real-time measurement the profile's store holds: the searches of the article's chapters (the
# smallest loss-free interval of each case, and the longest interval each search's probes lost at),
# the continuum's probes (live sets between and beyond the cases) and the probes across the JDKs. It
# runs nothing: where no measurement decides a pair, it lists the probe that would.
#
# Two premises let a measurement decide a question it is not exactly on: a larger live set is
# never easier, and packets that come less often are never harder. So a pair *holds* when it was
# loss-free with at least your live set at your rate or faster. It *fails* when it lost with at
# most your live set at your rate or slower. Every stored run of a cell counts, long runs and
# repeats included, and a loss outweighs any loss-free run: a loss is a fact, a loss-free run a
# sample. Where a pair's own runs contradict the premises (a smaller live set lost at a clearly
# slower rate), only its runs at your live set decide. The margin of a pair that holds is how much faster the packets came
# in the measurement that proves it. Measurements are at the profile's scale: under the quick profile, the
# live sets are a tenth of the article's and the input queue is shorter than 100 ms, as the pauses
# are (the first screen and chapter 12 say by how much).
#
# The budget is "no loss", or no loss and a limit on how late the packets were made, metered from
# when each was due: "p99.9 <= 5 ms" (p50, p99, p99.9 or max). A collector that never loses a packet
# may still hold them for tens of milliseconds behind a pause. Under a latency budget only probes
# that metered latency count, and a loss-free probe with at most your live set, at your rate or
# slower, that was later than the limit makes the pair fail.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>
rate_per_s = 1_000_000  # messages per second (the article's 1,000 ns interval)
live_packets = 0  # messages held live; 0: the live set of the profile's largest case (the article's case C)
budget = "no loss"  # or a metered-latency limit as well: "p99.9 <= 5 ms" (p50, p99, p99.9, max)

# %%
from allocorpool import study
from allocorpool.analysis import decision as chart
from allocorpool.chapters import decision
from allocorpool.chapters.page import display as show
from allocorpool.run.sweep import Sweep

sweep = Sweep(profile, data_dir or None, replay=True)  # reads the store, runs nothing
scale = sweep.profile.scale
live_packets = live_packets or max(study.live_packets(case, scale) for case in sweep.profile.cases)
asked = decision.check_question(rate_per_s, live_packets, budget)

# %% tags=["progress"]
points = decision.points(sweep)
show.note(f"Profile {sweep.profile.name} (scale {scale:g}): {len(points)} real-time points from "
          f"{points['key'].nunique()} cells.")

# %% [markdown] tags=["lead"]
# ## The answer

# %% tags=["lead"]
answer = chart.decide(points, rate_per_s, live_packets, asked)
decision.show_answer(answer, rate_per_s, live_packets, asked)

# %% [markdown]
# ## The chart
#
# Each line is the highest rate a pair was measured loss-free at, against the live set; your
# question is the star. A pair holds for every point below and left of its line.

# %%
show.show_figure(decision.chart(points, rate_per_s, live_packets))

# %% [markdown]
# ## Where no measurement decides

# %%
solutions = {s.name: s for s in [*study.jdk_solutions(sweep.profile.jdks), *sweep.solutions()]}
decision.show_cells_to_run(decision.cells_to_run(answer, solutions, rate_per_s, live_packets, sweep.profile))

# %% [markdown]
# ## The article's real-time conclusions as regions of the chart
#
# The article's real-time verdicts were taken at 1,000 ns in its three cases. On this chart they are
# the boundaries below: per strategy, the largest live set a Java and a C++ solution kept up with at
# 1,000,000 packets per second.

# %%
for line in decision.regions(points, 1_000_000):
    show.note(line)

# %% tags=["check"]
sweep.finish(answer)
