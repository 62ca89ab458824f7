"""Parses unified JVM GC logs (-Xlog:gc*,safepoint) of JDK 11-25 into a table of events.

Every event line the collectors of jdks.COLLECTORS write becomes one row (shapes per JDK and
collector: shared/design/jdk-matrix.md):

- `pause`: a `Pause ...` line with a duration (CMS, G1 incl. Evacuation Failure suffixes,
  Parallel, Serial, ZGC phases, generational ZGC `Y:`/`O:`/`y:` phases, Shenandoah);
- `concurrent`: a `Concurrent ...` phase, and whole cycles (`cycle` = True: G1's Concurrent
  (Mark) Cycle, generational ZGC's Minor/Major Collection, whose totals are in seconds);
- `stall`: ZGC's `Allocation Stall (thread)` / `Relocation Stall (thread)`: one thread waited;
- `safepoint`: JDK 17+ `Safepoint "Op", ... Total: N ns`, JDK 11 `Total time for which
  application threads were stopped: S seconds` (named by the `Entering safepoint region` before it).

Lines without a duration ([gc,start] lines, ZGC's `Garbage Collection (...)` summary),
[gc,stats] tables and sub-phase lines are not events. Decorations may be any of the JVM's
(uptime, uptimemillis, uptimenanos, time, pid, tid, level, tags, with padding); an event's
start is its line's uptime minus its duration, as the JVM logs an event when it ends.

`cross_check` holds a log's pauses against the engine's `gc` records (GarbageCollectorMXBean
notifications), whose clock it finds by matching the two (`estimate_offset`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

KINDS = ("pause", "concurrent", "stall", "safepoint")
COLUMNS = ["kind", "name", "gc_id", "start_s", "end_s", "duration_ms", "reaching_ms",
           "heap_before_mb", "heap_after_mb", "heap_total_mb", "cycle", "collector"]

_DECORATIONS = re.compile(r"^((?:\[[^\]]*\])+)\s?(.*)$")
_GROUP = re.compile(r"\[([^\]]*)\]")
_LEVELS = {"trace", "debug", "info", "warning", "error"}
_UPTIME = re.compile(r"^(\d+(?:[.,]\d+)?)(s|ms|ns)$")
_SECONDS = {"s": 1.0, "ms": 1e-3, "ns": 1e-9}
_WALL_CLOCK_S = 1e8  # a time decoration above three years is timemillis/timenanos, not uptime
_GC_ID = re.compile(r"^GC\((\d+)\)\s*")
_GENERATION = re.compile(r"^([YOyo]): ")
_DURATION = re.compile(r"\s(\d+(?:\.\d+)?)(ms|s)$")
_SIZE = r"(\d+(?:\.\d+)?)([BKMG])"
_HEAP = re.compile(rf"\s{_SIZE}(?:\(\d+%\))?->{_SIZE}(?:\(\d+%\))?(?:\({_SIZE}\))?$")
_TIMES = re.compile(r"\s*\(\d+(?:\.\d+)?s(?:, \d+(?:\.\d+)?s)?\)")  # G1 11: Concurrent Mark (0.29s, 0.31s)
_CYCLE = re.compile(r"^(?:Concurrent (?:Mark )?Cycle|(?:Minor|Major) Collection \(.*\))$")
_STALL = re.compile(r"^((?:Allocation|Relocation) Stall) \([^)]*\) (\d+(?:\.\d+)?)ms$")
_SAFEPOINT = re.compile(r'^Safepoint "([^"]+)",.*?Reaching safepoint: (\d+) ns,.*?\bTotal: (\d+) ns')
_SAFEPOINT_11 = re.compile(r"^Total time for which application threads were stopped: "
                           r"(\d+(?:\.\d+)?) seconds, Stopping threads took: (\d+(?:\.\d+)?) seconds")
_ENTERING = re.compile(r"^Entering safepoint region: (\S+)")
_USING = {
    "Using Concurrent Mark Sweep": "cms", "Using G1": "g1", "Using Parallel": "parallel",
    "Using Serial": "serial", "Using The Z Garbage Collector": "zgc", "Using Shenandoah": "shenandoah",
    "Using Epsilon": "epsilon",
}
_GENERATIONAL_MODE = re.compile(r"\bmode: Generational", re.IGNORECASE)
_MB = {"B": 1 / 1024 / 1024, "K": 1 / 1024, "M": 1.0, "G": 1024.0}


def _split(line: str) -> tuple[float | None, set[str], str]:
    """A line's uptime in seconds (None if not decorated with one), its tags and its message."""
    match = _DECORATIONS.match(line)
    if not match:
        return None, set(), line.strip()
    groups = [g.strip() for g in _GROUP.findall(match.group(1))]
    seconds: dict[str, float] = {}  # uptime in each unit decorated; time{millis,nanos} are wall clock
    for group in groups:
        value = _UPTIME.match(group)
        if value:
            unit = value.group(2)
            number = float(value.group(1).replace(",", ".")) * _SECONDS[unit]
            if number < _WALL_CLOCK_S:
                seconds.setdefault(unit, number)
    uptime = next((seconds[unit] for unit in ("s", "ms", "ns") if unit in seconds), None)
    tags: set[str] = set()
    last = groups[-1] if groups else ""
    if last and last not in _LEVELS and not _UPTIME.match(last) and not last.isdigit():
        tags = {t.strip() for t in last.split(",")}
    return uptime, tags, match.group(2).strip()


