"""Puts a GC log's events (data.gclog_events) on their run's clock, and holds them against the engine's
pause records.

`align` puts a log on its run's clock exactly: the engine's header gives
`clock_origin_nanotime`, System.nanoTime() at the run's t_s = 0, so an event ends at
(end_nanotime - clock_origin_nanotime) / 1e9 on the run's clock. A header without the field
(an engine older than it) or a log without `timenanos` is not aligned, and says why.
`cross_check` holds an aligned log's pauses against the engine's `gc` records
(GarbageCollectorMXBean notifications).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from allocorpool.data.gclog_events import NESTING_TOLERANCE_S, outer_pauses, pauses

ORIGIN_FIELD = "clock_origin_nanotime"  # the header's System.nanoTime() at t_s = 0
ALIGNED = "aligned: timenanos - clock_origin_nanotime"


@dataclass(frozen=True)
class Alignment:
    """A GC log on its run's clock: `events` with `t_s` (start) and `t_end_s` (end) in the
    run's seconds, or None and `problem` saying why it could not be lined up."""

    events: pd.DataFrame | None
    problem: str | None = None

    @property
    def aligned(self) -> bool:
        return self.events is not None


def align(events: pd.DataFrame, header: dict[str, Any] | None) -> Alignment:
    """The events on the run's clock: t_end_s = (end_nanotime - clock_origin_nanotime) / 1e9."""
    origin = (header or {}).get(ORIGIN_FIELD)
    if origin is None:
        return Alignment(None, f"not aligned: the run's header has no {ORIGIN_FIELD} (an engine older than it)")
    nanotime = events["end_nanotime"].astype("Int64")
    if len(events) and nanotime.isna().all():
        return Alignment(None, "not aligned: the GC log has no timenanos decoration")
    end = ((nanotime - int(origin)) / 1e9).astype(float)
    return Alignment(events.assign(t_s=end - events["duration_ms"].astype(float) / 1000, t_end_s=end))


@dataclass
class CrossCheck:
    """A GC log's pauses against the engine's pause records, both on the run's clock.

    A record's start is the notification's wall-clock time stamp (ms) minus the bean's
    duration (whole ms), within MATCH_MS of the log's start on the run's clock, or later
    inside the log's pause: the bean's clock starts after the log's, so a collector thread
    descheduled between the two (on a loaded machine; the [gc,start] line is written there)
    would start the record that much later (not seen here, assumed of CI's one unmatched record). Records pair one to one with outer log pauses (outer_pauses) whose
    span, widened by MATCH_MS, holds their start, the closest pairs first (`apart_ms`: how far
    the record's start lies outside the pause, 0 inside). A bean
    times its own collection only: CMS on JDK 11 logs the Full GC of a promotion failure
    inside the Young pause that failed, and the ParNew record times the Young pause without
    the Full GC (which the ConcurrentMarkSweep bean reports, as kind `cycle`). So a pair
    compares the record with the pause's own time, its duration minus the pauses nested in
    it (`log_ms`), and agrees when |record - log_ms| <= 1 ms + 10 % of log_ms; the nested
    pauses are listed in `nested_log`. `ok`: the log is aligned, every record found its pause
    and every pair agrees. Log pauses no record matches (G1 Remark and Cleanup before JDK 21,
    pauses inside a bean of kind `cycle` such as CMS's or JDK 11 ZGC's) are listed in
    unmatched_log and counted in log_total_ms (the log's outer pauses over the records'
    span), not against `ok`.
    """

    problem: str | None  # why the log could not be lined up (None: aligned)
    pairs: pd.DataFrame  # PAIR_COLUMNS
    unmatched_records: pd.DataFrame
    unmatched_log: pd.DataFrame
    nested_log: pd.DataFrame
    record_total_ms: float
    log_total_ms: float

    @property
    def ok(self) -> bool:
        return self.problem is None and self.unmatched_records.empty and bool(self.pairs["within"].all())


MATCH_MS = 3.0
PAIR_COLUMNS = ["t_s", "bean", "record_ms", "log_t_s", "log_name", "log_ms", "nested_ms", "diff_ms", "within",
                "apart_ms"]


