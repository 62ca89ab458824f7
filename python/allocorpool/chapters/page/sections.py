"""The sections every chapter notebook shows the same way: batch table and figure, GC table
and pause histogram, real-time search table, loss curve and metered latency, pause timelines. A chapter
notebook runs its cells, then calls these with its own data and says whose figures the
article's are (e.g. "CMS on Java 8")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pandas as pd

from allocorpool import lists
from allocorpool.analysis.search import LATENCY_FIELDS, MISSING
from allocorpool.analysis.stored_probes import contradicted, losses_above, stored_probes
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page import figures, tables
from allocorpool.data import reference
from allocorpool.data.keys import configuration_of
from allocorpool.study import SAME_MEASUREMENT_BUILDS

if TYPE_CHECKING:
    from allocorpool.run.sweep import Sweep

SHOWN_PERIODS = 12  # a timeline's lossy periods listed beneath it; its figure draws them all


def show_batch(batch: pd.DataFrame, reference_figures: pd.DataFrame, reference_source: str) -> None:
    """Failed batch cells, ns per packet beside the article's, and the same as a figure."""
    show.show_failures(tables.failures(batch), "batch cell")
    show.show_table(tables.batch_chapter(batch, reference.batch(reference_figures)),
                    caption=f"Batch: ns per packet, this machine beside the article's ({reference_source}, 2019)")
    show.show_figure(figures.ns_per_packet(batch, reference.batch(reference_figures)))


def show_gc(gc_table: pd.DataFrame, pauses: pd.DataFrame, reference_figures: pd.DataFrame,
            reference_source: str | None = None) -> None:
    """The seed's GC table beside the article's (where it has one), and how the pauses are spread."""
    beside = f"the article's ({reference_source})" if reference_source else "the article's where it has one"
    if not len(gc_table):
        show.note("No Java batch cell of this chapter finished: there is no GC table to show.")
        return
    show.show_table(tables.gc_chapter(gc_table, reference.gc_table(reference_figures)),
                    caption=f"GC table of the batch runs, this machine beside {beside}")
    show.show_table(tables.gc_stops(gc_table), caption="Pauses, stops and stalls of the same runs (this machine "
                                                       "only), and whose clock their GC figures are on")
    if len(pauses):
        show.show_figure(figures.pause_histogram(pauses))
    else:
        show.note("No stop-the-world pause was logged in these runs.")


def show_left_out(sweep: Any, chapter: str) -> None:
    """Says which of the chapter's solutions (its text names them all) this rendering leaves out, and why."""
    left = sweep.left_out(chapter)
    if not left:
        return
    by_reason: dict[str, list[str]] = {}
    for solution, reason in left:
        by_reason.setdefault(reason, []).append(solution.label)
    said = "; ".join(_leaving(reason, labels) for reason, labels in by_reason.items())
    selected = any(reason.startswith("the selection") for _, reason in left)
    show.note(said[0].upper() + said[1:]
              + (" (the rendering of every solution shows them)." if selected else "."))


def _leaving(reason: str, labels: list[str]) -> str:
    """'this rendering keeps <selection> and leaves out ...' or 'the <profile> profile leaves out ...'."""
    kind, _, name = reason.removeprefix("the ").partition(" ")
    if kind == "selection":
        return f"this rendering keeps {lists.SELECTION_TEXTS.get(name, name)}; it leaves out {listed(labels)}"
    return f"the {name} profile leaves out {listed(labels)}"


def listed(labels: list[str]) -> str:
    """'a, b and c'; labels that hold a comma are set apart by semicolons alone ('a; b, c')."""
    if any("," in label for label in labels):
        return "; ".join(labels)
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def show_realtime(sweep: Sweep, searches: Any, reference_figures: pd.DataFrame, reference_source: str,
                  big_heap: bool = True) -> None:
    """Failed searches, the smallest loss-free interval (or the loss at 1,000 ns) beside the article's, marked
    where a stored run of the same cell lost at it or above it (as the summary marks it), and every probe's
    loss against its interval."""
    show.show_failures(tables.failures(searches.table), "search")
    heap = " (with the big heap)" if big_heap else ""
    marked = standing(sweep, searches)
    show.show_table(tables.realtime_chapter(marked, reference.realtime(reference_figures)),
                    caption=f"Real-time: smallest loss-free interval in ns, or the loss at 1,000 ns{heap}, "
                            f"this machine beside the article's ({reference_source}, 2019)")
    if any(contradicted(row) for row in marked.to_dict("records")):
        show.note(tables.CONTRADICTED_LEGEND)
    if big_heap:
        note = no_collection_sentence(searches.table)
        if note:
            show.note(note)
    show.show_figure(figures.loss_vs_interval(searches.probes))
    note = repeat_sentence(searches.probes)
    if note:
        show.note(note)
    show_latency(searches.table)


