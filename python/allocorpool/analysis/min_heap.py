"""The minimum heap of a cell, and the lower-bound overhead of each configuration against the cheapest.

DaCapo Chopin's methodology: a heap size means little on its own, so heaps are given as multiples
of the smallest heap in which the run completes, found by bisection over -Xmx. A run completes in
a heap when it ends ok; it does not when the heap is too small (the engine's failure code says it ran
out of memory or, under --stop-when-heap-full, filled the heap; the JVM died of it or refused to start
with that heap before the engine could say so) or when the collector leaves it no time to finish (a
timeout, or the engine's own fill limit: its code fill_timeout). Any other failure is the engine's, not
the heap's: the search ends as failed and says why. Near its minimum heap a run can thrash, collecting back
to back for minutes before its first measured period: once a run has fitted, the later runs' fill phase is
limited to FILL_SLOWDOWN times that run's (`fill_limit_s`), and one that takes longer does not fit.

`find_min_heap`:
- starts at the solution's own heap; where that does not complete, doubles it up to a cap;
- steps down by a factor of 4 while the heap still completes (never below a floor);
- bisects geometrically between the largest heap that does not complete and the smallest that
  does, until they are within the resolution of each other. The minimum heap is the smallest
  heap that completed.
`run` is any callable heap_mb -> HeapRun, so the search runs without an engine in tests.

`lower_bound_overhead`: for every run, its cost (wall time or CPU time per packet) over the
cheapest configuration seen for the same strategy and case (any collector, any heap; a repeated
configuration costs the median of its runs), minus one. It is a lower bound: the cheapest configuration pays for memory management too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import pandas as pd

from allocorpool.data.records import failure

FITS, TOO_SMALL, FAILED = "fits", "too small", "failed"
# The status of a cell whose live set ran out of heap (its own run, or a smaller live set's in the same
# heap): a result about the heap, not a failure of the engine.
NOT_FITTING = "does not fit"
OUTCOMES = ("found", "floor", "none", "failed", "missing")  # floor: it completes at the floor heap already
STEP_DOWN = 4
# The failure codes (engine-facts.json) of a run the heap could not hold: it ran out, Epsilon filled it before
# the window (--stop-when-heap-full), or the engine's own fill limit ended it before the bisection's did
# (collections thrashing near the minimum left it no time to fill, as with a timeout).
HEAP_FAILURES = frozenset(failure(code) for code in ("out_of_memory", "heap_full", "fill_timeout"))
# What the JVM itself says on its standard error when it dies of the heap or will not start with one that
# small: the engine wrote no summary then, so no code.
_JVM_HEAP_WORDS = ("OutOfMemoryError", "Too small maximum heap", "Too small initial heap",
                   "heap size is too small", "Could not reserve enough space")
RUN_COLUMNS = ["heap_mb", "verdict", "status", "error"]
# A run whose fill phase takes this many times the fill of a run that fitted is thrashing: it does not
# fit. The floor keeps a short fill's limit above the JVM's start and a loaded machine's jitter.
FILL_SLOWDOWN = 10.0
FILL_LIMIT_FLOOR_S = 30.0


def fill_limit_s(fitted_fill_s: float | None) -> float | None:
    """The fill-phase limit of a bisection run, from the fill phase of a run that fitted (None: no
    run has fitted yet, the engines' own limit applies)."""
    if fitted_fill_s is None:
        return None
    return max(FILL_LIMIT_FLOOR_S, FILL_SLOWDOWN * fitted_fill_s)


@dataclass(frozen=True)
class HeapRun:
    """One batch run at one heap size."""

    heap_mb: int
    verdict: str  # FITS, TOO_SMALL or FAILED
    status: str = "ok"
    error: str | None = None


def heap_verdict(status: str, failure_code: str | None, stderr_tail: str | None) -> str:
    """Whether a run completed in its heap (FITS), did not because of it (TOO_SMALL), or failed for
    another reason (FAILED), from its status and failure code (data.records.row_failure); the JVM's own
    standard error counts only where the engine gave no code. A stored run that is missing (a replay) is
    FAILED with its status."""
    if status == "ok":
        return FITS
    if status == "timeout":
        return TOO_SMALL
    if status != "error":
        return FAILED
    if failure_code is not None:
        return TOO_SMALL if failure_code in HEAP_FAILURES else FAILED
    text = stderr_tail or ""
    refused = "Error occurred during initialization of VM" in text and "heap" in text.lower()
    return TOO_SMALL if refused or any(words in text for words in _JVM_HEAP_WORDS) else FAILED


@dataclass(frozen=True)
class MinHeap:
    outcome: str  # one of OUTCOMES
    min_heap_mb: int | None  # the smallest heap that completed
    runs: pd.DataFrame  # RUN_COLUMNS, in the order run
    error: str | None = None


def find_min_heap(run: Callable[[int], HeapRun], start_mb: int, resolution: float, floor_mb: int,
                  cap_mb: int) -> MinHeap:
    """The smallest heap (MB) the cell completes in, to within `resolution` (0.05: 5 %)."""
    if not (resolution > 0 and 0 < floor_mb <= start_mb <= cap_mb):
        raise ValueError(f"need resolution > 0 and 0 < floor_mb <= start_mb <= cap_mb; got {resolution}, "
                         f"{floor_mb}, {start_mb}, {cap_mb}")
    done: list[HeapRun] = []

    def at(heap_mb: int) -> HeapRun:
        result = run(heap_mb)
        done.append(result)
        return result

    def ended(outcome: str, min_heap: int | None, error: str | None = None) -> MinHeap:
        runs = pd.DataFrame([asdict(r) for r in done], columns=RUN_COLUMNS)
        return MinHeap(outcome, min_heap, runs, error)

    fits = start_mb
    first = at(fits)
    while first.verdict == TOO_SMALL:
        if fits * 2 > cap_mb:
            return ended("none", None)
        fits *= 2
        first = at(fits)
    if first.verdict == FAILED:
        return ended("missing" if first.status == "missing" else "failed", None, first.error)
    too_small = None
    while too_small is None:
        if fits == floor_mb:
            return ended("floor", fits)
        lower = at(max(floor_mb, fits // STEP_DOWN))
        if lower.verdict == FAILED:
            return ended("missing" if lower.status == "missing" else "failed", None, lower.error)
        if lower.verdict == FITS:
            fits = lower.heap_mb
        else:
            too_small = lower.heap_mb
    while fits > too_small * (1 + resolution):
        middle = round(math.sqrt(fits * too_small))
        if middle in (fits, too_small):
            break
        probe = at(middle)
        if probe.verdict == FAILED:
            return ended("missing" if probe.status == "missing" else "failed", None, probe.error)
        if probe.verdict == FITS:
            fits = middle
        else:
            too_small = middle
    return ended("found", fits)


def lower_bound_overhead(runs: pd.DataFrame, cost: str, by: tuple[str, ...] = ("strategy", "case"),
                         configuration: tuple[str, ...] = ("solution", "factor")) -> pd.Series:
    """Each row's `cost` over that of the cheapest configuration among the rows of its group (`by`),
    minus one: 0.25 is 25 % more than the cheapest configuration seen. A configuration's cost is the
    median of its runs, so that one lucky repeat does not set the baseline. NaN where the row has no
    cost."""
    medians = runs.groupby([*by, *configuration], dropna=False)[cost].transform("median")
    cheapest = medians.groupby([runs[column] for column in by], dropna=False).transform("min")
    return runs[cost] / cheapest - 1
