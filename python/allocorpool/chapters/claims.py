"""The article's claims, checked against this machine's data: every chapter ends with its own.

A claim is what the article concluded, in our words, and a check: a function of the chapter's data
that gives a Verdict, whether the claim holds here, in how many of the cells it speaks of, and the
cells that decide it. Nothing is typed in: a verdict is computed, and where the data cannot tell (no
finished cell, a figure not measured) it says so instead of guessing.

The checks share a few shapes: `every` (a condition on each of some rows), `per_group` (a condition
on each (solution, case) group of strategies), and `share` to word the count.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters.tables import style

HOLDS, PARTLY, FAILS, UNKNOWN = "holds", "partly", "does not hold", "cannot tell"


@dataclass(frozen=True)
class Verdict:
    """What this machine's data says of a claim."""

    verdict: str  # HOLDS, PARTLY, FAILS or UNKNOWN
    summary: str  # "in 16 of 18 cells", "no finished cell", ...
    cells: pd.DataFrame = field(default_factory=pd.DataFrame)  # the rows that decide it; those against it first

    @property
    def holds(self) -> bool | None:
        return None if self.verdict == UNKNOWN else self.verdict == HOLDS


@dataclass(frozen=True)
class Claim:
    """One of the article's conclusions, in our words, and how the data checks it."""

    text: str
    check: Callable[..., Verdict]


def share(passed: int, total: int, what: str = "cells") -> Verdict:
    """The verdict of a condition that held in `passed` of `total` cases."""
    if total == 0:
        return Verdict(UNKNOWN, f"no {what} to check")
    verdict = HOLDS if passed == total else FAILS if passed == 0 else PARTLY
    return Verdict(verdict, f"in {passed} of {total} {what}")


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
    return Verdict(base.verdict, summary, cells.reset_index(drop=True))


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
        return Verdict(UNKNOWN, f"no {what} to check")
    return every(table, lambda r: condition(r["_figures"]),
                 [c for c in table.columns if c != "_figures"], what)


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number


def known(*values: float) -> bool:
    return all(not math.isnan(v) for v in values)


def show_claims(checked: list[tuple[Claim, Verdict]], title: str = "The article's claims on this machine") -> None:
    """A table of the claims and their verdicts, then each claim's deciding cells, folded."""
    if not checked:
        return
    table = pd.DataFrame([{"the article's claim (our words)": claim.text, "here": verdict.verdict,
                           "how often": verdict.summary} for claim, verdict in checked])
    colours = {HOLDS: "#8fd98f", PARTLY: "#ffe066", FAILS: "#ff9a9a", UNKNOWN: "#dddddd"}
    styler = style(table.set_index("the article's claim (our words)")).map(
        lambda v: f"background-color: {colours[v]}" if v in colours else "", subset=["here"])
    show.show_table(styler, caption=title)
    for claim, verdict in checked:
        if len(verdict.cells):
            show.show_details(f"The cells behind: {claim.text}", verdict.cells)
