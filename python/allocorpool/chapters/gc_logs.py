"""Chapter 03, GC logs: the GC table, how pauses spread, the log against the engine's records, and the
article's claims about its GC table checked here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool import study
from allocorpool.chapters.page import display as show
from allocorpool.analysis.claims import Claim, check_all, every
from allocorpool.chapters.page.claims import show_claims
from allocorpool.effects import Verdict
from allocorpool.data import gclog, reference


def cross_check_table(gc_runs: Iterable[tuple[dict[str, Any], Any]]) -> pd.DataFrame:
    """Per run with a GC log: its pauses paired with the engine's pause records (gclog.cross_check)."""
    checks = []
    for row, result in gc_runs:
        if result.gc_events is None:
            continue
        check = gclog.cross_check(result.gc_events, result.run.header, result.run.gc)
        checks.append({"solution": row["label"], "strategy": row["strategy_label"], "case": row["case"],
                       "clock": check.problem or gclog.ALIGNED,
                       "pause records": len(check.pairs) + len(check.unmatched_records),
                       "paired with the log": len(check.pairs),
                       "log pauses without a record": len(check.unmatched_log),
                       "nested in another pause": len(check.nested_log),
                       "records' total, ms": check.record_total_ms, "log's total, ms": check.log_total_ms,
                       "agree": check.ok})
    frame = pd.DataFrame(checks)
    return frame.set_index(["solution", "strategy", "case"]) if len(frame) else frame


def show_cross_check(gc_runs: Iterable[tuple[dict[str, Any], Any]]) -> None:
    """Each run's GC log pauses paired with the engine's pause records."""
    table = cross_check_table(gc_runs)
    if len(table):
        show.show_table(table, caption="GC log against the engine's GC records")


# ---- the article's claims -----------------------------------------------------------------
LOG_RULE = "From the GC log of the run that stands for each cell (its block's run nearest the median)"  # what the claims below read
GC_COLUMNS = ["label", "strategy_label", "case", "max_pause_ms", "avg_pause_ms", "gc_fraction_pct", "live_objects_mil"]
ARTICLE_SOLUTIONS = ("parallel-11",)  # its GC table is of its "CMS", as it ran: Parallel


def _judged(gc: pd.DataFrame, column: str) -> pd.DataFrame:
    return gc[gc[column].notna()]


def pooling_outlasts_the_queue(gc: pd.DataFrame, capacity_ms: float, **_: object) -> Verdict:
    rows = _judged(gc, "max_pause_ms")
    rows = rows[rows["strategy"] == "pool"].assign(queue_ms=capacity_ms)
    return every(rows, lambda r: r["max_pause_ms"] > capacity_ms, GC_COLUMNS[:4] + ["queue_ms"])


def case_c_outlasts_the_queue(gc: pd.DataFrame, capacity_ms: float, **_: object) -> Verdict:
    rows = _judged(gc, "max_pause_ms")
    rows = rows[rows["case"] == "C"].assign(queue_ms=capacity_ms)
    return every(rows, lambda r: r["max_pause_ms"] > capacity_ms, GC_COLUMNS[:4] + ["queue_ms"])


def allocation_c_spends_the_most_in_gc(gc: pd.DataFrame, **_: object) -> Verdict:
    rows = []
    for label, part in _judged(gc, "gc_fraction_pct").groupby("label", sort=False):
        top = part.loc[part["gc_fraction_pct"].idxmax()]
        rows.append({"label": label, "most time in GC": f"{top['strategy_label']} {top['case']}",
                     "gc_fraction_pct": top["gc_fraction_pct"],
                     "allocation C": part[(part["strategy"] == "alloc") & (part["case"] == "C")]["gc_fraction_pct"]
                     .max()})
    table = pd.DataFrame(rows)
    return every(table, lambda r: None if pd.isna(r["allocation C"]) else r["allocation C"] >= r["gc_fraction_pct"],
                 ["label", "most time in GC", "gc_fraction_pct", "allocation C"], "solutions")


