"""The real-time search: the smallest source interval at which a cell loses nothing.

A probe is one real-time run at one interval. Its verdict (`verdict`) is loss-free only when the
run ended ok, lost nothing after the warm-up and kept up: a consumer slower than the clock that
has not yet overflowed the input queue loses nothing, but it processed fewer packets than the
ticks that came due, so a probe must also show measured_packets >= measured_ticks_due - one
queue's capacity.

The search (`find_interval`), as the article's tables need it:
- It brackets by doubling from a first guess (a little above the batch time per packet, below
  which no interval can keep up), and takes 1000 ns, the article's reference interval, as one of
  the bracket's steps when the doubling passes it. Below a lossy probe nothing is probed: a cell
  that loses at 1000 ns is searched only above it.
- It bisects (geometrically, on the grid the tables print: two significant digits, never finer
  than 10 ns) until the loss-free interval is within `resolution` (10 %) of a lossy one. Finer is
  noise: some of the article's searches at full size hold a loss-free probe below a lossy one of
  the same length, most of them less than 1.2 x apart, and each halving of the resolution below
  10 % costs a search one more probe.
- It confirms the interval found with a longer probe (`confirm_s`: long enough to contain the
  cell's slowest collection at least twice); a confirmation that loses sends the search above it,
  with probes as long as the confirmation (the short ones cannot see what lost). Above an interval
  found lossy again it gallops, in steps of 1.1, 1.21, 1.46, 2.14 ... (the last squared), then
  bisects the last step to the resolution: of those 72 searches, 22 found their interval again
  above a lost confirmation or repeat, a median 1.18 x higher and 18 of them within 1.35 x, where
  doubling and bisecting to two digits cost four to six probes as long as the confirmation.
- The interval found rests on two loss-free probes: the confirmation, or where none runs (C++, a
  collection that a probe already holds twice, a profile that does not confirm) the same probe
  again (repetition 1). One probe whose pauses all happened to fit the queue decided a verdict
  that its neighbours contradicted (quick Parallel pooling B kept up at 1000 ns behind a 21 ms
  pause in a 21.74 ms queue, and lost at 990 ns behind 32 ms). A repeat that loses makes that
  interval lossy, and the search goes on above it, galloping then bisecting as above, but from
  then on it believes a loss-free probe only once its repeat is loss-free too (believing the next
  single probe walked the search up one step per repeat). The loss at 1000 ns is then the repeat's.
- Where no interval up to the largest is loss-free, the result is the loss at 1000 ns (reusing the
  probe made there).
- A probe that crashed or timed out is a failure, never a loss: it is retried once, and a second
  failure ends the search as failed, with the probe's error. A replay (nothing runs) that lacks a
  probe ends the search as missing.
`probe` is any callable (interval_ns, duration_s, repetition) -> Probe, so the search runs without an
engine in tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from allocorpool.data.records import MISSING
from allocorpool.data.tables import LATENCY_FIELDS, value
from allocorpool.profiles import RESOLUTION

REFERENCE_NS = 1000
MIN_STEP_NS = 10
SIGNIFICANT_DIGITS = 2
OUTCOMES = ("found", "lost", "failed", "missing")  # missing: a replay of a store that lacks a probe
PROBE_COLUMNS = ["interval_ns", "duration_s", "ok", "status", "lost", "lost_pct", "kept_up", "error",
                 *LATENCY_FIELDS, "purpose", "attempt", "repetition"]


@dataclass(frozen=True)
class Probe:
    """One real-time run at one interval, judged by `verdict`."""

    interval_ns: int
    duration_s: float
    ok: bool  # loss-free: ended ok, lost nothing after warm-up and kept up
    status: str = "ok"  # the run's own status: ok, error or timeout
    lost: int | None = None  # ticks lost after warm-up
    lost_pct: float | None = None
    kept_up: bool | None = None
    error: str | None = None
    # The window's metered latency; None where the run measured none (an engine build before metering).
    latency_p50_ns: int | None = None
    latency_p99_ns: int | None = None
    latency_p999_ns: int | None = None
    latency_max_ns: int | None = None


ProbeFn = Callable[[int, float, int], Probe]  # (interval_ns, duration_s, repetition): 0 first, 1 its repeat


def measured_loss(summary: Mapping[str, Any]) -> tuple[int | None, float | None]:
    """Ticks lost after warm-up and their share of the ticks, as the engine counted them
    (`lost_measured` includes the gaps found while draining the queue and the drops after the last
    tick received)."""
    lost = summary.get("lost_measured")
    if lost is None or (isinstance(lost, float) and math.isnan(lost)):
        return None, None
    seen = int(lost) + int(summary.get("measured_packets") or 0)
    return int(lost), (int(lost) * 100 / seen if seen else None)


def metered_latency(summary: Mapping[str, Any]) -> dict[str, int | None]:
    """The summary's latency fields, None where it has none."""
    values = {}
    for name in LATENCY_FIELDS:
        value = summary.get(name)
        values[name] = None if value is None or (isinstance(value, float) and math.isnan(value)) else int(value)
    return values


