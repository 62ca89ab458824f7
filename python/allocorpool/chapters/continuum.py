"""Chapter 14, the live-set continuum: time per packet and real-time loss against the live set, the
crossovers found in them, and the pool-size what-if. Every sentence stating a result is computed
here from the chapter's tables."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from allocorpool.analysis.crossover import Crossover, beats, first_change
from allocorpool.analysis.min_heap import NOT_FITTING
from allocorpool.analysis.search import MISSING
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


def read_crossovers(curves: pd.DataFrame) -> list[tuple[str, str, Crossover, str]]:
    """Per solution: where mix stops beating pool and allocation stops beating pool in batch, and
    where each strategy starts losing packets at the probe's interval; each as (solution, what,
    crossover, reading)."""
    found = []
    for label, part in curves.groupby("label", sort=False):
        batch = part[["strategy", "size", "ns_per_packet"]]
        names = dict(part[["strategy", "strategy_label"]].drop_duplicates().to_numpy())
        for faster, slower in (("mix", "pool"), ("alloc", "pool"), ("alloc", "mix")):
            if faster in names and slower in names:
                change = beats(batch, faster, slower)
                found.append((label, f"batch: {names[faster]} faster than {names[slower]}", change,
                              change.describe("faster", "slower")))
        interval = int(part["interval_ns"].iloc[0])
        for strategy, probes in part.groupby("strategy_label", sort=False):
            change = first_change(probes["size"], probes["keeps_up"])
            found.append((label, f"{strategy} loses nothing at {interval} ns", change,
                          change.describe("loss-free", "loses")))
    return found


def crossovers(curves: pd.DataFrame) -> pd.DataFrame:
    """The crossovers of read_crossovers as a table: a row per solution and question."""
    return pd.DataFrame([{"solution": label, "what": what, "last size before": change.before,
                          "first size after": change.after, "crossover at about": change.at, "reading": reading}
                         for label, what, change, reading in read_crossovers(curves)], columns=CROSSOVER_COLUMNS)


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
    fitting = curves[curves["batch_status"] != NOT_FITTING]
    show.show_unfinished(fitting.assign(repeat_status=fitting["repeat_status"].astype(object).fillna("ok")),  # NaN: not repeated
                         ["batch_status", "probe_status", "repeat_status"], "continuum cell")


def show_not_fitting(curves: pd.DataFrame) -> None:
    """The (solution, strategy) lines whose largest live sets ran out of heap: where each stops."""
    rows = []
    for (label, strategy), line in curves.groupby(["label", "strategy_label"], sort=False):
        out = line[line["batch_status"] == NOT_FITTING]
        if len(out):
            ran = out.dropna(subset=["batch_key"])  # the size whose own batch run ran out of heap
            rows.append({"solution": label, "strategy": strategy, "first size that does not fit": int(out["size"].min()),
                         "live packets there": int(out["live_packets"].min()),
                         "how its batch run ended": show.error_text(ran["error"].iloc[0]) if len(ran) else "—"})
    if rows:
        show.note("These lines run out of heap from the size given, so their larger sizes are neither run nor probed.")
        show.show_table(pd.DataFrame(rows).set_index(["solution", "strategy"]), precision=0)


def show_crossovers(curves: pd.DataFrame) -> None:
    table = crossovers(curves)
    if table.empty:
        show.note("No crossover can be read: no run finished.")
        return
    show.show_table(table.set_index(["solution", "what"]),
                    "Crossovers along the live set (sizes of the FIFO and of the store, each)", precision=0)
    show.note(loss_sentence(read_crossovers(curves)))
    said = repeat_sentence(curves)
    if said:
        show.note(said)


def repeat_sentence(curves: pd.DataFrame) -> str | None:
    """How many of the probes repeated around a change of verdict agreed with the first, and which
    did not; None where nothing was repeated."""
    repeated = curves.dropna(subset=["repeat_keeps_up"])
    if repeated.empty:
        return None

    def said(kept: bool, lost_pct: float) -> str:
        if kept:
            return "kept up"
        return f"lost {lost_pct:.2g} %" if lost_pct and lost_pct > 0 else "fell behind, losing nothing yet"
    differ = repeated[repeated["repeat_keeps_up"].astype(bool) != repeated["probe_keeps_up"].astype(bool)]
    text = ("The probe at each size on either side of a change of a line's verdict ran twice. A size keeps up "
            f"only where both did. {len(repeated) - len(differ)} of the {len(repeated)} repeats agreed with the "
            "first probe")
    if differ.empty:
        return text + "."
    return text + ". " + show.listing("The repeats that did not", [
        f"{row.label} {row.strategy_label} at {int(row.size):,}: first {said(bool(row.probe_keeps_up), row.loss_pct)}, "
        f"then {said(bool(row.repeat_keeps_up), row.repeat_loss_pct)}" for row in differ.itertuples()])


def loss_sentence(found: list[tuple[str, str, Crossover, str]]) -> str:
    """Which (solution, strategy) line starts losing packets first as the live set grows, how many lose
    at some size, and which change back (lose at one size, not at a larger one)."""
    lines = [(label, what.split(" loses")[0], change) for label, what, change, _ in found if "loses nothing" in what]
    if not lines:
        return "No real-time probe finished, so no line's loss can be read."
    losing = [line for line in lines if line[2].after is not None]
    if not losing:
        return "No (solution, strategy) line loses packets at any size measured."
    single = [line for line in losing if line[2].single]
    said = f"{len(losing)} of the {len(lines)} (solution, strategy) lines lose packets at some size measured."
    if single:
        label, strategy, change = min(single, key=lambda line: line[2].after)
        said += (f" Of those that lose from one size on, the first is {label} {strategy}, from {change.after:,} "
                 "packets in the FIFO and as many in the store.")
    back = [f"{label} {strategy} (loses at {change.after:,}, not at {', '.join(f'{s:,}' for s in change.again)})"
            for label, strategy, change in losing if not change.single]
    if back:
        said += " " + show.listing("These change back, so no single size says where they start losing", back)
    return said


def compare_crossovers(small: pd.DataFrame, full: pd.DataFrame) -> pd.DataFrame:
    """Each crossover read from both profiles' curves (the same solution and question), with whether
    their brackets can meet (analysis.crossover.Crossover.may_meet)."""
    theirs = {(label, what): (change, reading) for label, what, change, reading in read_crossovers(full)}
    rows = [{"solution": label, "what": what, "this profile": reading, "article's sizes": theirs[label, what][1],
             "one crossover in both": change.single and theirs[label, what][0].single,
             "can agree": change.may_meet(theirs[label, what][0])}
            for label, what, change, reading in read_crossovers(small) if (label, what) in theirs]
    return pd.DataFrame(rows, columns=["solution", "what", "this profile", "article's sizes", "one crossover in both",
                                       "can agree"])


def show_against_full(small: pd.DataFrame, full: pd.DataFrame, profile_name: str) -> None:
    """The crossovers of a small profile beside those of the article's sizes (the committed full store)."""
    table = compare_crossovers(small, full)
    judged = table.dropna(subset=["can agree"])
    if judged.empty:
        show.note("No single crossover was read at both this profile's sizes and the article's: the full store "
                  "holds none of this chapter's solutions yet, or their lines change back.")
        return
    show.show_table(table.set_index(["solution", "what"]),
                    f"Crossovers in {profile_name} beside those at the article's sizes (data/full)", precision=0)
    apart = judged[~judged["can agree"].astype(bool)]
    changing = table[~table["one crossover in both"]]
    show.note(f"{len(judged) - len(apart)} of the {len(judged)} crossovers read at both sizes can be at the same "
              "size: their brackets overlap."
              + (f" A line's crossover in {profile_name} says where it lies at the article's sizes only where the "
                 "two agree." if len(apart) else ""))
    if len(apart):
        show.note(show.listing("These cannot", [f"{row.solution} {row.what}" for row in apart.itertuples()]))
    if len(changing):
        show.note(show.listing("Not compared, as a line changes back at one of the two sizes",
                               [f"{row.solution} {row.what}" for row in changing.itertuples()]))


def show_pool_sizes(pool_sizes: pd.DataFrame) -> None:
    ok = pool_sizes[pool_sizes["status"] == "ok"]
    unfinished = pool_sizes[~pool_sizes["status"].isin(["ok", MISSING])]  # not measured: no run to speak of
    # a pool that no longer fits the heap is the what-if's answer too (a JVM's ten million buffers in 10 GB)
    ended = ("" if unfinished.empty else " " + show.listing("These did not finish", [
        f"{row.label} with {row.pool_size:,} buffers ({show.error_text(row.error)})" for row in unfinished.itertuples()]))
    if ok.empty:
        show.note("No pool-size run finished." + ended)
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
    if ratios or ended:
        show.note((f"From {smallest:,} to {largest:,} buffers, the time per packet changes by: " + ", ".join(ratios)
                   + "." if ratios else "")
                  + " The article expected ten million buffers to be much worse." + ended)
