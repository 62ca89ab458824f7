"""Chapter 14, the live-set continuum: time per packet and real-time loss against the live set, the
crossovers found in them, and the pool-size what-if. Every sentence stating a result is computed
here from the chapter's tables."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from allocorpool.analysis.crossover import Crossover, beats, first_change
from allocorpool.analysis.min_heap import NOT_FITTING
from allocorpool.chapters import display as show
from allocorpool.chapters.figures import LOG_TICKS, STRATEGY_COLOURS, _bottom_row, _grid

CROSSOVER_COLUMNS = ["solution", "what", "last size before", "first size after", "crossover at about", "reading"]


def curves_figure(curves: pd.DataFrame, value: str, title: str, axis: str) -> go.Figure:
    """A panel per solution, a line per strategy, against the live-set size (log axes)."""
    labels = list(dict.fromkeys(curves["label"]))
    fig, places = _grid(labels)
    for (row, col), label in zip(places, labels):
        part = curves[curves["label"] == label].dropna(subset=[value])
        for strategy, colour in STRATEGY_COLOURS.items():
            rows = part[part["strategy_label"] == strategy].sort_values("size")
            if rows.empty:
                continue
            fig.add_trace(go.Scatter(x=rows["size"], y=rows[value], mode="lines+markers", name=strategy,
                                     marker_color=colour, legendgroup=strategy, showlegend=(row, col) == places[0],
                                     hovertemplate=f"{label}<br>{strategy}, %{{x:,}} + %{{x:,}}: %{{y:.3g}}"
                                                   "<extra></extra>"), row=row, col=col)
        fig.update_xaxes(type="log", row=row, col=col,
                         title_text="internal FIFO = store (packets)" if row == _bottom_row(places) else None)
    fig.update_yaxes(type="log" if value == "ns_per_packet" else "linear", col=1, title_text=axis,
                     tickvals=LOG_TICKS if value == "ns_per_packet" else None)
    fig.update_layout(title=title, height=320 * max(row for row, _ in places))
    return fig


def crossovers(curves: pd.DataFrame) -> pd.DataFrame:
    """Per solution: where mix stops beating pool and allocation stops beating pool in batch, and
    where each strategy starts losing packets at the probe's interval."""
    rows = []
    for label, part in curves.groupby("label", sort=False):
        batch = part[["strategy", "size", "ns_per_packet"]]
        for faster, slower in (("mix", "pool"), ("alloc", "pool"), ("alloc", "mix")):
            found = beats(batch, faster, slower)
            names = dict(part[["strategy", "strategy_label"]].drop_duplicates().to_numpy())
            if faster in names and slower in names:
                rows.append(_row(label, f"batch: {names[faster]} faster than {names[slower]}", found,
                                 found.describe("faster", "slower")))
        interval = int(part["interval_ns"].iloc[0])
        for strategy, probes in part.groupby("strategy_label", sort=False):
            found = first_change(probes["size"], probes["keeps_up"])
            rows.append(_row(label, f"{strategy} loses nothing at {interval} ns", found,
                             found.describe("loss-free", "loses")))
    return pd.DataFrame(rows, columns=CROSSOVER_COLUMNS)


def _row(label: str, what: str, found, reading: str) -> dict:
    return {"solution": label, "what": what, "last size before": found.before, "first size after": found.after,
            "crossover at about": found.at, "reading": reading}


def show_curves(curves: pd.DataFrame) -> None:
    if curves.empty:
        show.note("No solution of this profile's selection is in this chapter.")
        return
    show.show_figure(curves_figure(curves, "ns_per_packet", "Batch: time per packet against the live set",
                                   "ns per packet"))
    show.show_figure(curves_figure(curves, "loss_pct",
                                   f"Real time at {int(curves['interval_ns'].iloc[0])} ns: packets lost against "
                                   "the live set", "% lost"))
    show_not_fitting(curves)
    show.show_unfinished(curves[curves["batch_status"] != NOT_FITTING], ["batch_status", "probe_status"],
                         "continuum cell")


def show_not_fitting(curves: pd.DataFrame) -> None:
    """The (solution, strategy) lines whose largest live sets ran out of heap: where each stops."""
    lines = []
    for (label, strategy), rows in curves.groupby(["label", "strategy_label"], sort=False):
        out = rows[rows["batch_status"] == NOT_FITTING]
        if len(out):
            ran = out.dropna(subset=["batch_key"])  # the size whose own batch run ran out of heap
            lines.append(f"{label} {strategy} from {int(out['size'].min()):,}"
                         + (f" ({int(out['live_packets'].min()):,} live packets; its batch run: "
                            f"{ran['error'].iloc[0]})" if len(ran) else ""))
    if lines:
        show.note("These lines run out of heap from the size given, so their larger sizes are neither run nor "
                  "probed: " + "; ".join(lines) + ".")


