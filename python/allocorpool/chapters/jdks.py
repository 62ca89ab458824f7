"""Chapter 15, the collectors across the JDKs: each JDK's collectors on the decisive case, batch time
per packet and real-time loss at the probe's interval, side by side by JDK. Every sentence stating a
result is computed here from the chapter's table (Sweep.across_jdks)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool.chapters import display as show
from allocorpool.chapters.figures import LOG_TICKS
from allocorpool.study import COLLECTOR_LABELS

SAME_WITHIN = 0.05  # a batch time within 5 % from one JDK to another is not called a change


def _with_names(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(collector_label=table["collector"].map(COLLECTOR_LABELS),
                        panel=table["strategy_label"] + " " + table["case"])


def realtime_text(row: pd.Series) -> str:
    """A probe's outcome in a table cell: keeps up, the share it lost, or why it has none."""
    if row["probe_status"] != "ok":
        return str(row["probe_status"])
    return "keeps up" if row["keeps_up"] else f"loses {row['loss_pct']:.2g} %"


def matrix(table: pd.DataFrame, values: pd.Series, caption_value: str) -> pd.DataFrame:
    """A value per (strategy, case, collector) row and JDK column; collectors a JDK lacks stay empty."""
    named = _with_names(table).assign(value=values)
    wide = named.pivot_table(index=["panel", "collector_label"], columns="jdk", values="value", aggfunc="first",
                             sort=False)
    wide.columns = [f"JDK {jdk}" for jdk in wide.columns]
    wide.index.names = ["strategy, case", caption_value]
    return wide


def figure(table: pd.DataFrame) -> go.Figure:
    """A panel per (strategy, case): batch ns per packet against the JDK, a line per collector; a filled
    marker keeps up in real time at the probe's interval, a cross loses packets."""
    named = _with_names(table).dropna(subset=["ns_per_packet"])
    panels = list(dict.fromkeys(named["panel"]))
    fig = make_subplots(rows=1, cols=max(1, len(panels)), shared_yaxes=True, subplot_titles=panels or [""])
    interval = int(table["interval_ns"].iloc[0]) if len(table) else 0
    for col, panel in enumerate(panels, 1):
        part = named[named["panel"] == panel]
        for label, rows in part.groupby("collector_label", sort=False):
            rows = rows.sort_values("jdk")
            symbols = ["circle" if keeps else "x" for keeps in rows["keeps_up"].fillna(False)]
            fig.add_trace(go.Scatter(x=[f"JDK {jdk}" for jdk in rows["jdk"]], y=rows["ns_per_packet"],
                                     mode="lines+markers", name=label, legendgroup=label, showlegend=col == 1,
                                     marker={"symbol": symbols, "size": 9},
                                     customdata=[realtime_text(row) for _, row in rows.iterrows()],
                                     hovertemplate=f"{label}, %{{x}}: %{{y:.0f}} ns per packet; at {interval} ns "
                                                   "%{customdata}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(type="category", categoryorder="array",
                         categoryarray=[f"JDK {jdk}" for jdk in sorted(table["jdk"].unique())], row=1, col=col)
    fig.update_yaxes(type="log", tickvals=LOG_TICKS)  # every panel: a shared axis must be log in each
    fig.update_yaxes(title_text="batch ns per packet", row=1, col=1)
    fig.update_layout(title=f"Batch time per packet by JDK (marker: o keeps up at {interval} ns in real time, "
                            "x loses packets)", height=440)
    return fig


def findings(table: pd.DataFrame) -> list[str]:
    """Per strategy and case: how many collectors of each JDK keep up in real time, the fastest that does,
    and how each collector's batch time changed from the first JDK that has it to the last."""
    lines = []
    named = _with_names(table)
    for panel, part in named.groupby("panel", sort=False):
        interval = int(part["interval_ns"].iloc[0])
        per_jdk = []
        for jdk, rows in part.groupby("jdk"):
            probed = rows[rows["probe_status"] == "ok"]
            keeping = probed[probed["keeps_up"].astype(bool)]
            fastest = keeping.dropna(subset=["ns_per_packet"]).sort_values("ns_per_packet").head(1)
            best = (f" (fastest in batch of those: {fastest['collector_label'].iloc[0]}, "
                    f"{fastest['ns_per_packet'].iloc[0]:.0f} ns)" if len(fastest) else "")
            per_jdk.append(f"JDK {jdk}: {len(keeping)} of {len(probed)}{best}")
        lines.append(f"**{panel}** keeps up at {interval} ns with " + "; ".join(per_jdk) + ".")
        changes = []
        for label, rows in part.dropna(subset=["ns_per_packet"]).groupby("collector_label", sort=False):
            if rows["jdk"].nunique() < 2:
                continue
            first, last = rows.loc[rows["jdk"].idxmin()], rows.loc[rows["jdk"].idxmax()]
            ratio = first["ns_per_packet"] / last["ns_per_packet"]
            if abs(ratio - 1) < SAME_WITHIN:
                trend = "about the same"
            else:
                trend = f"{ratio:.2g}× faster" if ratio > 1 else f"{1 / ratio:.2g}× slower"
            changes.append(f"{label} {first['ns_per_packet']:.0f} → {last['ns_per_packet']:.0f} ns "
                           f"(JDK {first['jdk']} → {last['jdk']}, {trend})")
        if changes:
            lines.append(f"In batch, {panel}: " + "; ".join(changes) + ".")
    return lines


def show_chapter(table: pd.DataFrame) -> None:
    if table.empty:
        show.note("No JDK and collector of this profile's plan is in its selection of solutions.")
        return
    show.show_figure(figure(table))
    show.show_table(matrix(table, table["ns_per_packet"], "collector"), "Batch: wall ns per packet", precision=0)
    show.show_table(matrix(table, table["cpu_ns_per_packet"], "collector"),
                    "Batch: CPU ns per packet (the whole process: a concurrent collector's threads too)", precision=0)
    show.show_table(matrix(table, table["gc_pause_max_ms"], "collector"), "Batch: the longest GC pause, ms",
                    precision=1)
    interval = int(table["interval_ns"].iloc[0])
    show.show_table(matrix(table, table.apply(realtime_text, axis=1), "collector"),
                    f"Real time at {interval} ns: the probe's outcome")
    late = pd.to_numeric(table["latency_p999_ns"], errors="coerce").where(table["keeps_up"].fillna(False).astype(bool))
    if late.notna().any():
        show.show_table(matrix(table, late / 1e6, "collector"),
                        f"Real time at {interval} ns, the probes that kept up: p99.9 of how late packets were made, "
                        "ms after due (empty: lost, or measured before the engines metered latency)", precision=3)
    show.show_unfinished(table, ["batch_status", "probe_status"], "cell across the JDKs")
    for line in findings(table):
        show.note(line)
