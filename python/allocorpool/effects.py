"""Figures with their spread, comparisons as effect sizes, and the one set of verdict outcomes.

A figure is the median of a block's repetitions with a 95 % bootstrap interval; a comparison is the
ratio of two medians (e.g. pooling's time per packet over allocation's) with its 95 % bootstrap
interval, resampling each side's repetitions (the level that varies: one repetition is one process).
A claim "X beats Y" holds where the whole interval lies below parity by MARGIN, fails where it lies
wholly above parity by MARGIN (Y beats X), and otherwise reads "undecided". A claim over
many cells counts the three outcomes, never a bare majority. Kalibera and Jones, "Rigorous
Benchmarking in Reasonable Time" (ISMM 2013) give the method; scipy.stats.bootstrap does the resampling,
with a pinned seed so that a replay of the same store prints the same intervals.

Where several boots measured the same comparison, the boot is a level that varies too: the effect over
boots is the geometric mean of the boots' ratios (the mean of their differences), and its interval comes
from resampling at each level, the boots with replacement and then each chosen boot's repetitions (Kalibera
and Jones, "Quantifying performance changes with effect size confidence intervals", 2012). A verdict over
boots therefore holds only where the boots agree on its direction by more than their spread.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats

CONFIDENCE = 0.95
MARGIN = 0.05  # a ratio must clear parity by this much, at the far end of its interval, to decide


def pct(share: float, digits: int = 0) -> str:
    """A share as the article prints a percentage: '5 %', with a space before the sign."""
    return f"{share * 100:.{digits}f} %"

RESAMPLES = 4999
SEED = 2019  # the bootstrap's random state: pinned, so a replay prints the same intervals
HOLDS, FAILS, NO_DIFFERENCE, NOT_MEASURED = "holds", "fails", "undecided", "not measured"
# Equal within the margin: an equivalence test decided it (analysis.model's verdicts; two one-sided tests)
EQUAL = "equal within the margin"
OUTCOMES = (HOLDS, FAILS, EQUAL, NO_DIFFERENCE, NOT_MEASURED)
MIXED = "mixed"  # a claim over several comparisons that came out both ways (Tally.outcome)
# How the boots that measured one comparison agree: AGREE (every boot that decided it decided it alike),
# DISAGREE (some boots' intervals clear the margin and others' do not) or OPPOSE (one boot holds where
# another fails: the direction itself moved between boots).
AGREE, DISAGREE, OPPOSE = "", "disagree", "opposite"
# How a verdict reads in a chapter's claims table.
WORDS = {HOLDS: "holds", FAILS: "does not hold", EQUAL: EQUAL, NO_DIFFERENCE: NO_DIFFERENCE,
         NOT_MEASURED: "cannot tell", MIXED: "partly"}
# How the outcome of "X beats Y" reads where a table names X against Y: X is faster, slower, equal or undecided.
FASTER_WORDS = {HOLDS: "faster", FAILS: "slower", EQUAL: EQUAL, NO_DIFFERENCE: NO_DIFFERENCE,
                NOT_MEASURED: NOT_MEASURED}


@dataclass(frozen=True)
class Verdict:
    """What this machine's data says of a claim, in every chapter and side study."""

    outcome: str  # one of OUTCOMES, or MIXED
    summary: str  # "in 16 of 18 cells", "holds in 3, fails in 1 of 4 pairs", the effect with its interval ...
    cells: pd.DataFrame = field(default_factory=pd.DataFrame)  # the rows that decide it; those against it first
    rule: str = ""  # how it was decided, where the check chose between rules (else the claim's own)
    claim: str = ""  # the claim itself, where the verdict is shown without a Claim beside it

    @property
    def holds(self) -> bool | None:
        return None if self.outcome == NOT_MEASURED else self.outcome == HOLDS

    @property
    def words(self) -> str:
        return WORDS[self.outcome]
BELOW = 1 / (1 + MARGIN)  # a ratio wholly under this: the numerator is faster by the margin
ABOVE = 1 + MARGIN  # wholly over this: the denominator is faster by the margin


