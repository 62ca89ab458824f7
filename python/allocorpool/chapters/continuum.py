"""Chapter 14, the live-set continuum: time per packet and real-time loss against the live set, the
crossovers found in them, and the pool-size what-if. Every sentence stating a result is computed
here from the chapter's tables."""

from __future__ import annotations

import re

import pandas as pd
import plotly.graph_objects as go

from allocorpool import effects
from allocorpool.analysis.crossover import Crossover, beats, first_change, order
from allocorpool.analysis.min_heap import FAILED, FITS, NOT_FITTING, TOO_SMALL
from allocorpool.data.records import MISSING
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.figures import LOG_TICKS, STRATEGY_COLOURS, _bottom_row, _grid
from allocorpool.run.experiments.continuum import ALL_FIT, BLOCK, FOUND, NONE_FIT, ON_HEAP, PLAN, SEARCH

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
    # every panel: a shared axis must have one type in each, or a panel draws its values on another's scale
    fig.update_yaxes(type="log" if value == "ns_per_packet" else "linear",
                     tickvals=LOG_TICKS if value == "ns_per_packet" else None)
    fig.update_yaxes(title_text=axis, col=1)
    fig.update_layout(title=title, height=320 * max(row for row, _ in places))
    return fig


def read_crossovers(curves: pd.DataFrame) -> list[tuple[str, str, Crossover, str]]:
    """Per solution: where mix stops beating pool and allocation stops beating pool in batch, and
    where each strategy starts losing packets at the probe's interval; each as (solution, what,
    crossover, reading)."""
    found = []
    for label, part in curves.groupby("label", sort=False):
        names = dict(part[["strategy", "strategy_label"]].drop_duplicates().to_numpy())
        for faster, slower in (("mix", "pool"), ("alloc", "pool"), ("alloc", "mix")):
            if faster in names and slower in names:
                change = beats(part, faster, slower)
                found.append((label, f"batch: {names[faster].lower()} faster than {names[slower].lower()}", change,
                              batch_reading(order(part, faster, slower), change)))
        interval = int(part["interval_ns"].iloc[0])
        for strategy, probes in part.groupby("strategy_label", sort=False):
            change = first_change(probes["size"], probes["keeps_up"])
            found.append((label, f"{strategy} loses nothing at {interval:,} ns", change,
                          change.describe("loss-free", "loses")))
    return found


def batch_reading(decided: pd.DataFrame, change: Crossover) -> str:
    """How a batch crossover reads: the bracket where the ratios decided, and the sizes they did not."""
    if decided.empty:
        return "not measured"
    if not decided["outcome"].isin([effects.HOLDS, effects.FAILS, effects.NO_DIFFERENCE]).any():
        return "one run per size: not compared"
    same = decided.loc[decided["outcome"] == effects.NO_DIFFERENCE, "size"].tolist()
    said = change.describe("faster", "slower") if change.before is not None or change.after is not None else ""
    if same:
        said = said.replace("at every size measured", "at every other size")
        said += ("; " if said else "") + f"undecided at {', '.join(f'{int(s):,}' for s in same)}"
    return said


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
                                   f"Real time at {int(curves['interval_ns'].iloc[0]):,} ns: packets lost against "
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
                    f"Crossovers in {profile_name} beside those at the article's sizes", precision=0)
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


TEN_MILLION = 10_000_000
# Why ten million pooled buffers ran out of a 10 GB heap: what they take, not how fast anything ran. Each holds a
# 1 KiB array (16 bytes of header), its packet object and a ByteBuffer over it: about 1.1 KiB on the heap.
FACT_OF_SIZE = (" That is a fact of size, not a measure of speed: 10 M pooled buffers of 1 KiB, about 1.1 KiB each "
                "with their objects, cannot fit a 10 GB heap. A small profile scales both alike.")
FITS_MEANS = ("A size fits where its run finished. It does not where the run ran out of memory, or where its fill "
              "took ten times as long as that of a size that fitted, the collector thrashing.")


def reason(error: object, status: str = "error") -> str:
    """Why a run did not finish, for the reader: its first line, without the exception's class name."""
    if status == "timeout":
        return "timed out"
    lines = [line.strip() for line in str(error or "").splitlines() if line.strip()]
    text = _EXCEPTION.sub("", show.error_text(lines[0])).strip() if lines else ""
    return text[:160] or "no reason given"


_EXCEPTION = re.compile(r'(?:Exception in thread "[^"]*"\s*)?\b(?:[a-z_$][\w$]*\.)*[A-Z][\w$]*(?:Exception|Error)\b:?\s*')


def figures_at(part: pd.DataFrame, size: float | None) -> list[float]:
    """A solution's finished times per packet at one pool size: its block's where the comparison was repeated
    as one, else its single run (of the plan or the bisection)."""
    at = part[part["pool_size"] == size]
    if "step" in at:
        repeated = at["step"] == BLOCK
        at = at[repeated] if repeated.any() else at[~repeated]
    return at.loc[at["status"] == "ok", "ns_per_packet"].tolist()


def _ns_at(part: pd.DataFrame, size: float | None) -> float | None:
    """The median of figures_at (None: no run finished)."""
    found = figures_at(part, size)
    return float(pd.Series(found).median()) if found else None


def _size(size: float | None) -> str:
    return "—" if size is None or pd.isna(size) else f"{int(size):,}"