def kept_up(summary: Mapping[str, Any], interval_ns: int, queue_capacity: int | None) -> bool | None:
    """Whether the consumer processed at least the ticks due in the window less one queue's
    capacity; None where the summary cannot tell."""
    packets = summary.get("measured_packets")
    due = summary.get("measured_ticks_due")
    if due is None or (isinstance(due, float) and math.isnan(due)):
        seconds = summary.get("measured_s")
        if seconds is None:
            return None
        due = math.floor(float(seconds) * 1e9 / interval_ns)
    if packets is None or queue_capacity is None:
        return None
    return int(packets) >= int(due) - int(queue_capacity)


def verdict(status: str, summary: Mapping[str, Any], interval_ns: int, duration_s: float,
            queue_capacity: int | None, error: str | None = None) -> Probe:
    """A probe's result from its run's status and summary."""
    lost, lost_pct = measured_loss(summary) if status == "ok" else (None, None)
    up = kept_up(summary, interval_ns, queue_capacity) if status == "ok" else None
    ok = status == "ok" and lost == 0 and up is True
    latency = metered_latency(summary) if status == "ok" else {}
    return Probe(interval_ns=interval_ns, duration_s=duration_s, ok=ok, status=status, lost=lost, lost_pct=lost_pct,
                 kept_up=up, error=error, **latency)


def probe_verdict(row: Mapping[str, Any], interval_ns: int, duration_s: float) -> Probe:
    """`verdict` on a real-time cell's index row."""
    capacity = value(row, "params_input_queue_size")
    return verdict(row["status"], {name: value(row, name) for name in (
        "lost_measured", "measured_packets", "measured_ticks_due", "measured_s", *LATENCY_FIELDS)}, interval_ns,
        duration_s, int(capacity) if capacity is not None else None, value(row, "error"))


def step_ns(interval_ns: float, digits: int = SIGNIFICANT_DIGITS) -> int:
    """The resolution the tables print at this interval: two significant digits, at least 10 ns."""
    if interval_ns <= 0:
        return MIN_STEP_NS
    return max(MIN_STEP_NS, 10 ** (math.floor(math.log10(interval_ns)) - (digits - 1)))


def on_grid(interval_ns: float, digits: int = SIGNIFICANT_DIGITS) -> int:
    """The interval rounded up to the printed resolution."""
    step = step_ns(interval_ns, digits)
    return int(math.ceil(interval_ns / step - 1e-9) * step)


def slowest_collection_period_s(events: pd.DataFrame, start_s: float, end_s: float) -> float | None:
    """How often a batch run's slowest kind of collection came in its measured window: the mean time
    between two of the window's pauses of the kind (its first two words, "Pause Full", "Pause Young",
    ...) whose longest pause is the longest of the window's; None where that kind came less than
    twice. events: the run's GC events on its own clock (`t_s`, gclog.align). Only the window counts:
    the fill phase's collections and those the engine itself forces after the run (the live-object
    count's System.gc() and heap histogram, a few ms apart) are the longest pauses of many runs, and
    gave a period of a tenth of a second to a cell whose real full collections came every 6 s. A window
    of young collections only says nothing of when the old generation fills: None too (a short batch
    window of young pauses, in a cell whose full collections come every few seconds in real time)."""
    pauses = events[(events["kind"] == "pause") & (events["t_s"] >= start_s) & (events["t_s"] <= end_s)] \
        if len(events) else events
    if not len(pauses):
        return None
    kinds = pauses["name"].str.split().str[:2].str.join(" ")
    if (kinds == "Pause Young").all():
        return None
    slowest = pauses.groupby(kinds)["duration_ms"].max().idxmax()
    starts = pauses.loc[kinds == slowest, "t_s"].astype(float).sort_values()
    if len(starts) < 2:
        return None
    return float(starts.iloc[-1] - starts.iloc[0]) / (len(starts) - 1)


