"""Chapter 15, the collectors across the JDKs: each JDK's collectors on the decisive case, batch time
per packet (a block's median and interval) and real-time loss at the probe's interval, side by side by
JDK. Every sentence stating a result is computed here from the chapter's table
(run.experiments.jdks.across_jdks), and every comparison is a ratio of medians with its interval
(analysis.blocks.compare)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool import effects
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis.stored_probes import losses_above
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page import tables
from allocorpool.chapters.page.figures import LOG_TICKS, line_colours
from allocorpool.study import COLLECTOR_LABELS

# How a JDK change reads: the later JDK's time over the earlier one's, decided against parity by the margin
CHANGE_WORDS = effects.FASTER_WORDS


CONTRADICTED_MARK = "†"
CONTRADICTED_WORDS = ("a stored run of the same JVM, collector and case (another chapter's search or probe) lost at this "
                      "interval or a longer one, so this probe's keeping up does not stand and is not counted.")


def _with_names(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(collector_label=table["collector"].map(COLLECTOR_LABELS),
                        panel=table["strategy_label"] + " " + table["case"])


def standing(table: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The table with what every stored run of the same configuration says at or above each probe's interval
    (lost_above_ns, analysis.stored_probes.losses_above): a probe that kept up where another chapter's run of the
    same JVM, collector and case lost at that interval or a longer one does not stand, and keeps_up is False."""
    as_searches = table.assign(outcome=table["keeps_up"].map(lambda k: "found" if _true(k) else "lost"))
    marked = losses_above(as_searches, runs).drop(columns="outcome")
    contradicted = marked["lost_above_ns"].notna()
    return marked.assign(keeps_up=marked["keeps_up"].where(~contradicted, False), contradicted=contradicted)


def _true(value: Any) -> bool:
    return value is not None and not pd.isna(value) and bool(value)


def realtime_text(row: pd.Series) -> str:
    """A probe's outcome in a table cell: keeps up, the share it lost, or why it has none; a probe that kept up
    where a stored run of the same configuration lost is marked."""
    if row["probe_status"] != "ok":
        return str(row["probe_status"])
    if _true(row.get("contradicted")):
        return f"kept up{CONTRADICTED_MARK}"
    return "keeps up" if row["keeps_up"] else f"loses {row['loss_pct']:.2g} %"


def matrix(table: pd.DataFrame, values: pd.Series, caption_value: str) -> pd.DataFrame:
    """A value per (strategy, case, collector) row and JDK column; collectors a JDK lacks stay empty."""
    named = _with_names(table).assign(value=values)
    wide = named.pivot_table(index=["panel", "collector_label"], columns="jdk", values="value", aggfunc="first",
                             sort=False)
    wide.columns = [f"JDK {jdk}" for jdk in wide.columns]
    wide.index.names = ["strategy, case", caption_value]
    return wide


def _error_bars(rows: pd.DataFrame) -> dict[str, Any] | None:
    """The 95 % intervals of a line's medians as error bars (none where no point has one)."""
    if "ns_low" not in rows or pd.to_numeric(rows["ns_low"], errors="coerce").isna().all():
        return None
    median = pd.to_numeric(rows["ns_per_packet"], errors="coerce")
    low = pd.to_numeric(rows["ns_low"], errors="coerce").fillna(median)
    high = pd.to_numeric(rows["ns_high"], errors="coerce").fillna(median)
    return {"type": "data", "symmetric": False, "array": list(high - median), "arrayminus": list(median - low)}