@dataclass(frozen=True)
class Spread:
    """The median of some repetitions and its 95 % interval (low = high = median for one value)."""

    median: float
    low: float
    high: float
    n: int

    def text(self, unit: str = "") -> str:
        """'212 ns (190-240)', with as many digits as the interval supports."""
        if self.n == 0 or math.isnan(self.median):
            return "not measured"
        digits = _digits(self.low, self.high, self.median)
        middle = f"{_fmt(self.median, digits)}{' ' + unit if unit else ''}"
        if self.n < 2:
            return f"{middle} (one run)"
        return f"{middle} ({_fmt(self.low, digits)}-{_fmt(self.high, digits)})"


@dataclass(frozen=True)
class Effect:
    """The ratio of two medians with its 95 % interval; n_num and n_den: the repetitions behind each side."""

    ratio: float
    low: float
    high: float
    n_num: int
    n_den: int
    boots: int = 1  # how many boots' repetitions the interval resamples (over_boots)

    @property
    def measured(self) -> bool:
        return self.n_num >= 2 and self.n_den >= 2 and not math.isnan(self.ratio)

    def outcome(self, threshold: float = 1.0) -> str:
        """Whether the numerator beats the denominator (a smaller figure is better: time per packet), or its
        ratio stays under threshold (1: parity; 1.25: 'within 25 %')."""
        return decide(self, threshold)

    def text(self) -> str:
        """'0.62 x (0.55-0.70)': the ratio and its interval, with the digits the interval supports."""
        if not self.measured:
            return "not measured" if math.isnan(self.ratio) else f"{self.ratio:.2f} x (too few runs)"
        digits = max(2, _digits(self.low, self.high, self.ratio))
        return f"{_fmt(self.ratio, digits)} x ({_fmt(self.low, digits)}-{_fmt(self.high, digits)})"

    def margin_text(self) -> str:
        """How much faster the numerator is, in percent of the denominator's time, with its interval:
        '38 % faster (30-45)'; 'undecided (-3 to +8 %)' when the interval does not decide."""
        if not self.measured:
            return self.text()
        outcome = self.outcome()
        if outcome == HOLDS:
            return f"{_pct(1 - self.ratio)} % faster ({_pct(1 - self.high)}-{_pct(1 - self.low)})"
        if outcome == FAILS:
            return f"{_pct(1 - 1 / self.ratio)} % slower ({_pct(1 - 1 / self.low)}-{_pct(1 - 1 / self.high)})"
        return f"undecided ({self.text()})"


def _pct(share: float) -> str:
    return f"{100 * share:.0f}"


def _digits(low: float, high: float, middle: float) -> int:
    """Decimal places that give the interval's half-width two significant digits (none below 0)."""
    half = (high - low) / 2
    if not half > 0 or not math.isfinite(half):
        return 1 if abs(middle) < 10 else 0
    return max(0, 1 - math.floor(math.log10(half)))


def _fmt(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}"


def _clean(values: Iterable[float | None]) -> np.ndarray:
    """The finite numbers among values (None, NaN and pandas' NA left out)."""
    array = pd.to_numeric(pd.Series(list(values), dtype=object), errors="coerce").to_numpy(dtype=float)
    return array[np.isfinite(array)]


def spread(values: Iterable[float | None]) -> Spread:
    """The median of the finite values with its 95 % percentile-bootstrap interval."""
    return _spread(tuple(_clean(values).tolist()))


@lru_cache(maxsize=4096)
def _spread(values: tuple[float, ...]) -> Spread:
    """spread() of values already cleaned: the bootstrap's seed is pinned, so one set of values always has one
    interval, and a chapter that asks again (a boot beside each other boot, say) reads it back."""
    data = np.asarray(values, dtype=float)
    if len(data) == 0:
        return Spread(math.nan, math.nan, math.nan, 0)
    median = float(np.median(data))
    if len(data) < 2 or np.ptp(data) == 0:
        return Spread(median, median, median, len(data))
    result = stats.bootstrap((data,), np.median, confidence_level=CONFIDENCE, n_resamples=RESAMPLES,
                             method="percentile", random_state=np.random.default_rng(SEED))
    interval = result.confidence_interval
    return Spread(median, float(interval.low), float(interval.high), len(data))


