"""The article's claims, judged on this machine's data: every chapter ends with its own.

A claim is what the article concluded, in our words, and a check: a function of the chapter's data
that gives a Verdict, whether the claim holds here, in how many of the cells it speaks of, and the
cells that decide it. Nothing is typed in: a verdict is computed, and where the data cannot tell (no
finished cell, a figure not measured) it says so instead of guessing.

The checks share a few shapes: `every` (a condition on each of some rows), `per_group` (a condition
on each (solution, case) group of strategies), and `share` to word the count. How a chapter shows the
verdicts is chapters.page.claims.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from allocorpool import effects, lists
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis.stored_probes import contradicted
from allocorpool.data import reference
from allocorpool.effects import Verdict


@dataclass(frozen=True)
class Claim:
    """One of the article's conclusions, in our words, and how the data checks it."""

    text: str
    check: Callable[..., Verdict]
    rule: str = ""  # how the verdict is decided, for the reader: it could come out either way
    said: str = ""  # the claim in a few words, for a one-line table
    shown: int | None = None  # the chapter that shows what decides it


def ratio_rule(scope: str, ratio: str, bound: str = "parity") -> str:
    """How a claim decided by a ratio of medians (versus, across, per_group_effect) reads for the reader."""
    return (f"{scope}: {ratio}, as a ratio of median times per packet with its 95 % interval. It holds where the "
            f"interval lies below {bound} by the {effects.pct(effects.MARGIN)} margin and fails where it lies above it.")


def search_rule(scope: str, holds: str = "its search found an interval with no loss") -> str:
    """How a claim decided by real-time searches reads for the reader."""
    return (f"{scope}, one search each. It holds where {holds}. A stored run that lost at the interval found, "
            f"or at a longer one, counts as a loss.")


def share(passed: int, total: int, what: str = "cells") -> Verdict:
    """The verdict of a condition that held in `passed` of `total` cases."""
    if total == 0:
        return Verdict(effects.NOT_MEASURED, f"no {what} to check")
    outcome = effects.HOLDS if passed == total else effects.FAILS if passed == 0 else effects.MIXED
    return Verdict(outcome, f"in {passed} of {total} {what}")


def every(rows: pd.DataFrame, condition: Callable[[dict[str, Any]], bool | None], columns: list[str],
          what: str = "cells") -> Verdict:
    """A condition on each row; a row where it cannot be judged (None) is left out and said so."""
    judged = [(row, condition(row)) for row in rows.to_dict("records")]
    known = [(row, ok) for row, ok in judged if ok is not None]
    base = share(sum(1 for _, ok in known if ok), len(known), what)
    unknown = len(judged) - len(known)
    summary = base.summary + (f" ({unknown} could not be judged)" if unknown else "")
    cells = pd.DataFrame([{**{c: row.get(c) for c in columns}, "agrees": ok} for row, ok in judged])
    if len(cells):
        cells = cells.sort_values("agrees", key=lambda s: s.map({False: 0, None: 1, True: 2}), kind="stable")
    return Verdict(base.outcome, summary, cells.reset_index(drop=True))


def per_group(frame: pd.DataFrame, value: str, condition: Callable[[dict[str, float]], bool | None],
              what: str = "solution and case pairs", keys: Iterable[str] = ("label", "case")) -> Verdict:
    """A condition on each (solution, case): its figures by strategy label, e.g. {"Allocation": 400,
    "Mix": 108, "Pooling": 346}; a missing or unfinished figure is NaN."""
    rows = []
    for group, part in frame.groupby(list(keys), sort=False):
        figures = {str(r["strategy_label"]): _number(r.get(value)) for r in part.to_dict("records")}
        rows.append({**dict(zip(keys, group if isinstance(group, tuple) else (group,))),
                     **{f"{k}": v for k, v in figures.items()}, "_figures": figures})
    table = pd.DataFrame(rows)
    if not len(table):
        return Verdict(effects.NOT_MEASURED, f"no {what} to check")
    return every(table, lambda r: condition(r["_figures"]),
                 [c for c in table.columns if c != "_figures"], what)


# A judge of one (solution, case) group: its rows by strategy label -> (outcome, the effect in words, how the
# boots that measured it agree); effects.OUTCOMES, effects.AGREE/DISAGREE/OPPOSE
Judge = Callable[[dict[str, dict[str, Any]]], tuple[str, str, str]]