def fit_rows(pool_sizes: pd.DataFrame) -> pd.DataFrame:
    """Per pool on the heap whose largest size did not fit: the largest size that fits, the smallest that does
    not, the time per packet at the first and with the plan's smallest pool, and how its bisection ended."""
    rows = []
    heap = pool_sizes[(pool_sizes["pool"] == ON_HEAP) & pool_sizes["search"].notna()
                      & (pool_sizes["search"] != ALL_FIT)]
    for label, part in heap.groupby("label", sort=False):
        if not ((part["step"] == PLAN) & (part["fits"] == TOO_SMALL)).any():
            continue  # no size of the plan ran out of heap (its largest failed, or is not measured): nothing searched
        search, largest = part["search"].iloc[0], part["largest_fitting"].iloc[0]
        largest = None if pd.isna(largest) else int(largest)
        smallest = int(part.loc[part["step"] == PLAN, "pool_size"].min())
        out = part.loc[part["fits"] == TOO_SMALL, "pool_size"]
        above = out[out > largest] if largest is not None else out
        beyond = int(above.min()) if len(above) else None
        stopped = part[(part["step"] == SEARCH) & ~part["fits"].isin([FITS, TOO_SMALL])]
        how = {FOUND: f"to within {beyond - largest:,} buffers" if beyond and largest else "found",
               NONE_FIT: "no size of the plan fits", MISSING: "stopped: a run is not measured",
               FAILED: "stopped: a run failed"
               + (f" ({reason(stopped['error'].iloc[0], stopped['status'].iloc[0])})" if len(stopped) else "")
               }.get(search, str(search))
        there, base = _ns_at(part, largest), _ns_at(part, smallest)
        rows.append({"solution": label, "largest pool that fits": _size(largest),
                     "smallest that does not": _size(beyond), "bisection": how,
                     "ns per packet there": there, f"ns per packet with {smallest:,}": base,
                     f"there / with {smallest:,}": f"{there / base:.2f}×" if there and base else "—"})
    return pd.DataFrame(rows)


def show_pool_sizes(pool_sizes: pd.DataFrame) -> None:
    """The pool-size what-if: time per packet by the plan's pool sizes, where a pool on the heap ran out of it
    and the largest that fits, and the runs that did not finish otherwise."""
    plan = pool_sizes[pool_sizes["step"] == PLAN]
    ok = plan[plan["status"] == "ok"]
    out_of_heap = plan[(plan["pool"] == ON_HEAP) & (plan["fits"] == TOO_SMALL)]
    unfinished = plan[~plan["status"].isin(["ok", MISSING]) & ~plan.index.isin(out_of_heap.index)]
    ended = ("" if unfinished.empty else " " + show.listing("These did not finish", [
        f"{row.label} with {row.pool_size:,} buffers ({reason(row.error, row.status)})"
        for row in unfinished.itertuples()]))
    if ok.empty and out_of_heap.empty:
        show.note("No pool-size run finished." + ended)
        return
    if len(ok):
        table = ok.pivot_table(index=["label", "pool"], columns="pool_size", values="ns_per_packet", sort=False)
        table.columns = [f"{size:,} buffers" for size in table.columns]
        show.show_table(table.rename_axis(["solution", "buffers kept"]),
                        "Pooling, case B: ns per packet by the pool's size (before the profile's scale)", precision=0)
    largest = plan["pool_size"].max()
    # one run a size: the sizes are compared only where a block repeated them (the table below)
    said = ["The sizes are compared below, where a block repeated them; one run against one decides nothing."
            if len(block_rows(pool_sizes)) else "One run a size: no comparison between sizes is drawn from them."]
    if len(out_of_heap):
        heap_pools = plan.loc[(plan["pool"] == ON_HEAP) & (plan["status"] != MISSING), "label"].nunique()
        at_largest = out_of_heap[out_of_heap["pool_size"] == largest]
        said.append((f"With {largest:,} buffers, {at_largest['label'].nunique()} of the {heap_pools} Java pools on "
                     "the heap did not fit in it." + (FACT_OF_SIZE if largest >= TEN_MILLION else "")
                     if len(at_largest) else f"{out_of_heap['label'].nunique()} of the {heap_pools} Java pools on "
                     "the heap did not fit in it at a size of the plan.") + " " + FITS_MEANS)
    said.append("The article expected ten million buffers to be much worse." + ended)
    show.note("\n\n".join(said))
    fits = fit_rows(pool_sizes)
    if len(fits):
        show.show_table(fits.set_index("solution"), "Pools on the heap: the largest that fits, found by bisection "
                        "(buffers before the profile's scale)", precision=0)
    repeated = block_rows(pool_sizes)
    if len(repeated):
        show.show_table(repeated.set_index("solution"), "Repeated as a block: the smallest pool against the largest "
                        "that fits, interleaved (median ns per packet, 95 % interval)")


def block_rows(pool_sizes: pd.DataFrame) -> pd.DataFrame:
    """Per solution whose pool-size comparison was repeated as a block: both sizes' spreads and their ratio
    (larger over smaller) with its interval."""
    rows = []
    for label, part in pool_sizes[pool_sizes["step"] == BLOCK].groupby("label", sort=False):
        sizes = sorted(part["pool_size"].unique())
        if len(sizes) != 2:
            continue
        small, large = (figures_at(part, size) for size in sizes)
        rows.append({"solution": label, "buffers kept": part["pool"].iloc[0],
                     "smaller pool": f"{int(sizes[0]):,}: {effects.spread(small).text()}",
                     "larger pool": f"{int(sizes[1]):,}: {effects.spread(large).text()}",
                     "larger / smaller": effects.ratio(large, small).text(),
                     "runs": f"{len(small)} and {len(large)}"})
    return pd.DataFrame(rows)