def _ratio_of_medians(numerator: np.ndarray, denominator: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(numerator, axis=axis) / np.median(denominator, axis=axis)


def ratio(numerator: Iterable[float | None], denominator: Iterable[float | None]) -> Effect:
    """median(numerator) / median(denominator) with its 95 % bootstrap interval, each side resampled
    apart (the repetitions of two cells are independent processes)."""
    num, den = _clean(numerator), _clean(denominator)
    if len(num) == 0 or len(den) == 0 or np.median(den) == 0:
        return Effect(math.nan, math.nan, math.nan, len(num), len(den))
    point = float(np.median(num) / np.median(den))
    if len(num) < 2 or len(den) < 2:
        return Effect(point, point, point, len(num), len(den))
    if np.ptp(num) == 0 and np.ptp(den) == 0:
        return Effect(point, point, point, len(num), len(den))
    result = stats.bootstrap((num, den), _ratio_of_medians, confidence_level=CONFIDENCE, n_resamples=RESAMPLES,
                             method="percentile", vectorized=True, paired=False,
                             random_state=np.random.default_rng(SEED))
    interval = result.confidence_interval
    return Effect(point, float(interval.low), float(interval.high), len(num), len(den))


@dataclass(frozen=True)
class Difference:
    """median(a) - median(b) with its 95 % interval: for figures that can be zero, where a ratio cannot be
    taken (the share of packets a real-time probe lost). A smaller figure is better."""

    diff: float
    low: float
    high: float
    n_a: int
    n_b: int
    boots: int = 1  # how many boots' probes the interval resamples (over_boots)

    @property
    def measured(self) -> bool:
        return self.n_a >= 2 and self.n_b >= 2 and not math.isnan(self.diff)

    def outcome(self) -> str:
        """HOLDS where the whole interval lies below zero (a loses less), FAILS where it lies above, else
        NO_DIFFERENCE; NOT_MEASURED with fewer than two figures a side. No margin: a loss is either there
        in every resample or it is not."""
        if not self.measured:
            return NOT_MEASURED
        return HOLDS if self.high < 0 else FAILS if self.low > 0 else NO_DIFFERENCE

    def text(self, unit: str = "points", least_digits: int = 2) -> str:
        """'-0.12 points (-0.30 to -0.05)': the digits the interval supports, at least least_digits (a share
        of packets keeps two; a time in ns may take none: '+189 ns (+67 to +373)')."""
        if not self.measured:
            return "not measured" if math.isnan(self.diff) else "too few runs"
        digits = max(least_digits, _digits(self.low, self.high, self.diff))
        return f"{self.diff:+.{digits}f} {unit} ({self.low:+.{digits}f} to {self.high:+.{digits}f})"


def _difference_of_medians(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(a, axis=axis) - np.median(b, axis=axis)


def difference(a: Iterable[float | None], b: Iterable[float | None]) -> Difference:
    """median(a) - median(b) with its 95 % bootstrap interval, each side resampled apart."""
    left, right = _clean(a), _clean(b)
    if len(left) == 0 or len(right) == 0:
        return Difference(math.nan, math.nan, math.nan, len(left), len(right))
    point = float(np.median(left) - np.median(right))
    if len(left) < 2 or len(right) < 2 or (np.ptp(left) == 0 and np.ptp(right) == 0):
        return Difference(point, point, point, len(left), len(right))
    result = stats.bootstrap((left, right), _difference_of_medians, confidence_level=CONFIDENCE,
                             n_resamples=RESAMPLES, method="percentile", vectorized=True, paired=False,
                             random_state=np.random.default_rng(SEED))
    interval = result.confidence_interval
    return Difference(point, float(interval.low), float(interval.high), len(left), len(right))


def _over_boots(pairs: Sequence[tuple[np.ndarray, np.ndarray]], statistic, pool) -> tuple[float, float]:
    """The 95 % percentile interval of pool(each boot's statistic), resampling at each level: the boots
    with replacement, then each chosen boot's two samples apart."""
    rng = np.random.default_rng(SEED)
    k = len(pairs)
    chosen = rng.integers(0, k, size=(RESAMPLES, k))
    values = np.empty((RESAMPLES, k))
    for j, (a, b) in enumerate(pairs):
        where = chosen == j
        count = int(where.sum())
        if count:
            values[where] = statistic(a[rng.integers(0, len(a), size=(count, len(a)))],
                                      b[rng.integers(0, len(b), size=(count, len(b)))], axis=1)
    pooled = pool(values, axis=1)
    low, high = np.percentile(pooled, [100 * (1 - CONFIDENCE) / 2, 100 * (1 + CONFIDENCE) / 2])
    return float(low), float(high)


def geometric_mean(values: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.exp(np.mean(np.log(values), axis=axis))


def _pooled(by_boot: Sequence[tuple[Iterable[float | None], Iterable[float | None]]], statistic, pool,
            positive: bool) -> tuple[float, float, float, int, int, int] | None:
    """(point, low, high, figures a side, boots) of pool(each boot's statistic) over the boots with at least two
    figures a side (positive ones, for a ratio); None with fewer than two such boots."""
    pairs = [(_clean(a), _clean(b)) for a, b in by_boot]
    pairs = [(a, b) for a, b in pairs if len(a) >= 2 and len(b) >= 2 and (not positive or min(a.min(), b.min()) > 0)]
    if len(pairs) < 2:
        return None
    point = float(pool(np.array([statistic(a, b, axis=-1) for a, b in pairs]), axis=0))
    low, high = _over_boots(pairs, statistic, pool)
    return point, min(low, point), max(high, point), sum(len(a) for a, _ in pairs), sum(len(b) for _, b in pairs), \
        len(pairs)


def _one_boot(by_boot: Sequence[tuple[Iterable[float | None], Iterable[float | None]]]) -> tuple:
    """The boot a comparison falls back on: the last with at least two figures a side, else the last."""
    decided = [(a, b) for a, b in by_boot if len(_clean(a)) >= 2 and len(_clean(b)) >= 2]
    return (decided or list(by_boot))[-1]


def ratio_over_boots(by_boot: Sequence[tuple[Iterable[float | None], Iterable[float | None]]]) -> Effect:
    """The ratio of medians over several boots (each boot's (numerator, denominator) repetitions): the
    geometric mean of the boots' ratios, its interval resampling boots and then repetitions. With one boot
    that can be decided, its ratio; with none, the last boot's."""
    pooled = _pooled(by_boot, _ratio_of_medians, geometric_mean, positive=True)
    if pooled is None:
        return ratio(*_one_boot(by_boot)) if by_boot else Effect(math.nan, math.nan, math.nan, 0, 0)
    return Effect(*pooled)


def difference_over_boots(by_boot: Sequence[tuple[Iterable[float | None], Iterable[float | None]]]) -> Difference:
    """The difference of medians over several boots: the mean of the boots' differences, its interval
    resampling boots and then probes. With one boot that can be decided, its difference; with none, the
    last boot's."""
    pooled = _pooled(by_boot, _difference_of_medians, np.mean, positive=False)
    if pooled is None:
        return difference(*_one_boot(by_boot)) if by_boot else Difference(math.nan, math.nan, math.nan, 0, 0)
    return Difference(*pooled)


def decide(effect: Effect, threshold: float = 1.0) -> str:
    """HOLDS where the whole interval lies below threshold x BELOW (under it by the margin), FAILS where it
    lies wholly above threshold x ABOVE, NO_DIFFERENCE otherwise, NOT_MEASURED with fewer than two runs a
    side."""
    if not effect.measured:
        return NOT_MEASURED
    return _side(effect.low, effect.high, threshold)


def decide_point(value: float | None, threshold: float = 1.0) -> str:
    """The same rule for a ratio known only as one figure (the 2019 article's tables: one run each): its
    margin still applies, but no interval says how far the figure could move."""
    if value is None or not math.isfinite(value):
        return NOT_MEASURED
    return _side(value, value, threshold)


def _side(low: float, high: float, threshold: float) -> str:
    if high < threshold * BELOW:
        return HOLDS
    if low > threshold * ABOVE:
        return FAILS
    return NO_DIFFERENCE


def all_of(outcomes: Sequence[str]) -> str:
    """The outcome of a claim that needs every part: FAILS if any part fails, HOLDS if all hold,
    NOT_MEASURED if a part is not measured and none fails, else NO_DIFFERENCE."""
    if not outcomes:
        return NOT_MEASURED
    if FAILS in outcomes:
        return FAILS
    if NOT_MEASURED in outcomes:
        return NOT_MEASURED
    return HOLDS if all(o == HOLDS for o in outcomes) else NO_DIFFERENCE


@dataclass(frozen=True)
class Tally:
    """How a claim over many cells came out: counts of each outcome, and of cells whose boots disagree."""

    holds: int
    fails: int
    no_difference: int
    not_measured: int
    flips: int = 0  # comparisons whose boots disagree (DISAGREE or OPPOSE)
    opposite: int = 0  # of those, the ones whose boots gave opposite outcomes (OPPOSE)
    equal: int = 0  # decided equal within the margin (EQUAL)

    @property
    def judged(self) -> int:
        return self.holds + self.fails + self.equal + self.no_difference

    def outcome(self) -> str:
        """HOLDS where it held everywhere judged, FAILS where it failed everywhere judged, NO_DIFFERENCE
        where nothing was decided; a mix is not an outcome: `text` counts it."""
        if self.judged == 0:
            return NOT_MEASURED
        if self.holds == self.judged:
            return HOLDS
        if self.fails == self.judged:
            return FAILS
        if self.equal == self.judged:
            return EQUAL
        if self.no_difference == self.judged:
            return NO_DIFFERENCE
        return MIXED

    def boots_text(self) -> str:
        """'boots disagree on 2, 1 of them with opposite verdicts' (empty where every boot agreed)."""
        if not self.flips:
            return ""
        opposite = f"{self.opposite} of them" if self.opposite else "none"
        return f"boots disagree on {self.flips}, {opposite} with opposite verdicts"

    def text(self, what: str = "cells", labels: Mapping[str, str] | None = None,
             unmeasured: bool = True) -> str:
        """'holds in 14, fails in 3, undecided in 7 of 24 cells (2 not measured)'; labels name the
        outcomes otherwise ({HOLDS: "faster", ...}); unmeasured=False leaves the count of the unmeasured out."""
        if self.judged == 0:
            return f"not measured in any of {self.not_measured} {what}" if self.not_measured else f"no {what}"
        named = labels or {}
        parts = [f"{named.get(outcome, outcome)} in {count}" for outcome, count in
                 ((HOLDS, self.holds), (FAILS, self.fails), (EQUAL, self.equal), (NO_DIFFERENCE, self.no_difference))
                 if count]
        text = ", ".join(parts) + f" of {self.judged} {what}".rstrip()
        extra = [f"{self.not_measured} not measured"] if self.not_measured and unmeasured else []
        extra += [self.boots_text()] if self.flips else []
        return text + (f" ({'; '.join(extra)})" if extra else "")


def agreement(outcomes: Iterable[str]) -> str:
    """How the boots' outcomes of one comparison agree: AGREE, DISAGREE or OPPOSE (unmeasured boots left out)."""
    seen = {o for o in outcomes if o != NOT_MEASURED}
    if HOLDS in seen and FAILS in seen:
        return OPPOSE
    return DISAGREE if len(seen) > 1 else AGREE


# How the boots that measured one comparison disagree, in the words every table and sentence uses.
AGREEMENT_WORDS = {DISAGREE: "decided in some boots, not in others", OPPOSE: "opposite verdicts in different boots"}


def boots_words(how: str) -> str:
    """A verdict's note on its boots, in brackets: nothing where they agree."""
    return f" ({AGREEMENT_WORDS[how]})" if how in AGREEMENT_WORDS else ""


def tally_table(table: pd.DataFrame) -> Tally:
    """The tally of a table of comparisons: its outcome column, and its boots column (DISAGREE or OPPOSE where
    the boots that measured a row disagree)."""
    return tally_agreements(table["outcome"], table["boots"] if "boots" in table else ())


def tally_of(comparisons: Iterable) -> Tally:
    """The tally of comparisons (each with outcome() and agreement, as analysis.blocks' comparisons have)."""
    listed = list(comparisons)
    return tally_agreements([c.outcome() for c in listed], [c.agreement for c in listed])


def tally_agreements(outcomes: Iterable[str], agreements: Iterable[str]) -> Tally:
    """The tally of outcomes, with how many of them the boots disagree on (agreements: DISAGREE or OPPOSE
    where they do; anything else where they agree)."""
    listed = list(agreements)
    return tally(outcomes, sum(a in (DISAGREE, OPPOSE) for a in listed), sum(a == OPPOSE for a in listed))


def tally(outcomes: Iterable[str], flips: int = 0, opposite: int = 0) -> Tally:
    listed = list(outcomes)
    unknown = [o for o in listed if o not in OUTCOMES]
    if unknown:
        raise ValueError(f"outcomes {sorted(set(unknown))}: each must be one of {', '.join(OUTCOMES)}")
    return Tally(listed.count(HOLDS), listed.count(FAILS), listed.count(NO_DIFFERENCE), listed.count(NOT_MEASURED),
                 flips, opposite, listed.count(EQUAL))