def pooling_a_spends_more_than_b_and_c(gc: pd.DataFrame, **_: object) -> Verdict:
    rows = []
    for label, part in _judged(gc, "gc_fraction_pct")[lambda f: f["strategy"] == "pool"].groupby("label", sort=False):
        by_case = dict(zip(part["case"], part["gc_fraction_pct"]))
        rows.append({"label": label, **{f"case {c}": by_case.get(c) for c in "ABC"}})
    table = pd.DataFrame(rows)
    return every(table, lambda r: None if any(pd.isna(r.get(f"case {c}")) for c in "ABC")
                 else r["case A"] > max(r["case B"], r["case C"]), ["label", "case A", "case B", "case C"], "solutions")


def more_live_objects_longer_pauses(gc: pd.DataFrame, **_: object) -> Verdict:
    rows = []
    for label, part in gc.dropna(subset=["live_objects_mil", "avg_pause_ms"]).groupby("label", sort=False):
        if len(part) >= 3:
            rows.append({"label": label, "cells": len(part),
                         "rank correlation": part["live_objects_mil"].rank().corr(part["avg_pause_ms"].rank())})
    table = pd.DataFrame(rows)
    return every(table, lambda r: None if pd.isna(r["rank correlation"]) else r["rank correlation"] > 0,
                 ["label", "cells", "rank correlation"], "solutions")


CLAIMS = (
    Claim("Pooling's longest pauses outlast the input queue in every case", pooling_outlasts_the_queue,
          f"{LOG_RULE}, pooling in each case: holds where its longest pause lasts longer than the input queue holds "
          "packets."),
    Claim("In case C every strategy's longest pause outlasts the input queue", case_c_outlasts_the_queue,
          f"{LOG_RULE}, each strategy in case C: holds where its longest pause lasts longer than the input queue "
          "holds packets."),
    Claim("Allocation in case C spends the largest share of its time in GC", allocation_c_spends_the_most_in_gc,
          f"{LOG_RULE}, per solution: holds where allocation in case C has the largest share of time in GC of "
          "its cells."),
    Claim("Pooling spends more of its time in GC in case A than in B and C", pooling_a_spends_more_than_b_and_c,
          f"{LOG_RULE}, per solution: holds where pooling's share of time in GC is larger in case A than in B "
          "and in C."),
    Claim("More live objects, longer pauses (the average pause rises with the live objects)",
          more_live_objects_longer_pauses,
          f"{LOG_RULE}, per solution with three cells or more: holds where the rank correlation of live objects "
          "and average pause is above zero."),
)


def article_gc(reference_figures: pd.DataFrame) -> pd.DataFrame:
    """The article's GC table shaped like ours, under our names of its solutions."""
    table = reference.gc_table(reference_figures).reset_index()
    names = {s.reference_name: s for s in study.SOLUTIONS if s.reference_name}
    strategies = {label: name for name, label in study.STRATEGY_LABELS.items()}
    return table.assign(label=[names[s].label for s in table["solution"]],
                        strategy_label=table["strategy"], strategy=[strategies[s] for s in table["strategy"]],
                        solution=[names[s].name for s in table["solution"]])


def show_verdicts(reference_figures: pd.DataFrame, gc: pd.DataFrame, capacity_ms: float) -> None:
    """The article's GC claims on this chapter's GC table (its queue: capacity_ms) and on its own table
    (100 ms)."""
    theirs = article_gc(reference_figures)
    theirs = theirs[theirs["solution"].isin(ARTICLE_SOLUTIONS)]
    if gc.empty:  # no Java run finished: the claims find no cell (the table has no columns then)
        gc = pd.DataFrame(columns=[*GC_COLUMNS, "solution", "strategy"])
    show_claims(check_all(CLAIMS, {"gc": gc, "capacity_ms": capacity_ms},
                          {"gc": theirs, "capacity_ms": float(study.MAX_CAPTURING_DELAY_MS)}))