def versus(numerator: dict[str, Any] | None, denominator: dict[str, Any] | None,
           threshold: float = 1.0) -> tuple[str, str, str]:
    """numerator's time per packet over denominator's, decided against threshold: from the block's
    repetitions (ratio of medians, 95 % interval, boot by boot) where the rows hold them, else (the 2019
    article's figures, one each) from the two figures alone; a single run of ours decides nothing."""
    if numerator is None or denominator is None:
        return effects.NOT_MEASURED, "not measured", effects.AGREE
    if "boot_samples" not in numerator:  # the 2019 article's tables: one figure per cell
        a, b = _number(numerator.get("ns_per_packet")), _number(denominator.get("ns_per_packet"))
        ratio = a / b if known(a, b) and b else None
        text = f"{ratio:.2f} x (one figure each)" if ratio is not None else "not measured"
        return effects.decide_point(ratio, threshold), text, effects.AGREE
    comparison = block_figures.compare(numerator, denominator, threshold)
    return comparison.outcome(), comparison.effect.text(), comparison.agreement


def cheapest(rows: dict[str, dict[str, Any]], labels: Iterable[str]) -> dict[str, Any] | None:
    """The row of the labelled strategy with the lowest median time per packet (None unless every one of them
    was measured: the cheapest of some says nothing of the others)."""
    listed = list(labels)
    measured = [rows[label] for label in listed if label in rows and known(_number(rows[label].get("ns_per_packet")))]
    return min(measured, key=lambda r: _number(r["ns_per_packet"])) if len(measured) == len(listed) else None


def per_group_effect(frame: pd.DataFrame, judge: Judge, what: str = "solution and case pairs",
                     keys: Iterable[str] = ("label", "case")) -> Verdict:
    """A comparison in each (solution, case) group, decided by its effect's interval (effects): the verdict
    counts the groups where it holds, fails and shows no difference, and those whose boots disagree."""
    keys = list(keys)
    rows = []
    for group, part in frame.groupby(keys, sort=False):
        by = {str(r["strategy_label"]): r for r in part.to_dict("records")}
        outcome, text, boots = judge(by)
        rows.append({**dict(zip(keys, group if isinstance(group, tuple) else (group,))), "effect": text,
                     "outcome": outcome, **({"boots": boots} if boots else {})})
    return tallied(pd.DataFrame(rows), what)