def cross_check(events: pd.DataFrame, header: dict[str, Any] | None, gc_records: pd.DataFrame,
                match_ms: float = MATCH_MS) -> CrossCheck:
    """Pairs each pause record with the outer log pause starting within match_ms of it on the
    run's clock (align) and compares durations and totals."""
    records = gc_records[gc_records["kind"] == "pause"].reset_index(drop=True) if len(gc_records) \
        else pd.DataFrame(columns=["t_s", "bean", "duration_ms", "kind"])
    record_total = float(records["duration_ms"].sum())
    alignment = align(events, header)
    if alignment.events is None:
        empty = events.iloc[0:0]
        return CrossCheck(alignment.problem, pd.DataFrame(columns=PAIR_COLUMNS), records, empty, empty,
                          record_total, math.nan)
    every = pauses(alignment.events)
    outer = outer_pauses(every)
    nested = every[~every.index.isin(outer.index)]
    log = outer.assign(nested_ms=_nested_ms(outer, nested)).sort_values("t_s").reset_index(drop=True)
    log_starts = log["t_s"].to_numpy(dtype=float)
    log_ends = log_starts + log["duration_ms"].to_numpy(dtype=float) / 1000
    taken = _pair_up(records["t_s"].to_numpy(dtype=float), log_starts, log_ends, match_ms / 1000)
    record_rows, log_rows = records.iloc[taken["record"]], log.iloc[taken["log"]]
    record_starts = record_rows["t_s"].to_numpy(dtype=float)
    record_ms = record_rows["duration_ms"].to_numpy(dtype=float)
    nested_ms = log_rows["nested_ms"].to_numpy(dtype=float)
    log_ms = log_rows["duration_ms"].to_numpy(dtype=float) - nested_ms
    pairs = pd.DataFrame({"t_s": record_rows["t_s"].to_numpy(dtype=float), "bean": record_rows["bean"].to_numpy(),
                          "record_ms": record_ms, "log_t_s": log_rows["t_s"].to_numpy(dtype=float),
                          "log_name": log_rows["name"].to_numpy(), "log_ms": log_ms, "nested_ms": nested_ms,
                          "diff_ms": record_ms - log_ms,
                          "within": np.abs(record_ms - log_ms) <= 1.0 + 0.1 * log_ms,
                          "apart_ms": 1000 * _apart(record_starts, log_starts[taken["log"]], log_ends[taken["log"]])},
                         columns=PAIR_COLUMNS)
    if len(records):
        span = (records["t_s"].min() - match_ms / 1000,
                (records["t_s"] + records["duration_ms"] / 1000).max() + match_ms / 1000)
        in_span = log["t_s"].between(*span)
    else:
        in_span = pd.Series(False, index=log.index)
    return CrossCheck(
        problem=None, pairs=pairs,
        unmatched_records=records[~records.index.isin(taken["record"])],
        unmatched_log=log[~log.index.isin(taken["log"]) & in_span],
        nested_log=nested,
        record_total_ms=record_total,
        log_total_ms=float(log.loc[in_span, "duration_ms"].sum()),
    )


def _nested_ms(outer: pd.DataFrame, nested: pd.DataFrame) -> pd.Series:
    """For each outer pause, the total of the pauses nested in it (each in the latest-starting
    outer pause that spans it)."""
    total = pd.Series(0.0, index=outer.index)
    starts = outer["start_s"].to_numpy(dtype=float)
    ends = starts + outer["duration_ms"].to_numpy(dtype=float) / 1000
    for start, ms in zip(nested["start_s"].to_numpy(dtype=float), nested["duration_ms"].to_numpy(dtype=float)):
        spanning = np.flatnonzero((starts <= start + NESTING_TOLERANCE_S)
                                  & (ends >= start + ms / 1000 - NESTING_TOLERANCE_S))
        if len(spanning):
            total.iloc[spanning[np.argmax(starts[spanning])]] += ms
    return total


def _apart(starts: np.ndarray, pause_starts: np.ndarray, pause_ends: np.ndarray) -> np.ndarray:
    """How far each start lies outside its pause (0 inside it)."""
    return np.maximum(0.0, np.maximum(pause_starts - starts, starts - pause_ends))


def _pair_up(records: np.ndarray, log_starts: np.ndarray, log_ends: np.ndarray, within: float) -> pd.DataFrame:
    """Pairs of a record start and a log pause (both in time order) at most `within` apart
    (_apart), one to one and in the same order on both sides: as many pairs as possible, then
    the smallest total distance. Young collections can follow each other by less than the
    records' millisecond resolution, so the nearest pause is not always a record's own.
    Columns record, log (positions)."""
    order = np.argsort(records, kind="stable")
    reach = np.maximum.accumulate(log_ends) if len(log_ends) else log_ends  # in order, as the starts
    first = np.searchsorted(reach, records[order] - within, side="left")
    last = np.searchsorted(log_starts, records[order] + within, side="right")
    size = len(log_starts) + 1
    tree: list[tuple[int, float, int]] = [(0, 0.0, -1)] * (size + 1)  # Fenwick tree of prefix maxima
    chains: list[tuple[int, int, int]] = []  # (record, log, previous chain)

    def best_before(j: int) -> tuple[int, float, int]:  # the best chain ending before log position j
        found = (0, 0.0, -1)
        while j > 0:
            found = max(found, tree[j])
            j -= j & -j
        return found

    for rank, (a, b) in enumerate(zip(first, last)):
        updates = []
        aparts = _apart(records[order[rank]], log_starts[a:b], log_ends[a:b])
        for j, apart in zip(range(a, b), aparts):
            if apart > within:
                continue
            count, score, chain = best_before(j)
            chains.append((int(order[rank]), j, chain))
            updates.append((j + 1, (count + 1, score - float(apart), len(chains) - 1)))
        for j, value in updates:  # after all of this record's candidates: it pairs once at most
            while j <= size:
                tree[j] = max(tree[j], value)
                j += j & -j
    pairs = []
    chain = best_before(size)[2]
    while chain >= 0:
        record, position, chain = chains[chain]
        pairs.append((record, position))
    return pd.DataFrame(sorted(pairs), columns=["record", "log"], dtype=int)