def _mb(number: str, unit: str) -> float:
    return float(number) * _MB[unit]


@dataclass
class _Event:
    kind: str
    name: str
    gc_id: int | None
    end_s: float | None
    duration_ms: float
    reaching_ms: float = math.nan
    heap: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    cycle: bool = False

    def row(self, collector: str | None) -> dict[str, object]:
        end = math.nan if self.end_s is None else self.end_s
        return {"kind": self.kind, "name": self.name, "gc_id": self.gc_id,
                "start_s": end - self.duration_ms / 1000, "end_s": end, "duration_ms": self.duration_ms,
                "reaching_ms": self.reaching_ms, "heap_before_mb": self.heap[0],
                "heap_after_mb": self.heap[1], "heap_total_mb": self.heap[2], "cycle": self.cycle,
                "collector": collector}


def _timed_event(message: str, gc_id: int | None, uptime: float | None) -> _Event | None:
    """A `Pause ...`, `Concurrent ...` or generational ZGC collection line with a duration."""
    duration = _DURATION.search(message)
    if not duration:
        return None
    body = message[:duration.start()]
    generation = _GENERATION.match(body)
    core = body[generation.end():] if generation else body
    heap = _HEAP.search(core)
    sizes = (math.nan, math.nan, math.nan)
    if heap:
        g = heap.groups()
        sizes = (_mb(g[0], g[1]), _mb(g[2], g[3]), _mb(g[4], g[5]) if g[4] else math.nan)
        core = core[:heap.start()]
    core = _TIMES.sub("", core).strip()
    if core.startswith("Pause "):
        kind = "pause"
    elif core.startswith("Concurrent ") or _CYCLE.match(core):
        kind = "concurrent"
    else:
        return None
    ms = float(duration.group(1)) * (1000.0 if duration.group(2) == "s" else 1.0)
    name = f"{generation.group(1)}: {core}" if generation else core
    return _Event(kind, name, gc_id, uptime, ms, heap=sizes, cycle=bool(_CYCLE.match(core)))


def parse_lines(lines: Iterable[str], collector: str | None = None) -> pd.DataFrame:
    """The events of a unified GC log given as lines, one row each (COLUMNS). The collector
    (a jdks.COLLECTORS name) comes from the log's `Using ...` line unless given."""
    events: list[_Event] = []
    found: str | None = None
    generational = False
    safepoint_name = "safepoint"
    for line in lines:
        uptime, tags, message = _split(line)
        if not message or "start" in tags or "stats" in tags:
            continue
        if message in _USING:
            found = _USING[message]
            continue
        if _GENERATIONAL_MODE.search(message):
            generational = True
        gc_id_match = _GC_ID.match(message)
        gc_id = int(gc_id_match.group(1)) if gc_id_match else None
        if gc_id_match:
            message = message[gc_id_match.end():]
        if match := _SAFEPOINT.match(message):
            events.append(_Event("safepoint", match.group(1), gc_id, uptime, int(match.group(3)) / 1e6,
                                 reaching_ms=int(match.group(2)) / 1e6))
        elif match := _ENTERING.match(message):
            safepoint_name = match.group(1)
        elif match := _SAFEPOINT_11.match(message):
            events.append(_Event("safepoint", safepoint_name, gc_id, uptime, float(match.group(1)) * 1000,
                                 reaching_ms=float(match.group(2)) * 1000))
        elif match := _STALL.match(message):
            events.append(_Event("stall", match.group(1), gc_id, uptime, float(match.group(2))))
        elif event := _timed_event(message, gc_id, uptime):
            events.append(event)
    if found == "shenandoah" and generational:
        found = "shenandoah-gen"
    if found == "zgc" and any(_GENERATION.match(e.name) or " Collection (" in e.name for e in events):
        found = "zgc-gen"
    name = collector or found
    frame = pd.DataFrame([e.row(name) for e in events], columns=COLUMNS)
    frame["gc_id"] = frame["gc_id"].astype("Int64")
    frame["cycle"] = frame["cycle"].astype(bool)
    frame["collector"] = frame["collector"].astype(object)
    frame.attrs["collector"] = name  # also there when the log has no event (Epsilon)
    return frame