def tallied(table: pd.DataFrame, what: str) -> Verdict:
    """The verdict of comparisons (rows with outcome, and boots where they disagree): the counts of each
    outcome; the rows against it first."""
    if not len(table):
        return Verdict(effects.NOT_MEASURED, f"no {what} to check")
    tally = effects.tally_table(table)
    order = {effects.FAILS: 0, effects.NO_DIFFERENCE: 1, effects.NOT_MEASURED: 2, effects.HOLDS: 3}
    table = table.sort_values("outcome", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
    return Verdict(tally.outcome(), tally.text(what), table)


def across(left: pd.DataFrame, right: pd.DataFrame, columns: list[str], threshold: float = 1.0,
           what: str = "cells") -> Verdict:
    """left's time per packet against right's in each (strategy, case) both hold (two solutions' batch rows),
    decided by `versus`: holds where left is faster by the margin over the interval."""
    theirs = {(r["strategy"], r["case"]): r for r in right.to_dict("records")}
    rows = []
    for row in left.to_dict("records"):
        other = theirs.get((row["strategy"], row["case"]))
        if other is None:
            continue
        outcome, text, boots = versus(row, other, threshold)
        rows.append({**{c: row.get(c) for c in columns}, "effect": text, "outcome": outcome,
                     **({"boots": boots} if boots else {})})
    return tallied(pd.DataFrame(rows), what)


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number


def known(*values: float) -> bool:
    return all(not math.isnan(v) for v in values)


def searched(frame: pd.DataFrame) -> pd.DataFrame:
    """Search rows a claim can judge: not a baseline, not failed, not missing from a replayed store. A loss-free
    interval that a stored run of the same configuration contradicts (it lost there or at a longer interval:
    lost_above_ns, from stored_probes.losses_above) reads as lost at that run's interval: a loss any run
    measured outweighs the search's loss-free probes."""
    ranked = frame[~frame["baseline"].astype(bool)]
    if "lost_above_ns" in ranked:
        against = pd.Series([contradicted(r) for r in ranked.to_dict("records")], index=ranked.index, dtype=bool)
        if against.any():
            ranked = ranked.copy()
            ranked.loc[against, "interval_ns"] = ranked.loc[against, "lost_above_ns"]
            ranked.loc[against, "outcome"] = "lost"
            ranked.loc[against, "loss_pct"] = math.nan
    return ranked.assign(judged=ranked["outcome"].isin(["found", "lost"]))


POOLING_AS_WELL_RULE = search_rule("Per solution and case", "allocation found no loss-free interval, or pooling "
                                   "found one no longer than allocation's")


def pooling_keeps_up_as_well_as_allocation(searches: pd.DataFrame, **_: object) -> Verdict:
    """Per solution and case: where allocation keeps up, pooling does too at an interval no longer."""
    rows = []
    for (label, case), part in searched(searches).groupby(["label", "case"], sort=False):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        if "alloc" not in by or "pool" not in by:
            continue
        alloc, pool = by["alloc"], by["pool"]
        rows.append({"label": label, "case": case, "allocation": _result(alloc), "pooling": _result(pool),
                     "_alloc": alloc, "_pool": pool})

    def as_well(row: dict[str, Any]) -> bool | None:
        alloc, pool = row["_alloc"], row["_pool"]
        if {alloc["outcome"], pool["outcome"]} - {"found", "lost"}:
            return None
        if alloc["outcome"] == "lost":
            return True
        return pool["outcome"] == "found" and pool["interval_ns"] <= alloc["interval_ns"]
    table = pd.DataFrame(rows)
    if not len(table):
        return Verdict(effects.NOT_MEASURED, "no solution and case pairs to check")
    return every(table, as_well, ["label", "case", "allocation", "pooling"], "solution and case pairs")


def _result(row: dict[str, Any]) -> str:
    if row["outcome"] == "found":
        return f"{row['interval_ns']:,.0f} ns"
    if row["outcome"] == "lost":
        if pd.notna(row.get("loss_pct")):
            return f"lost {row['loss_pct']:.2g}%"
        return f"lost at {row['interval_ns']:,.0f} ns" if pd.notna(row.get("interval_ns")) else "lost"
    return str(row["outcome"])


def article_data(reference_figures: pd.DataFrame, solutions: Iterable[str] | None = None) -> dict[str, pd.DataFrame]:
    """The article's own figures shaped like this study's batch and search tables, under our names of
    its solutions as it ran them, so that every claim can be checked on the article's data too:
    `batch` and `searches` hold the chapter's solutions (all when None), the comparison baselines a
    check may ask for hold all of them."""
    batch = reference.batch(reference_figures)
    rows = reference_figures[reference_figures["test"] == "realtime"]
    by_name = {s.reference_name: s for s in lists.SOLUTIONS if s.reference_name}
    batch_rows, search_rows = [], []
    for solution in by_name.values():
        labels = {"solution": solution.name, "label": solution.label, "reference_name": solution.reference_name,
                  "engine": solution.engine, "baseline": False}
        for strategy, strategy_label in lists.STRATEGY_LABELS.items():
            for case in lists.CASES:
                cell = {**labels, "strategy": strategy, "strategy_label": strategy_label, "case": case}
                value = batch.get((solution.reference_name, strategy_label, case))
                batch_rows.append({**cell, "status": "ok" if value is not None else "missing", "ns_per_packet": value})
                if strategy == "dummy":
                    continue
                metrics = rows[(rows["solution"] == solution.reference_name) & (rows["strategy"] == strategy_label)
                               & (rows["case"] == case)]
                figure = {(m, int(h) if pd.notna(h) else 0): v
                          for m, h, v in zip(metrics["metric"], metrics["heap_gb"], metrics["value"])}
                interval = figure.get(("min_interval_ns", 0))
                lost = next((v for (m, h), v in figure.items() if m == "lost_pct_at_1000ns" and h != 10), None)
                search_rows.append({**cell, "outcome": "found" if interval else "lost" if lost is not None
                                    else "missing", "interval_ns": interval, "loss_pct": lost, "big_heap": solution.big_heap_mb(1.0),
                                    "big_heap_loss_pct": figure.get(("lost_pct_at_1000ns", 10))})
    batch_frame, search_frame = pd.DataFrame(batch_rows), pd.DataFrame(search_rows)
    chosen = set(solutions) if solutions is not None else set(batch_frame["solution"])
    return {"batch": batch_frame[batch_frame["solution"].isin(chosen)],
            "searches": search_frame[search_frame["solution"].isin(chosen)],
            "baseline": batch_frame, "baseline_searches": search_frame, "heap_batch": batch_frame,
            "g1_batch": batch_frame}


def outcome_is(rows: pd.DataFrame, wanted: str, columns: list[str], what: str = "cells") -> Verdict:
    """Each search row (from `searched`) has the wanted outcome ("found" or "lost"); a failed or missing
    search is not judged."""
    return every(rows, lambda r: None if not r["judged"] else r["outcome"] == wanted, columns, what)


def check_all(claims: Iterable[Claim], ours: dict[str, Any], article: dict[str, Any] | None = None
              ) -> list[tuple[Claim, Verdict, Verdict | None]]:
    """Every claim's verdict on this machine's data and, given them, on the article's own figures."""
    return [(claim, claim.check(**ours), claim.check(**article) if article is not None else None)
            for claim in claims]
