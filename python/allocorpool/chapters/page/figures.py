"""Plotly figures of the study: ns/packet by strategy and case, loss against interval, pause
timelines with the lost packets over them, and pause histograms.

Builders take the DataFrames of study_runs (and reference's figures, drawn as "2019 article"
markers beside ours) and return a go.Figure; display.show_figure shows it.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from allocorpool.analysis import timeline
from allocorpool.data.records import MISSING
from allocorpool.data.reference import REFERENCE
from allocorpool.run.runner import CellResult
from allocorpool.study import CASES, STRATEGY_LABELS

STRATEGY_COLOURS = {"Dummy": "#9e9e9e", "Allocation": "#d62728", "Mix": "#ff7f0e", "Pooling": "#1f77b4"}
COLUMNS_PER_ROW = 4
LOG_TICKS = [m * 10 ** k for k in range(6) for m in (1, 2, 5)]


def line_colours(names) -> dict[str, str]:
    """One colour per legend entry, the same in every panel (plotly would colour each panel's traces anew, so a
    legend drawn from the first panel would not name the others' lines)."""
    palette = qualitative.Plotly
    return {name: palette[i % len(palette)] for i, name in enumerate(dict.fromkeys(names))}


def legend_matches_panels(fig: go.Figure) -> bool:
    """Whether every trace of a legend group has the colour of the group's entry in the legend."""
    colours: dict[str, set] = {}
    for trace in fig.data:
        group = trace.legendgroup or trace.name
        colour = (getattr(trace, "line", None) and trace.line.color) or (trace.marker and trace.marker.color)
        colours.setdefault(group, set()).add(colour if isinstance(colour, str) else None)
    return all(len(found) == 1 and None not in found for found in colours.values())


def _grid(titles: list[str]) -> tuple[go.Figure, list[tuple[int, int]]]:
    columns = min(COLUMNS_PER_ROW, len(titles)) or 1
    rows = max(1, math.ceil(len(titles) / columns))
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=titles, shared_yaxes=True,
                        horizontal_spacing=0.03, vertical_spacing=0.24 / rows if rows > 1 else 0.1)
    return fig, [(i // columns + 1, i % columns + 1) for i in range(len(titles))]


def _bottom_row(places: list[tuple[int, int]]) -> int:
    """The last row of a grid: the only one whose x axes get a title."""
    return max((row for row, _ in places), default=1)


def ns_per_packet(batch: pd.DataFrame, reference: pd.Series | None = None, title: str = "Batch: time per packet"
                  ) -> go.Figure:
    """Grouped bars per case and strategy, one panel per solution; the article's figures as markers."""
    labels = list(dict.fromkeys(batch["label"]))
    fig, places = _grid(labels)
    reference_in_legend = False
    for (row, col), label in zip(places, labels):
        part = batch[(batch["label"] == label) & (batch["status"] == "ok")]
        first = (row, col) == places[0]
        for strategy, colour in STRATEGY_COLOURS.items():
            rows = part[part["strategy_label"] == strategy]
            if rows.empty:
                continue
            fig.add_trace(go.Bar(x=rows["case"], y=rows["ns_per_packet"], name=strategy, marker_color=colour,
                                 offsetgroup=strategy, legendgroup=strategy, showlegend=first,
                                 hovertemplate=f"{label}<br>{strategy} %{{x}}: %{{y:.0f}} ns<extra></extra>"),
                          row=row, col=col)
            if reference is not None:
                theirs = [(case, reference.get((r, strategy, case))) for r, case in zip(rows["reference_name"], rows["case"]) if r]
                theirs = [(c, v) for c, v in theirs if v is not None]
                if theirs:
                    fig.add_trace(go.Scatter(
                        x=[c for c, _ in theirs], y=[v for _, v in theirs], mode="markers", offsetgroup=strategy,
                        name=REFERENCE, legendgroup=REFERENCE, showlegend=not reference_in_legend,
                        marker={"symbol": "line-ew-open", "size": 14, "color": "black", "line": {"width": 2}},
                        hovertemplate=f"{REFERENCE}<br>{strategy} %{{x}}: %{{y:.0f}} ns<extra></extra>"),
                        row=row, col=col)
                    reference_in_legend = True
    fig.update_layout(title=title, barmode="group", scattermode="group", height=340 * len({r for r, _ in places}),
                      legend={"orientation": "h", "y": -0.25})
    fig.update_yaxes(type="log", tickvals=LOG_TICKS)
    fig.update_yaxes(title_text="ns / packet", col=1)
    fig.update_xaxes(categoryorder="array", categoryarray=list(CASES))
    return fig


def loss_vs_interval(probes: pd.DataFrame, title: str = "Real-time probes: loss against interval") -> go.Figure:
    """Every probe of the searches: loss after warm-up against the source interval, per solution."""
    labels = list(dict.fromkeys(probes["label"])) if len(probes) else []
    fig, places = _grid(labels)
    for (row, col), label in zip(places, labels):
        part = probes[probes["label"] == label]
        for (strategy, case), rows in part.groupby(["strategy", "case"], sort=False):
            name = f"{STRATEGY_LABELS[strategy]} {case}"
            rows = rows[rows["status"] != MISSING].sort_values("interval_ns")  # a replay's unstored probe: no point
            failed = rows["status"] != "ok"
            fig.add_trace(go.Scatter(
                x=rows["interval_ns"], y=rows["lost_pct"].fillna(100).where(~failed, 100), mode="lines+markers",
                name=name, legendgroup=name, showlegend=(row, col) == places[0],
                line={"color": STRATEGY_COLOURS[STRATEGY_LABELS[strategy]],
                      "dash": {"A": "solid", "B": "dash", "C": "dot"}[case]},
                marker={"symbol": ["x" if f else ("circle" if ok else "circle-open")
                                   for f, ok in zip(failed, rows["ok"])]},
                hovertemplate=f"{label}<br>{name}: %{{x}} ns, lost %{{y:.3g}}%<extra></extra>"), row=row, col=col)
    fig.update_layout(title=title, height=340 * len({r for r, _ in places}) if places else 340,
                      legend={"orientation": "h", "y": -0.25})
    fig.update_xaxes(type="log", tickvals=LOG_TICKS)
    fig.update_xaxes(title_text="interval, ns", row=_bottom_row(places))
    fig.update_yaxes(title_text="lost after warm-up, %", col=1)
    return fig


def pause_timeline(result: CellResult, title: str) -> tuple[go.Figure, pd.DataFrame]:
    """A real-time run: ticks lost per period (bars) and GC stops and stalls (markers: when, how long;
    timeline.run_pauses), the input queue's capacity as a line, and under the pauses, on the same ms axis,
    the metered latency of each period (its latest packet and its p99) where the run metered it; with
    timeline.run_timeline's table of which stop cost which packets."""
    run = result.run
    periodic = run.periodic
    events = result.gc_events
    pauses, problem = timeline.run_pauses(run, events)
    if problem:
        title = f"{title}<br><sub>GC log {problem}: pauses from the engine's records</sub>"
    capacity = ((run.header or {}).get("params") or {}).get("max_capturing_delay_ms")
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Bar(x=periodic["t_s"] - periodic["period_s"] / 2, y=periodic["lost"], width=periodic["period_s"],
                         name="ticks lost in the period", marker_color="#d62728", opacity=0.6), secondary_y=False)
    fig.add_trace(go.Scatter(x=pauses["start_s"], y=pauses["duration_ms"], mode="markers",
                             name="GC stop or stall (GC log)" if events is not None and not problem else "GC pause (records)",
                             text=pauses["name"], marker={"color": "#1f77b4", "size": 8},
                             hovertemplate="%{text}<br>at %{x:.2f} s: %{y:.1f} ms<extra></extra>"), secondary_y=True)
    late_ms = []
    if "latency_max_ns" in periodic and periodic["latency_max_ns"].notna().any():
        metered = periodic.dropna(subset=["latency_max_ns"])
        late_ms = list(metered["latency_max_ns"].astype(float) / 1e6)
        for field, name, dash in (("latency_max_ns", "latest packet of the period, ms after due", "solid"),
                                  ("latency_p99_ns", "p99 of the period, ms after due", "dot")):
            fig.add_trace(go.Scatter(x=metered["t_s"], y=metered[field].astype(float) / 1e6, mode="lines",
                                     line={"shape": "vh", "color": "#2ca02c", "dash": dash}, name=name,
                                     hovertemplate="period ending %{x:.1f} s: %{y:.3g} ms<extra></extra>"),
                          secondary_y=True)
    if capacity:
        fig.add_hline(y=capacity, line_dash="dot", line_color="#1f77b4", secondary_y=True,
                      annotation_text="input queue capacity", annotation_position="top right")
    longest = max([float(capacity or 0), *pauses["duration_ms"].astype(float), *late_ms])
    # the right axis ticks at round numbers of its own, not at the left axis's grid lines
    fig.update_yaxes(range=[0, longest * 1.1 or 1], tickmode="auto", showgrid=False, secondary_y=True)
    fig.update_yaxes(rangemode="tozero", secondary_y=False)
    warmup = float((run.header or {}).get("warmup_s") or 0)
    if warmup:
        fig.add_vrect(x0=0, x1=warmup, fillcolor="#cccccc", opacity=0.3, line_width=0,
                      annotation_text="warm-up", annotation_position="top left")
    fig.update_layout(title=title, height=380, legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(title_text="seconds into the run")
    fig.update_yaxes(title_text="ticks lost", secondary_y=False)
    fig.update_yaxes(title_text="pause / lateness, ms", secondary_y=True)
    table = timeline.run_timeline(run, events) if (run.header or {}).get("interval_ns") else pd.DataFrame()
    return fig, table


def attribution_table(table: pd.DataFrame, pauses_per_period: int = 3) -> pd.DataFrame:
    """timeline.run_timeline's rows for a reader: which period lost what, and the longest pauses over it."""
    longest = (table.sort_values(["t_s", "pause_ms"], ascending=[True, False], na_position="last")
               .groupby("t_s", sort=False).head(pauses_per_period))
    longest = longest.assign(est_excess_ticks=longest["est_excess_ticks"].round())  # an estimate, in whole ticks
    readable = longest.rename(columns={
        "t_s": "period ends, s", "lost": "ticks lost", "pause_start_s": "pause starts, s", "pause_ms": "pause, ms",
        "pause_name": "pause", "est_excess_ticks": "ticks the queue could not hold"})
    return readable[["period ends, s", "ticks lost", "pause starts, s", "pause, ms", "pause",
                     "ticks the queue could not hold"]].set_index(["period ends, s", "ticks lost"])


def pause_histogram(pauses: pd.DataFrame, title: str = "GC pauses in the batch runs") -> go.Figure:
    """How long the stop-the-world pauses were, per solution, coloured by strategy."""
    labels = list(dict.fromkeys(pauses["label"])) if len(pauses) else []
    fig, places = _grid(labels)
    for (row, col), label in zip(places, labels):
        part = pauses[pauses["label"] == label]
        for strategy, colour in STRATEGY_COLOURS.items():
            rows = part[part["strategy_label"] == strategy]
            if rows.empty:
                continue
            fig.add_trace(go.Histogram(x=rows["duration_ms"], name=strategy, marker_color=colour, opacity=0.7,
                                       legendgroup=strategy, showlegend=(row, col) == places[0], nbinsx=30),
                          row=row, col=col)
    fig.update_layout(title=title, barmode="overlay", height=340 * len({r for r, _ in places}) if places else 340,
                      legend={"orientation": "h", "y": -0.25})
    fig.update_xaxes(title_text="pause, ms", row=_bottom_row(places))
    fig.update_yaxes(type="log", tickvals=LOG_TICKS)
    fig.update_yaxes(title_text="pauses", col=1)
    return fig