def no_collection_sentence(table: pd.DataFrame) -> str | None:
    """Which cells' big-heap figure reads "no GC" (tables.saw_no_collection), and which wait for the longer
    big-heap probe that run.experiments.realtime.search runs after a window without a collection; None where
    neither."""
    if "big_heap_collections" not in table.columns:
        return None
    rows = table.to_dict("records")
    quiet = [r for r in rows if tables.saw_no_collection(r)]
    pending = [r for r in rows if r.get("big_heap_status") == MISSING and len(r.get("big_heap_keys") or []) > 1]
    sentences = []
    if quiet:
        which = [f"{r['label']} {r['strategy_label']} {r['case']} ({r['big_heap_s']:g} s probe, "
                 f"{reference.format_pct(r['big_heap_loss_pct'])}% lost)" for r in quiet]
        sentences.append(show.listing(
            f"\"{tables.NO_COLLECTION}\": the big-heap probe at 1,000 ns ran its whole window without a collection in "
            f"{len(quiet)} cell{'s' if len(quiet) > 1 else ''}. Its loss says nothing of the big heap's pauses", which))
    if pending:
        which = [f"{r['label']} {r['strategy_label']} {r['case']}" for r in pending]
        sentences.append(show.listing(
            f"The first big-heap probe of {len(pending)} cell{'s' if len(pending) > 1 else ''} ran its window without "
            "a collection: a heap five times larger collects about five times less often. The longer probe that then "
            "measures the big heap has not run yet", which))
    return "\n".join(sentences) or None


def repeat_sentence(probes: pd.DataFrame) -> str | None:
    """How many intervals rest on a repeat of their probe, and which repeats lost where the first probe
    had kept up (analysis.search: the interval found rests on two loss-free probes); None where no
    probe was repeated."""
    if not len(probes):
        return None
    finished = probes[(probes["status"] == "ok") & (probes["repetition"] == 1)]
    if not len(finished):
        return None
    cells = ["label", "strategy_label", "case"]
    lost = finished[~finished["ok"].astype(bool)]
    text = (f"{len(finished)} probes ran twice (in {finished.groupby(cells).ngroups} searches): a search believes "
            "the interval it found only when a second probe there, its confirmation or this repeat, kept up too. ")
    if not len(lost):
        return text + "Every repeat kept up."
    which = [f"{r.label} {r.strategy_label} {r.case} at {int(r.interval_ns):,} ns lost {r.lost_pct:.2g} %"
             for r in lost.itertuples()]
    return text + show.listing(f"{len(lost)} of the {len(finished)} repeats lost where the first probe had kept up, "
                               "and the search went on above", which)


def show_timelines(runs: Iterable[tuple[Any, str, str, Any]]) -> None:
    """Each long real-time run at 1,000 ns with its pauses laid over the seconds that lost
    packets, and the table pairing lossy seconds with the pauses over them."""
    for solution, strategy, case, result in runs:
        title = f"{solution.label}, {show.strategies([strategy])}, case {case}, 1,000 ns"
        if result.status == MISSING:
            show.note(f"{title}: not measured (the store has no such run).")
            continue
        if result.status != "ok":
            show.show_failures(pd.DataFrame([{"label": title, "error": result.error,
                                              "stderr_tail": result.stderr_tail}]), "timeline run")
            continue
        fig, attribution = figures.pause_timeline(result, title)
        show.show_figure(fig)
        if len(attribution):
            periods = figures.attribution_table(attribution)
            cut = f" (the first {SHOWN_PERIODS} of {len(periods)})" if len(periods) > SHOWN_PERIODS else ""
            show.show_table(periods.head(SHOWN_PERIODS), precision=2,
                            caption=f"{title}: lossy periods and the pauses over them{cut}")
        else:
            show.note(f"{title}: no packet was lost in this run.")
        late = _latency_sentence(result.run.summary or {})
        if late:
            show.note(f"{title}: {late}")