def figure(table: pd.DataFrame) -> go.Figure:
    """A panel per (strategy, case): batch ns per packet (median, its interval as error bars) against the JDK,
    a line per collector; a filled marker keeps up in real time at the probe's interval, a cross loses packets."""
    named = _with_names(table).dropna(subset=["ns_per_packet"])
    panels = list(dict.fromkeys(named["panel"]))
    fig = make_subplots(rows=1, cols=max(1, len(panels)), shared_yaxes=True, subplot_titles=panels or [""])
    interval = int(table["interval_ns"].iloc[0]) if len(table) else 0
    colours = line_colours(named["collector_label"])
    for col, panel in enumerate(panels, 1):
        part = named[named["panel"] == panel]
        for label, rows in part.groupby("collector_label", sort=False):
            rows = rows.sort_values("jdk")
            symbols = ["circle" if keeps else "x" for keeps in rows["keeps_up"].fillna(False)]
            spread = _error_bars(rows)
            fig.add_trace(go.Scatter(x=[f"JDK {jdk}" for jdk in rows["jdk"]], y=rows["ns_per_packet"],
                                     error_y=spread, mode="lines+markers", name=label, legendgroup=label, showlegend=col == 1,
                                     marker={"symbol": symbols, "size": 9, "color": colours[label]},
                                     line={"color": colours[label]},
                                     customdata=[realtime_text(row) for _, row in rows.iterrows()],
                                     hovertemplate=f"{label}, %{{x}}: %{{y:.0f}} ns per packet; at {interval:,.0f} ns "
                                                   "%{customdata}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(type="category", categoryorder="array",
                         categoryarray=[f"JDK {jdk}" for jdk in sorted(table["jdk"].unique())], row=1, col=col)
    fig.update_yaxes(type="log", tickvals=LOG_TICKS)  # every panel: a shared axis must be log in each
    fig.update_yaxes(title_text="batch ns per packet", row=1, col=1)
    fig.update_layout(title=f"Batch time per packet by JDK (marker: o keeps up at {interval:,.0f} ns in real time, "
                            "x loses packets)", height=440)
    return fig


def batch_text(row: pd.Series) -> str:
    """A batch cell in a table: the block's median with its 95 % interval, the single run's figure, or why it
    has none (chapters.page.tables.batch_text, on this chapter's status column)."""
    return tables.batch_text({**_row(row), "status": row["batch_status"]})


def _row(series: pd.Series) -> dict[str, Any]:
    return {key: (None if not isinstance(v, (list, dict)) and pd.isna(v) else v) for key, v in series.items()}


def _change(first: pd.Series, last: pd.Series) -> block_figures.Comparison:
    """A collector's batch time on its last JDK over its first (below 1: faster on the later JDK)."""
    return block_figures.compare(_row(last), _row(first))


def _changes(table: pd.DataFrame) -> list[tuple[str, str, pd.Series, pd.Series]]:
    """(panel, collector label, first JDK's row, last JDK's row) of each collector measured on two JDKs or more."""
    out = []
    for panel, part in _with_names(table).groupby("panel", sort=False):
        for label, rows in part.dropna(subset=["ns_per_packet"]).groupby("collector_label", sort=False):
            if rows["jdk"].nunique() >= 2:
                out.append((panel, label, rows.loc[rows["jdk"].idxmin()], rows.loc[rows["jdk"].idxmax()]))
    return out


def changes_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per strategy, case and collector measured on several JDKs: its batch time on the first and the last,
    the later over the earlier with its 95 % interval, and what that decides."""
    rows = []
    for panel, label, first, last in _changes(table):
        comparison = _change(first, last)
        effect = comparison.effect
        rows.append({"strategy, case": panel, "collector": label, "JDKs": f"{first['jdk']} → {last['jdk']}",
                     "batch ns per packet": f"{first['ns_per_packet']:,.0f} → {last['ns_per_packet']:,.0f}",
                     "later over earlier": effect.text(),
                     "change": (CHANGE_WORDS.get(comparison.outcome(), "not compared") if effect.measured
                                else "one run each: not compared")
                     + effects.boots_words(comparison.agreement)})
    return pd.DataFrame(rows).set_index(["strategy, case", "collector"]) if rows else pd.DataFrame()


def change_sentences(table: pd.DataFrame) -> list[str]:
    """Per strategy and case: with how many collectors batch time fell, rose or did not change measurably from
    the first JDK to the last."""
    by_panel: dict[str, list[block_figures.Comparison]] = {}
    for panel, _, first, last in _changes(table):
        by_panel.setdefault(panel, []).append(_change(first, last))
    lines = []
    for panel, comparisons in by_panel.items():
        tally = effects.tally_of(comparisons)
        if tally.judged == 0:
            lines.append(f"In batch, {panel}: each collector ran once per JDK, too few runs to compare the JDKs.")
            continue
        parts = [f"{words} with {n}" for words, n in (("faster", tally.holds), ("slower", tally.fails),
                                                      ("undecided", tally.no_difference)) if n]
        lines.append(f"In batch, {panel}, from the first JDK to the last: {', '.join(parts)} of "
                     f"{show.count(tally.judged, 'collector')}"
                     + (f" ({tally.boots_text()})" if tally.flips else "") + ".")
    return lines


def pooling_tallies(table: pd.DataFrame) -> dict[str, effects.Tally]:
    """Per case: over the JDK and collector pairs whose blocks hold both, whether pooling takes less time than
    allocation in batch (pooling's median over allocation's, 95 % interval, decided by the margin)."""
    found: dict[str, effects.Tally] = {}
    if "strategy" not in table:
        return found
    for case, part in table.groupby("case", sort=False):
        by = {key: {r["strategy"]: r for _, r in rows.iterrows()}
              for key, rows in part.groupby(["jdk", "collector"], sort=False)}
        comparisons = [block_figures.compare(_row(rows["pool"]), _row(rows["alloc"])) for rows in by.values()
                       if all(s in rows and rows[s]["batch_status"] == "ok" for s in ("pool", "alloc"))]
        if comparisons:
            found[str(case)] = effects.tally_of(comparisons)
    return found


def pooling_tally(table: pd.DataFrame) -> list[str]:
    """pooling_tallies in words, a sentence per case."""
    return [f"Pooling takes less time than allocation in batch, case {case}: {tally.text('JDK and collector pairs')}."
            for case, tally in pooling_tallies(table).items()]


def findings(table: pd.DataFrame) -> list[str]:
    """Per strategy and case: how many collectors of each JDK keep up in real time, the fastest that does,
    and how each collector's batch time changed from the first JDK that has it to the last; then, per case,
    how pooling compares with allocation over the JDKs and collectors."""
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
                    f"{fastest['ns_per_packet'].iloc[0]:,.0f} ns)" if len(fastest) else "")
            per_jdk.append(f"JDK {jdk}: {len(keeping)} of {len(probed)}{best}")
        lines.append(f"**{panel}** keeps up at {interval:,.0f} ns with " + "; ".join(per_jdk) + ".")
    return lines + change_sentences(table) + pooling_tally(table)


def coverage(table: pd.DataFrame, planned: int) -> str:
    """What the chapter shows of its plan: the JDK and collector pairs of the selection shown, how many of them
    the store measured, and which."""
    pairs = table[["jdk", "collector"]].drop_duplicates()
    done = table[table["batch_status"] == "ok"][["jdk", "collector"]].drop_duplicates()
    named = ", ".join(f"{COLLECTOR_LABELS.get(c, c)} on JDK {j}" for j, c in done.itertuples(index=False))
    said = (f"This page shows {len(pairs)} of the plan's {planned} JDK and collector pairs"
            + (": the others are outside the selection of solutions shown." if len(pairs) < planned else "."))
    if len(done) < len(pairs):
        said += (f" The store holds a finished batch block or run for {len(done)} of them"
                 + (f" ({named})." if len(done) else "."))
    return said


def show_chapter(table: pd.DataFrame, planned: int | None = None) -> None:
    if table.empty:
        show.note("No JDK and collector of this profile's plan is in its selection of solutions.")
        return
    if planned:
        show.note(coverage(table, planned))
    show.show_figure(figure(table))
    show.show_table(matrix(table, table.apply(batch_text, axis=1), "collector"),
                    "Batch: wall ns per packet, median (95 % interval)")
    show.show_table(matrix(table, table["cpu_ns_per_packet"], "collector"),
                    "Batch: CPU ns per packet (the whole process: a concurrent collector's threads too)", precision=0)
    show.show_table(matrix(table, table["gc_pause_max_ms"], "collector"), "Batch: the longest GC pause, ms",
                    precision=1)
    interval = int(table["interval_ns"].iloc[0])
    show.show_table(matrix(table, table.apply(realtime_text, axis=1), "collector"),
                    f"Real time at {interval:,.0f} ns: the probe's outcome")
    if "contradicted" in table and table["contradicted"].any():
        show.note(f"{CONTRADICTED_MARK}: {CONTRADICTED_WORDS}")
    late = pd.to_numeric(table["latency_p999_ns"], errors="coerce").where(table["keeps_up"].fillna(False).astype(bool))
    if late.notna().any():
        show.show_table(matrix(table, late / 1e6, "collector"),
                        f"Real time at {interval:,.0f} ns, the probes that kept up: p99.9 of how late packets were made, "
                        "ms after due (empty: lost, or measured before the engines metered latency)", precision=3)
    changes = changes_table(table)
    if not changes.empty:
        show.show_table(changes, "Batch: each collector from its first JDK to its last (the later time over the "
                                 "earlier: median ratio, 95 % interval)")
    show.show_unfinished(table, ["batch_status", "probe_status"], "cell across the JDKs")
    for line in findings(table):
        show.note(line)