def parse(path: str | Path, collector: str | None = None) -> pd.DataFrame:
    """The events of a unified GC log file."""
    with open(path, encoding="utf-8", errors="replace") as lines:
        return parse_lines(lines, collector)


def pauses(events: pd.DataFrame) -> pd.DataFrame:
    """The stop-the-world pauses among parsed events (not stalls, cycles or safepoints)."""
    return events[events["kind"] == "pause"]


NESTING_TOLERANCE_S = 0.001  # uptime decorations have millisecond resolution


def outer_pauses(events: pd.DataFrame) -> pd.DataFrame:
    """The pauses that are not inside another one: each stop of the world once. CMS logs the
    Full GC of a failed young collection (promotion failure) inside that Young pause, both
    timing the same stop; counting both would double the time spent paused."""
    stops = pauses(events).sort_values(["start_s", "duration_ms"], ascending=[True, False])
    ends = (stops["start_s"] + stops["duration_ms"] / 1000).to_numpy(dtype=float)
    starts = stops["start_s"].to_numpy(dtype=float)
    latest_end = np.maximum.accumulate(np.concatenate([[-np.inf], ends[:-1]])) if len(ends) else ends
    nested = (starts < latest_end) & (ends <= latest_end + NESTING_TOLERANCE_S)
    return stops[~nested].sort_index()


def estimate_offset(events: pd.DataFrame, gc_records: pd.DataFrame, tolerance_ms: float = 2.0) -> float | None:
    """The log's uptime at the run's t = 0, found by lining the log's pauses up with the
    records' pauses (each record's start is whole milliseconds of JVM uptime, so a pair's
    starts agree within a couple of ms). None when fewer than half the records line up."""
    log = pauses(events)
    rec = gc_records[gc_records["kind"] == "pause"] if len(gc_records) else gc_records
    if log.empty or rec.empty:
        return None
    log_start = np.sort(log["start_s"].to_numpy(dtype=float))
    rec_t = rec["t_s"].to_numpy(dtype=float)
    tolerance = tolerance_ms / 1000
    candidates: set[float] = set()  # offsets that pair one of the first records with a log pause
    for t, ms in zip(rec_t[:8], rec["duration_ms"].to_numpy(dtype=float)[:8]):
        similar = log[(log["duration_ms"] - ms).abs() <= 1.0 + 0.2 * ms]["start_s"].to_numpy(dtype=float)
        candidates.update(np.round(similar - t, 3).tolist())
    sample = rec_t[:64]
    best: float | None = None
    best_score = (0, 0.0)  # (records paired, -mean distance)
    for candidate in sorted(c for c in candidates if c >= -tolerance):  # the JVM starts before the run
        shifted = sample + candidate
        residual = np.abs(log_start[_nearest_index(log_start, shifted)] - shifted)
        close = residual[residual <= tolerance]
        score = (len(close), -float(close.mean()) if len(close) else 0.0)
        if score > best_score:
            best, best_score = candidate, score
    if best is None:
        return None
    shifted = rec_t + best
    residual = log_start[_nearest_index(log_start, shifted)] - shifted
    matched = residual[np.abs(residual) <= tolerance]
    if len(matched) * 2 < len(rec_t):
        return None
    return best + float(np.median(matched))


