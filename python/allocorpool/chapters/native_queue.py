"""Chapter 01, the native queue: the clock's benchmark, C++ to C++ and C++ to Java."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from allocorpool.chapters import display as show


def show_results(queue: dict[str, dict[str, Any]]) -> None:
    """The failed halves, the shortest loss-free interval per pair beside the original's, and every probe."""
    failed = pd.DataFrame([{"label": f"queue benchmark {pair}", "error": half["error"],
                            "stderr_tail": half["stderr_tail"]}
                           for pair, half in queue.items() if half["status"] != "ok"])
    show.show_failures(failed, "queue benchmark")
    results = [half["result"] for half in queue.values() if len(half["result"])]
    if results:
        table = pd.concat(results, ignore_index=True).rename(columns={
            "pair": "producer to consumer", "write_ns": "producer's cost per tick, ns",
            "good_interval_ns": "shortest loss-free interval, ns", "target_ns": "the original's figure, ns",
            "met_target": "as fine or finer"})
        show.show_table(table.set_index("producer to consumer").fillna("none kept up"),
                        caption="The clock on this machine, beside the original's figures (another machine, 2019)",
                        precision=2)
    show.show_figure(probe_figure(queue))


def probe_figure(queue: dict[str, dict[str, Any]]) -> go.Figure:
    """Every probe of both halves: share of numbers lost against the interval."""
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
    return fig
