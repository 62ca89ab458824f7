"""Crossovers along the live-set continuum: where one strategy stops beating another, and where a
cell starts losing packets.

Sizes are measured at a few points, so a crossover is known to lie between two of them: it is
given as that bracket (the last size on one side, the first on the other) and as their geometric
midpoint, the sizes being spaced geometrically. A pair whose order never changes over the sizes
measured has no crossover, and says on which side it stayed. A line that changes back at a larger
size (a run's noise, or a real second change) has no single crossover: it says where it changed
back, and is not compared with another measurement of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from allocorpool import effects
from allocorpool.analysis import blocks


@dataclass(frozen=True)
class Crossover:
    before: int | None  # the last size where the first condition held (None: it never held)
    after: int | None  # the first size after it where it no longer did (None: it held everywhere)
    again: tuple[int, ...] = ()  # the larger sizes where it held again after `after`

    @property
    def single(self) -> bool:
        """Whether the line changed at most once over the sizes measured."""
        return not self.again

    @property
    def at(self) -> float | None:
        """The geometric midpoint of the bracket; None where there is no single crossover."""
        if self.before is None or self.after is None or not self.single:
            return None
        return math.sqrt(self.before * self.after)

    def describe(self, holds: str, fails: str) -> str:
        if self.before is None and self.after is None:
            return "not measured"
        if not self.single:
            start = f"{holds} up to {self.before:,}, " if self.before is not None else ""
            return (f"{start}{fails} at {self.after:,} but {holds} again at "
                    f"{', '.join(f'{size:,}' for size in self.again)}: no single crossover")
        if self.after is None:
            return f"{holds} at every size measured"
        if self.before is None:
            return f"{fails} from the smallest size measured"
        return f"{holds} up to {self.before:,}, {fails} from {self.after:,}"

    def may_meet(self, other: Crossover) -> bool | None:
        """Whether two measurements of the same crossover (on different grids of sizes, or different
        runs) can be at the same size: their brackets (last size holding, first size failing] overlap,
        a bracket with no lower end starting at 0 and one with no upper end going on for ever. None
        where either was not measured or has no single crossover."""
        if (self.before is None and self.after is None) or (other.before is None and other.after is None):
            return None
        if not (self.single and other.single):
            return None
        low = max(self.before or 0, other.before or 0)
        return low < min(math.inf if self.after is None else self.after,
                         math.inf if other.after is None else other.after)


def first_change(sizes: pd.Series, holds: pd.Series) -> Crossover:
    """Where a condition, true at the small sizes, stops holding: the first size (in increasing order)
    where it is false after the sizes where it was true, and the larger sizes where it holds again.
    Sizes with no verdict (NaN: a failed run) are skipped."""
    known = pd.DataFrame({"size": sizes, "holds": holds}).dropna().sort_values("size")
    if known.empty:
        return Crossover(None, None)
    last_true, first_false, again = None, None, []
    for size, held in zip(known["size"].astype(int).tolist(), known["holds"]):
        if first_false is None and held:
            last_true = size
        elif first_false is None:
            first_false = size
        elif held:
            again.append(size)
    return Crossover(last_true, first_false, tuple(again))


def order(curves: pd.DataFrame, faster: str, slower: str) -> pd.DataFrame:
    """At each size with both strategies, whether `faster` takes less time than `slower`: the ratio of their
    medians with its interval over the block's repetitions (analysis.blocks.compare), as an outcome (holds,
    fails, no difference measured, or not measured where a size has a single run of each). curves: a row per
    (strategy, size) with the block columns (boot_samples) where measured as blocks."""
    rows = []
    for size, part in curves.groupby("size"):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        if faster in by and slower in by and _known(by[faster]) and _known(by[slower]):
            rows.append({"size": int(size), "outcome": blocks.compare(by[faster], by[slower]).outcome()})
    return pd.DataFrame(rows, columns=["size", "outcome"])


def _known(row: dict) -> bool:
    value = row.get("ns_per_packet")
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def beats(curves: pd.DataFrame, faster: str, slower: str) -> Crossover:
    """Where `faster` stops taking less time than `slower` (order): the sizes where a ratio decided, holding
    or failing; sizes with no difference measured, or a single run of each, are skipped."""
    decided = order(curves, faster, slower)
    decided = decided[decided["outcome"].isin([effects.HOLDS, effects.FAILS])]
    return first_change(decided["size"], decided["outcome"] == effects.HOLDS)