@dataclass
class SearchResult:
    outcome: str  # one of OUTCOMES
    good_interval_ns: int | None  # the smallest loss-free interval (outcome "found")
    reference_ns: int
    loss_pct_at_reference: float | None  # where no interval is loss-free; None when not measured
    probes: pd.DataFrame  # every probe in order, with its purpose and attempt
    error: str | None = None  # outcome "failed": the failed probe's error

    @property
    def lost_everywhere(self) -> bool:
        return self.outcome == "lost"

    def latency_at_interval(self) -> dict[str, Any]:
        """The metered latency of the probe that proved the interval found (its longest loss-free probe
        there: the confirmation where there is one); None values where nothing was found or metered."""
        none = dict.fromkeys(LATENCY_FIELDS)
        if self.outcome != "found" or not len(self.probes):
            return none
        there = self.probes[(self.probes["interval_ns"] == self.good_interval_ns) & self.probes["ok"].astype(bool)]
        if not len(there):
            return none
        proof = there.loc[there["duration_s"].astype(float).idxmax()]
        return {name: None if pd.isna(proof[name]) else int(proof[name]) for name in LATENCY_FIELDS}


def loses_at_reference(row: Mapping[str, Any]) -> bool | None:
    """Whether a search's cell loses packets at 1000 ns, the interval the article judged real time by: no
    loss-free interval, or one above 1000 ns; None where the search failed or is missing."""
    if row.get("outcome") == "lost":
        return True
    if row.get("outcome") == "found":
        return bool(row["interval_ns"] > REFERENCE_NS)
    return None


class _ProbeFailed(Exception):
    def __init__(self, probe: Probe) -> None:
        super().__init__(probe.error or probe.status)
        self.probe = probe


def find_interval(probe: ProbeFn, *, probe_s: float, high_ns: int, batch_ns: float | None = None,
                  low_ns: int = 20, start_factor: float = 1.5, confirm_s: Callable[[int], float] | None = None,
                  reference_ns: int = REFERENCE_NS, digits: int = SIGNIFICANT_DIGITS,
                  resolution: float = RESOLUTION) -> SearchResult:
    """Smallest loss-free interval in (batch_ns or low_ns, high_ns], on the grid of `digits` significant
    digits, within `resolution` of a lossy one."""
    if not 0 < low_ns < high_ns or probe_s <= 0 or start_factor <= 1 or resolution <= 0:
        raise ValueError("need 0 < low_ns < high_ns, probe_s > 0, start_factor > 1 and resolution > 0")
    search = _Search(probe, probe_s=probe_s, high_ns=high_ns, confirm_s=confirm_s,
                     reference_ns=reference_ns, digits=digits, resolution=resolution)
    floor = max(low_ns, math.floor(batch_ns)) if batch_ns else low_ns  # known not to keep up
    try:
        lossy, good = search.bracket(floor, on_grid(min(max(floor * start_factor, low_ns), high_ns), digits))
        lossy, good = search.refine(lossy, good)
        if good is not None:
            return SearchResult("found", good, reference_ns, None, search.frame())
        return SearchResult("lost", None, reference_ns, search.lossy_at_reference(), search.frame())
    except _ProbeFailed as failure:
        outcome = MISSING if failure.probe.status == MISSING else "failed"
        return SearchResult(outcome, None, reference_ns, None, search.frame(),
                            error=failure.probe.error or f"probe at {failure.probe.interval_ns} ns: "
                                                         f"{failure.probe.status}")