def _nearest_index(sorted_values: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """For each target, the index of the closest of sorted_values (not empty)."""
    right = np.clip(np.searchsorted(sorted_values, targets), 0, len(sorted_values) - 1)
    left = np.clip(right - 1, 0, len(sorted_values) - 1)
    return np.where(np.abs(targets - sorted_values[left]) <= np.abs(sorted_values[right] - targets), left, right)


@dataclass
class CrossCheck:
    """A GC log's pauses against the engine's pause records.

    Tolerance: a record's duration is the bean's end minus start in whole milliseconds, so
    it differs from the log's microsecond figure by up to 1 ms either way, and the bean times
    the whole collection where the log line times its pause: a pair agrees when
    |record - log| <= 1 ms + 10 % of the log's figure. `ok`: the clocks lined up, every record
    found its log pause and every pair agrees. Log pauses no record matches (G1 Remark and
    Cleanup before JDK 21, pauses inside a bean of kind `cycle` such as CMS's or JDK 11 ZGC's)
    are listed in unmatched_log and counted in log_total_ms (the log's pauses over the
    records' span), not against `ok`.
    """

    offset_s: float | None
    pairs: pd.DataFrame  # t_s, bean, record_ms, log_start_s, log_name, log_ms, diff_ms, within
    unmatched_records: pd.DataFrame
    unmatched_log: pd.DataFrame
    record_total_ms: float
    log_total_ms: float

    @property
    def ok(self) -> bool:
        return self.offset_s is not None and self.unmatched_records.empty and bool(self.pairs["within"].all())


def cross_check(events: pd.DataFrame, gc_records: pd.DataFrame, match_ms: float = 2.0) -> CrossCheck:
    """Pairs each pause record with the log pause starting within match_ms of it (on the
    log's clock, via estimate_offset) and compares durations and totals."""
    records = gc_records[gc_records["kind"] == "pause"].reset_index(drop=True) if len(gc_records) \
        else pd.DataFrame(columns=["t_s", "bean", "duration_ms", "kind"])
    log = pauses(events).sort_values("start_s").reset_index(drop=True)
    offset = estimate_offset(events, gc_records, match_ms)
    pair_columns = ["t_s", "bean", "record_ms", "log_start_s", "log_name", "log_ms", "diff_ms", "within"]
    if offset is None:
        return CrossCheck(None, pd.DataFrame(columns=pair_columns), records, log,
                          float(records["duration_ms"].sum()), float(log["duration_ms"].sum()))
    starts = log["start_s"].to_numpy(dtype=float)
    targets = records["t_s"].to_numpy(dtype=float) + offset
    nearest = _nearest_index(starts, targets)
    distance = np.abs(starts[nearest] - targets)
    candidates = pd.DataFrame({"record": np.arange(len(records)), "log": nearest, "distance": distance})
    taken = (candidates[candidates["distance"] * 1000 <= match_ms]
             .sort_values("distance").drop_duplicates("log").sort_values("record"))  # the closer record wins
    record_rows, log_rows = records.iloc[taken["record"]], log.iloc[taken["log"]]
    record_ms = record_rows["duration_ms"].to_numpy(dtype=float)
    log_ms = log_rows["duration_ms"].to_numpy(dtype=float)
    pairs = pd.DataFrame({"t_s": record_rows["t_s"].to_numpy(dtype=float), "bean": record_rows["bean"].to_numpy(),
                          "record_ms": record_ms, "log_start_s": log_rows["start_s"].to_numpy(dtype=float),
                          "log_name": log_rows["name"].to_numpy(), "log_ms": log_ms, "diff_ms": record_ms - log_ms,
                          "within": np.abs(record_ms - log_ms) <= 1.0 + 0.1 * log_ms}, columns=pair_columns)
    span = (records["t_s"].min() + offset - match_ms / 1000,
            (records["t_s"] + records["duration_ms"] / 1000).max() + offset + match_ms / 1000)
    in_span = log["start_s"].between(*span)
    return CrossCheck(
        offset_s=offset, pairs=pairs,
        unmatched_records=records[~records.index.isin(taken["record"])],
        unmatched_log=log[~log.index.isin(taken["log"]) & in_span],
        record_total_ms=float(records["duration_ms"].sum()),
        log_total_ms=float(log.loc[in_span, "duration_ms"].sum()),
    )

