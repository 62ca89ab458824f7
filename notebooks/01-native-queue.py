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
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
import pandas as pd
import plotly.graph_objects as go

from allocorpool import display as show
from allocorpool.study_runs import Study

study = Study(profile, data_dir or None)
show.note(f"Profile **{study.profile.name}**: {study.profile.description}. Results are kept in "
          f"`{study.store.root}`.")

# %% tags=["progress"]
queue = study.queue_bench()

# %%
failed = pd.DataFrame([{"label": f"queue benchmark {pair}", "error": half["error"], "stderr_tail": half["stderr_tail"]}
                       for pair, half in queue.items() if half["status"] != "ok"])
show.show_failures(failed, "queue benchmark")
results = pd.concat([half["result"] for half in queue.values() if len(half["result"])], ignore_index=True)
if len(results):
    show.show_table(results.rename(columns={
        "pair": "producer to consumer", "write_ns": "producer's cost per tick, ns",
        "good_interval_ns": "shortest loss-free interval, ns", "target_ns": "the original's figure, ns",
        "met_target": "as fine or finer"}).set_index("producer to consumer").fillna("none kept up"),
        caption="The clock on this machine, beside the original's figures (another machine, 2019)", precision=2)

# %% [markdown]
# Every probe of the bisection: a probe keeps up when the consumer saw every number the
# producer wrote. The shortest interval that kept up bounds what the real-time test can ask
# for on this machine.

# %%
fig = go.Figure()
for pair, half in queue.items():
    probes = half["probes"]
    if len(probes):
        probes = probes.sort_values("interval_ns")
        fig.add_trace(go.Scatter(x=probes["interval_ns"], y=probes["lost"] / probes["emitted"] * 100,
                                 mode="markers", name=pair,
                                 marker={"symbol": ["circle" if ok else "x" for ok in probes["ok"]], "size": 9}))
fig.update_layout(title="Queue probes: share of numbers lost against interval (circles kept up)", height=360)
fig.update_xaxes(type="log", title_text="interval, ns")
fig.update_yaxes(title_text="lost, %")
show.show_figure(fig)
