"""Chapter 01, the native queue: the clock's benchmark, C++ to C++ and C++ to Java."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from allocorpool.chapters.page import display as show


def show_results(queue: dict[str, dict[str, Any]]) -> None:
    """The failed halves, the shortest loss-free interval per pair beside the original's, and every probe."""
    failed = pd.DataFrame([{"label": f"queue benchmark {pair}", "error": half["error"],
                            "stderr_tail": half["stderr_tail"]}
                           for pair, half in queue.items() if half["status"] != "ok"])
    show.show_failures(failed, "queue benchmark")
    results = [half["result"] for half in queue.values() if len(half["result"])]
    if results:
        table = results_table(pd.concat(results, ignore_index=True))
        show.show_table(table, caption="The clock on this machine, beside the original's figures (another machine, "
                                       "2019)", precision=2)
        show.note(results_sentence(table))
    show.show_figure(probe_figure(queue))


NONE_KEPT_UP = "none kept up"
ORIGINAL = "the original's figure, ns"


def queue_text(row: dict[str, Any]) -> str:
    """A result's queue, as its capacity rule sized it (QueueBenchmark.CapacityRule)."""
    if row["capacity_rule"] == "fixed":
        return f"{int(row['queue_size']):,} numbers per array (the original's)"
    if row["capacity_rule"] == "delay_100ms":
        return "100 ms of ticks per array (as the real-time runs size it)"
    return str(row["capacity_rule"])


PAIR_LABELS = {"cpp-cpp": "C++ to C++", "cpp-java": "C++ to Java"}


def pair_label(pair: str) -> str:
    """The reader's name of a producer-consumer pair."""
    return PAIR_LABELS.get(pair, pair)


def results_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per pair and queue, the original's queue first: the shortest loss-free interval beside the
    original's figure."""
    rows = results.assign(queue=[queue_text(r) for r in results.to_dict("records")],
                          order=(results["capacity_rule"] != "fixed").astype(int))
    rows = rows.sort_values(["pair", "order"], kind="stable")
    interval = rows["good_interval_ns"].map(lambda v: NONE_KEPT_UP if pd.isna(v) else f"{int(v)}")
    return pd.DataFrame({
        "producer to consumer": rows["pair"].map(pair_label), "queue": rows["queue"], "probe, s": rows["probe_s"],
        "producer's cost per tick, ns": rows["write_ns"], "shortest loss-free interval, ns": interval,
        ORIGINAL: rows["target_ns"],
        "as fine or finer": rows["met_target"].map({True: "yes", False: "no"})}).set_index(
        ["producer to consumer", "queue"])


def results_sentence(table: pd.DataFrame) -> str:
    """One sentence per pair: its shortest loss-free interval with the original's queue and with the real-time
    runs' one, beside the original's figure (one sentence per pair keeps each short whatever was measured)."""
    sentences = []
    for pair, rows in table.groupby(level=0, sort=False):
        said = [f"{row['shortest loss-free interval, ns']} ns with {queue.split(' (')[0]}"
                if row["shortest loss-free interval, ns"] != NONE_KEPT_UP
                else f"no interval kept up with {queue.split(' (')[0]}"
                for (_, queue), row in rows.iterrows()]
        original = int(rows[ORIGINAL].iloc[0])
        sentences.append(f"From {pair_label(pair)}, the shortest loss-free interval was {' and '.join(said)} "
                         f"(the original: {original} ns).")
    return " ".join(sentences)


def probe_figure(queue: dict[str, dict[str, Any]]) -> go.Figure:
    """Every probe of both halves: share of numbers lost against the interval."""
    fig = go.Figure()
    for pair, half in queue.items():
        probes = half["probes"]
        if len(probes):
            probes = probes.sort_values("interval_ns")
            fig.add_trace(go.Scatter(x=probes["interval_ns"], y=probes["lost"] / probes["emitted"] * 100,
                                     mode="markers", name=pair_label(pair),
                                     marker={"symbol": ["circle" if ok else "x" for ok in probes["ok"]], "size": 9}))
    fig.update_layout(title="Queue probes: share of numbers lost against interval (circles kept up)", height=360)
    fig.update_xaxes(type="log", title_text="interval, ns")
    fig.update_yaxes(title_text="lost, %")
    return fig