def latency_table(searches: pd.DataFrame) -> pd.DataFrame:
    """Per search that found a loss-free interval: how late its packets were made there, from when each was
    due (the metered latency of the probe that proved the interval), in ms."""
    found = searches[searches["outcome"] == "found"]
    ms = {name: pd.to_numeric(found[f"latency_{name}_ns"], errors="coerce") / 1e6 for name in ("p50", "p999", "max")}
    return pd.DataFrame({"label": found["label"], "strategy_label": found["strategy_label"], "case": found["case"],
                         "interval_ns": found["interval_ns"], "p50_ms": ms["p50"], "p999_ms": ms["p999"],
                         "max_ms": ms["max"]})


def show_latency(searches: pd.DataFrame, limit_ms: float = 1.0) -> None:
    """The metered latency at each loss-free interval, and what it says, computed: a loss-free cell may
    still hold its packets for as long as its longest pause."""
    table = latency_table(searches)
    metered = table.dropna(subset=["p999_ms"])
    if not len(table):
        show.note("No search found a loss-free interval, so there is no latency to show at one.")
        return
    if not len(metered):
        show.note(f"None of the {len(table)} loss-free intervals was measured by an engine build that meters "
                  "latency: rerun their probes to see it.")
        return
    worst = metered.loc[metered["p999_ms"].idxmax()]
    within = int((metered["p999_ms"] <= limit_ms).sum())
    text = (f"At the smallest loss-free interval, {within} of {len(metered)} cells made 99.9 % of their packets "
            f"within {limit_ms:g} ms of when they were due. The latest at p99.9: {worst['label']}, "
            f"{worst['strategy_label']}, case {worst['case']}: {worst['p999_ms']:.3g} ms "
            f"(max {worst['max_ms']:.3g} ms) at {worst['interval_ns']:,.0f} ns, with no packet lost.")
    if len(metered) < len(table):
        unmetered = len(table) - len(metered)
        text += (f" {show.count(unmetered, 'loss-free interval')} {'comes' if unmetered == 1 else 'come'} from an "
                 "engine build that did not meter latency.")
    show.note(text)
    shown = table.assign(interval_ns=table["interval_ns"].map(lambda v: f"{v:,.0f}"))
    show.show_table(show.readable(shown.set_index(["label", "strategy_label", "case"])),
                    caption="Metered latency at the smallest loss-free interval, ms after each packet was due "
                            "(one packet in 64 timed)", precision=3)


def _latency_sentence(summary: dict[str, Any]) -> str | None:
    """How late a run's packets were made after warm-up, from its summary; None where it metered none."""
    values = {name: summary.get(f"latency_{name}_ns") for name in ("p50", "p999", "max")}
    if any(v is None or pd.isna(v) for v in values.values()):
        return None
    return (f"after the warm-up, half its packets were made within {show.duration(values['p50'])} of when they were "
            f"due, 99.9 % within {show.duration(values['p999'])}, and the latest {show.duration(values['max'])} late.")


def stored_runs(sweep: Sweep, probes: pd.DataFrame, cases: dict[str, int] | None = None) -> pd.DataFrame:
    """Every run the store holds of each search's configuration (repeats, probe blocks, long runs, earlier
    searches' probes), as single probes with the search's labels and live set (where cases gives it)."""
    if not len(probes) or "key" not in probes:
        return pd.DataFrame(columns=["solution", "label", "engine", "strategy", "strategy_label", "live_packets",
                                     "interval_ns", "keeps_up", "probe_key", "machine", *LATENCY_FIELDS])
    same = [build for builds in SAME_MEASUREMENT_BUILDS.values() for build in builds]
    runs = stored_probes(sweep.store.index, probes["key"], same)
    labels = probes.assign(configuration=probes["key"].map(configuration_of))[
        ["configuration", "solution", "label", "engine", "strategy", "strategy_label", "case"]].drop_duplicates(
        "configuration")
    found = runs.merge(labels, on="configuration")
    return found.assign(live_packets=found["case"].map(cases or {}), probe_key=found["key"])


def standing(sweep: Sweep, searches: Any) -> pd.DataFrame:
    """The searches' table with what every stored run of the same configuration says above each loss-free
    interval found (lost_above_ns: analysis.stored_probes.losses_above). A claim that a cell keeps up reads
    this, so that a loss any stored run measured outweighs the search's loss-free probes."""
    return losses_above(searches.table, stored_runs(sweep, searches.probes))