def show_crossovers(curves: pd.DataFrame) -> None:
    table = crossovers(curves)
    if table.empty:
        show.note("No crossover can be read: no run finished.")
        return
    show.show_table(table.set_index(["solution", "what"]),
                    "Crossovers along the live set (sizes of the FIFO and of the store, each)", precision=0)
    losing = table[table["what"].str.contains("loses nothing") & table["first size after"].notna()]
    if len(losing):
        first = losing.loc[losing["first size after"].idxmin()]
        show.note(f"The first cell to lose packets as the live set grows is {first['solution']} "
                  f"{first['what'].split(' loses')[0]}, from {int(first['first size after']):,} packets in the FIFO "
                  f"and as many in the store; {len(losing)} of the {int(table['what'].str.contains('loses nothing').sum())} "
                  "(solution, strategy) lines lose at some size measured.")
    else:
        show.note("No (solution, strategy) line loses packets at any size measured.")


def compare_crossovers(small: pd.DataFrame, full: pd.DataFrame) -> pd.DataFrame:
    """Each crossover read from both profiles' curves (the same solution and question), with whether
    their brackets can meet (analysis.crossover.Crossover.may_meet)."""
    mine, theirs = crossovers(small), crossovers(full)
    both = mine.merge(theirs, on=["solution", "what"], suffixes=("", " (full)"))

    def bracket(row: pd.Series, suffix: str) -> Crossover:
        before, after = row[f"last size before{suffix}"], row[f"first size after{suffix}"]
        return Crossover(None if pd.isna(before) else int(before), None if pd.isna(after) else int(after))
    agrees = [bracket(row, "").may_meet(bracket(row, " (full)")) for _, row in both.iterrows()]
    return pd.DataFrame({"solution": both["solution"], "what": both["what"], "this profile": both["reading"],
                         "article's sizes": both["reading (full)"], "can agree": agrees})


def show_against_full(small: pd.DataFrame, full: pd.DataFrame, profile_name: str) -> None:
    """The crossovers of a small profile beside those of the article's sizes (the committed full store)."""
    table = compare_crossovers(small, full)
    judged = table.dropna(subset=["can agree"])
    if judged.empty:
        show.note("No crossover was read at both this profile's sizes and the article's: the full store holds "
                  "none of this chapter's solutions yet.")
        return
    show.show_table(table.set_index(["solution", "what"]),
                    f"Crossovers in {profile_name} beside those at the article's sizes (data/full)", precision=0)
    apart = judged[~judged["can agree"].astype(bool)]
    show.note(f"{len(judged) - len(apart)} of the {len(judged)} crossovers read at both sizes can be at the same "
              "size (their brackets overlap)"
              + (f"; these cannot: {'; '.join(f'{row.solution} {row.what}' for row in apart.itertuples())}. "
                 f"A line's crossover in {profile_name} says where it lies at the article's sizes only where the "
                 "two agree." if len(apart) else "."))


def show_pool_sizes(pool_sizes: pd.DataFrame) -> None:
    ok = pool_sizes[pool_sizes["status"] == "ok"]
    if ok.empty:
        show.note("No pool-size run finished.")
        return
    table = ok.pivot_table(index="label", columns="pool_size", values="ns_per_packet", sort=False)
    table.columns = [f"{size:,} buffers" for size in table.columns]
    show.show_table(table.rename_axis("solution"),
                    "Pooling, case B: ns per packet by the pool's size (before the profile's scale)", precision=0)
    smallest, largest = ok["pool_size"].min(), ok["pool_size"].max()
    ratios = []
    for label, rows in ok.groupby("label", sort=False):
        low = rows.loc[rows["pool_size"] == smallest, "ns_per_packet"]
        high = rows.loc[rows["pool_size"] == largest, "ns_per_packet"]
        if len(low) and len(high):
            ratios.append(f"{label} {high.iloc[0] / low.iloc[0]:.2f}×")
    if ratios:
        show.note(f"From {smallest:,} to {largest:,} buffers, the time per packet changes by: "
                  + ", ".join(ratios) + ". The article expected ten million buffers to be much worse.")