class _Search:
    """One search's probes, as find_interval's phases ask for them: each (interval, length, repetition) runs
    once, a failed run is retried once, and every attempt is logged with its purpose."""

    def __init__(self, probe: ProbeFn, *, probe_s: float, high_ns: int,
                 confirm_s: Callable[[int], float] | None, reference_ns: int, digits: int, resolution: float) -> None:
        self.probe, self.probe_s, self.high_ns = probe, probe_s, high_ns
        self.confirm_s, self.reference_ns, self.digits, self.resolution = confirm_s, reference_ns, digits, resolution
        self.log: list[dict[str, Any]] = []
        self.results: dict[tuple[int, float, int], Probe] = {}
        self.duration = probe_s  # a failed confirmation makes every later probe as long as it
        self.strict = False  # after a repeat lost: a loss-free probe counts only once its repeat is loss-free too

    def run(self, interval: int, duration: float, purpose: str, repetition: int = 0) -> Probe:
        if (interval, duration, repetition) in self.results:
            return self.results[(interval, duration, repetition)]
        for attempt in (1, 2):
            result = self.probe(interval, duration, repetition)
            self.log.append({**asdict(result), "purpose": purpose, "attempt": attempt, "repetition": repetition})
            if result.status == "ok":
                self.results[(interval, duration, repetition)] = result
                return result
            if result.status == MISSING:
                break
        raise _ProbeFailed(result)

    def frame(self) -> pd.DataFrame:
        return _frame(self.log)

    def keeps_up(self, interval: int, purpose: str) -> bool:
        if not self.run(interval, self.duration, purpose).ok:
            return False
        return not self.strict or self.run(interval, self.duration, "repeat", repetition=1).ok

    def bracket(self, lossy: int, guess: int) -> tuple[int, int | None]:
        """Doubling from the first guess, taking the reference interval on the way, until a probe keeps up
        or the largest interval loses."""
        while True:
            if lossy < self.reference_ns < guess and (self.reference_ns, self.probe_s, 0) not in self.results:
                guess = self.reference_ns
            purpose = "reference" if guess == self.reference_ns else "bracket"
            if self.run(guess, self.probe_s, purpose).ok:
                return lossy, guess
            if guess >= self.high_ns:
                return lossy, None
            lossy, guess = guess, on_grid(min(guess * 2, self.high_ns), self.digits)

    def refine(self, lossy: int, good: int | None) -> tuple[int, int | None]:
        """Bisect to the resolution, then prove the interval found by a confirmation or a repeat; where
        that loses, bracket again above it and go on."""
        while good is not None:
            lossy, good = self.bisect(lossy, good)
            long_s = max(self.duration, self.confirm_s(good)) if self.confirm_s is not None else self.duration
            if long_s > self.duration:
                if self.run(good, long_s, "confirm").ok:
                    break
                self.duration = long_s  # a rare long collection lost packets: search above with long probes
            elif self.run(good, self.duration, "repeat", repetition=1).ok:
                break
            else:
                self.strict = True
            lossy, good = self.above(good)
        return lossy, good

    def bisect(self, lossy: int, good: int) -> tuple[int, int]:
        """Geometric bisection on the grid until the loss-free interval is within the resolution of a lossy one."""
        while good > lossy * (1 + self.resolution) + 1e-9 and good - lossy > step_ns(lossy, self.digits):
            middle = on_grid(math.sqrt(lossy * good), self.digits)
            if not lossy < middle < good:
                break
            if self.keeps_up(middle, "bisect"):
                good = middle
            else:
                lossy = middle
        return lossy, good

    def above(self, lossy: int) -> tuple[int, int | None]:
        """The bracket above an interval found lossy again: galloping by the resolution's step, squared
        each time, up to the largest interval."""
        ratio = 1 + self.resolution
        while True:
            guess = on_grid(min(lossy * ratio, self.high_ns), self.digits)
            if guess <= lossy:
                return lossy, None
            if self.keeps_up(guess, "bracket"):
                return lossy, guess
            lossy, ratio = guess, ratio * ratio
            if guess >= self.high_ns:
                return lossy, None

    def lossy_at_reference(self) -> float | None:
        """The loss at the reference interval of a search that found no interval: its first probe's, unless
        that probe kept up where the search's later probes were longer (a failed confirmation) or repeated
        (a lossy repeat). Then the loss is measured as they were, so that a figure of 0 % never stands for
        a cell that loses: at their length (None where a replayed store lacks that probe), or repeated."""
        first = self.run(self.reference_ns, self.probe_s, "reference")
        if first.ok and self.duration > self.probe_s:
            try:
                return self.run(self.reference_ns, self.duration, "reference").lost_pct
            except _ProbeFailed as failure:
                if failure.probe.status != MISSING:
                    raise
                return None
        if first.ok and self.strict:  # a loss-free probe that a lossy repeat may contradict
            return self.run(self.reference_ns, self.probe_s, "repeat", repetition=1).lost_pct
        return first.lost_pct


def _frame(log: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(log, columns=PROBE_COLUMNS)
