"""Parses unified JVM GC logs (-Xlog:gc*,safepoint) of JDK 11-25 into a table of events.

Every event line the collectors of jdks.COLLECTORS write becomes one row (shapes per JDK and
collector: shared/design/jdk-matrix.md):

- `pause`: a `Pause ...` line with a duration (CMS, G1 incl. Evacuation Failure suffixes,
  Parallel, Serial, ZGC phases, generational ZGC `Y:`/`O:`/`y:` phases, Shenandoah), with
  `safepoint`, the number of the safepoint it happened in;
- `concurrent`: a `Concurrent ...` phase, and whole cycles (`cycle` = True: G1's Concurrent
  (Mark) Cycle, generational ZGC's Minor/Major Collection, whose totals are in seconds);
- `stall`: ZGC's `Allocation Stall (thread)` / `Relocation Stall (thread)`: one thread waited
  for memory, or for an object being moved; `thread` names it. A stall of a thread outside
  the collector has no GC id (`Allocation Stall (main) 17.863ms`); a GC worker's has its
  collection's id and, in generational ZGC, its generation's prefix
  (`GC(7) y: Relocation Stall (ZWorkerYoung#0) 3.315ms`, `GC(9) O: Relocation Stall
  (ZWorkerOld#0) 1.198ms`, JDK 21 and 25), kept in `name` as for pauses;
- `safepoint`: JDK 17+ `Safepoint "Op", ... Total: N ns`, JDK 11 `Total time for which
  application threads were stopped: S seconds` (named by the `Entering safepoint region`
  before it), numbered in `safepoint` from 0 in log order. A pause belongs to the first
  safepoint line after it that spans it (within NESTING_TOLERANCE_S): the JVM logs a
  safepoint when it ends, after the pauses done in it.

Lines without a duration ([gc,start] lines, ZGC's `Garbage Collection (...)` summary, ZGC's
per-cycle `Allocation Stalls:` counts), [gc,stats] tables and sub-phase lines are not events.

Times. Decorations may be any of the JVM's (uptime, uptimemillis, uptimenanos, timemillis,
timenanos, time, pid, tid, level, tags, with padding); the JVM writes them in a fixed order
(uptime, timemillis, uptimemillis, timenanos, uptimenanos), which tells the two of a unit
apart; a lone ms decoration is timemillis when it is an epoch time, a lone ns decoration is
timenanos when it disagrees with the line's uptime. `start_s`/`end_s` are JVM uptime; `end_nanotime` is the `timenanos` decoration, the
JVM's System.nanoTime() when the line was written (None without it). The JVM logs an event
when it ends: its start is its end minus its duration.
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
           "heap_before_mb", "heap_after_mb", "heap_total_mb", "cycle", "collector",
           "end_nanotime", "thread", "safepoint"]
NESTING_TOLERANCE_S = 0.001  # uptime decorations have millisecond resolution

_DECORATIONS = re.compile(r"^((?:\[[^\]]*\])+)\s?(.*)$")
_GROUP = re.compile(r"\[([^\]]*)\]")
_LEVELS = {"trace", "debug", "info", "warning", "error"}
_TIME = re.compile(r"^(\d+(?:[.,]\d+)?)(s|ms|ns)$")
_EPOCH_MS = 1e11  # a lone ms decoration above this (1973 as epoch ms) is timemillis, not uptimemillis
_GC_ID = re.compile(r"^GC\((\d+)\)\s*")
_GENERATION = re.compile(r"^([YOyo]): ")
_DURATION = re.compile(r"\s(\d+(?:\.\d+)?)(ms|s)$")
_SIZE = r"(\d+(?:\.\d+)?)([BKMG])"
_HEAP = re.compile(rf"\s{_SIZE}(?:\(\d+%\))?->{_SIZE}(?:\(\d+%\))?(?:\({_SIZE}\))?$")
_TIMES = re.compile(r"\s*\(\d+(?:\.\d+)?s(?:, \d+(?:\.\d+)?s)?\)")  # G1 11: Concurrent Mark (0.29s, 0.31s)
_CYCLE = re.compile(r"^(?:Concurrent (?:Mark )?Cycle|(?:Minor|Major) Collection \(.*\))$")
_STALL = re.compile(r"^(?:([YOyo]): )?((?:Allocation|Relocation) Stall) \((.*)\) (\d+(?:\.\d+)?)ms$")
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


@dataclass
class _Line:
    uptime: float | None  # seconds since the JVM started
    nanotime: int | None  # the JVM's System.nanoTime()
    tags: set[str]
    message: str


def _split(line: str) -> _Line:
    """A line's times, tags and message."""
    match = _DECORATIONS.match(line)
    if not match:
        return _Line(None, None, set(), line.strip())
    groups = [g.strip() for g in _GROUP.findall(match.group(1))]
    values: dict[str, list[str]] = {"s": [], "ms": [], "ns": []}
    for group in groups:
        if time := _TIME.match(group):
            values[time.group(2)].append(time.group(1).replace(",", "."))
    uptimes = [float(v) for v in values["s"]]  # `uptime` is the only decoration in seconds
    millis = [float(v) for v in values["ms"]]  # timemillis before uptimemillis
    if len(millis) == 2 or (len(millis) == 1 and millis[0] < _EPOCH_MS):
        uptimes.append(millis[-1] / 1000)
    nanos = [int(float(v)) if "." in v else int(v) for v in values["ns"]]  # timenanos before uptimenanos
    nanotime = None
    if len(nanos) == 2:
        nanotime = nanos[0]
        uptimes.insert(0, nanos[1] / 1e9)
    elif len(nanos) == 1:
        if uptimes and abs(nanos[0] / 1e9 - uptimes[0]) > NESTING_TOLERANCE_S:
            nanotime = nanos[0]  # disagrees with the uptime: it is timenanos
        else:
            uptimes.insert(0, nanos[0] / 1e9)
    tags: set[str] = set()
    last = groups[-1] if groups else ""
    if last and last not in _LEVELS and not _TIME.match(last) and not last.isdigit():
        tags = {t.strip() for t in last.split(",")}
    return _Line(uptimes[0] if uptimes else None, nanotime, tags, match.group(2).strip())


def _mb(number: str, unit: str) -> float:
    return float(number) * _MB[unit]


@dataclass
class _Event:
    kind: str
    name: str
    gc_id: int | None
    end_s: float | None
    duration_ms: float
    end_nanotime: int | None = None
    reaching_ms: float = math.nan
    heap: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    cycle: bool = False
    thread: str | None = None
    safepoint: int | None = None

    def row(self, collector: str | None) -> dict[str, object]:
        end = math.nan if self.end_s is None else self.end_s
        return {"kind": self.kind, "name": self.name, "gc_id": self.gc_id,
                "start_s": end - self.duration_ms / 1000, "end_s": end, "duration_ms": self.duration_ms,
                "reaching_ms": self.reaching_ms, "heap_before_mb": self.heap[0],
                "heap_after_mb": self.heap[1], "heap_total_mb": self.heap[2], "cycle": self.cycle,
                "collector": collector, "end_nanotime": self.end_nanotime, "thread": self.thread,
                "safepoint": self.safepoint}

    def spans(self, other: _Event) -> bool:
        """Whether other lies within this event (both on the finest clock they share)."""
        if self.end_nanotime is not None and other.end_nanotime is not None:
            end, other_end, unit = self.end_nanotime, other.end_nanotime, 1e-9
        elif self.end_s is not None and other.end_s is not None:
            end, other_end, unit = self.end_s, other.end_s, 1.0
        else:
            return True  # undecorated: the order of the lines is all there is
        tolerance = NESTING_TOLERANCE_S / unit
        start = end - self.duration_ms / 1000 / unit
        other_start = other_end - other.duration_ms / 1000 / unit
        return other_start >= start - tolerance and other_end <= end + tolerance


def _timed_event(message: str, gc_id: int | None, line: _Line) -> _Event | None:
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
    return _Event(kind, name, gc_id, line.uptime, ms, line.nanotime, heap=sizes, cycle=bool(_CYCLE.match(core)))


def parse_lines(lines: Iterable[str], collector: str | None = None) -> pd.DataFrame:
    """The events of a unified GC log given as lines, one row each (COLUMNS). The collector
    (a jdks.COLLECTORS name) comes from the log's `Using ...` line unless given."""
    events: list[_Event] = []
    found: str | None = None
    generational = False
    safepoint_name = "safepoint"
    unplaced: list[_Event] = []  # pauses logged since the last safepoint line
    safepoints = 0
    for raw in lines:
        line = _split(raw)
        message = line.message
        if not message or "start" in line.tags or "stats" in line.tags:
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
        event: _Event | None = None
        if match := _SAFEPOINT.match(message):
            event = _Event("safepoint", match.group(1), gc_id, line.uptime, int(match.group(3)) / 1e6,
                           line.nanotime, reaching_ms=int(match.group(2)) / 1e6)
        elif match := _ENTERING.match(message):
            safepoint_name = match.group(1)
        elif match := _SAFEPOINT_11.match(message):
            event = _Event("safepoint", safepoint_name, gc_id, line.uptime, float(match.group(1)) * 1000,
                           line.nanotime, reaching_ms=float(match.group(2)) * 1000)
        elif match := _STALL.match(message):
            generation, stall, thread, ms = match.groups()
            event = _Event("stall", f"{generation}: {stall}" if generation else stall, gc_id, line.uptime,
                           float(ms), line.nanotime, thread=thread)
        else:
            event = _timed_event(message, gc_id, line)
        if event is None:
            continue
        events.append(event)
        if event.kind == "pause":
            unplaced.append(event)
        elif event.kind == "safepoint":
            event.safepoint = safepoints
            safepoints += 1
            for pause in unplaced:
                if event.spans(pause):
                    pause.safepoint = event.safepoint
            unplaced = []
    if found == "shenandoah" and generational:
        found = "shenandoah-gen"
    if found == "zgc" and any(_GENERATION.match(e.name) or " Collection (" in e.name for e in events):
        found = "zgc-gen"
    name = collector or found
    frame = pd.DataFrame([e.row(name) for e in events], columns=COLUMNS)
    for column in ("gc_id", "end_nanotime", "safepoint"):
        frame[column] = frame[column].astype("Int64")
    frame["cycle"] = frame["cycle"].astype(bool)
    for column in ("collector", "thread"):
        frame[column] = frame[column].astype(object)
    frame.attrs["collector"] = name  # also there when the log has no event (Epsilon)
    return frame


def parse(path: str | Path, collector: str | None = None) -> pd.DataFrame:
    """The events of a unified GC log file."""
    with open(path, encoding="utf-8", errors="replace") as lines:
        return parse_lines(lines, collector)


def pauses(events: pd.DataFrame) -> pd.DataFrame:
    """The stop-the-world pauses among parsed events (not stalls, cycles or safepoints)."""
    return events[events["kind"] == "pause"]


def outer_pauses(events: pd.DataFrame) -> pd.DataFrame:
    """The pauses that are not inside another one: each stop of the world once. CMS logs the
    Full GC of a failed young collection (promotion failure) inside that Young pause, both
    timing the same stop; counting both would double the time spent paused. Pauses of two
    safepoints are never nested; the JVM's nanotime, where the log has it, tells a pause that
    ends just before the next one starts from one inside it, which uptime's millisecond
    resolution cannot."""
    every = pauses(events)
    nested = pd.Series(False, index=every.index)
    safepoint = every["safepoint"] if "safepoint" in every else pd.Series(pd.NA, index=every.index, dtype="Int64")
    for _, group in every.groupby(safepoint.fillna(-1), sort=False):  # the pauses in no safepoint together
        nested[group.index] = _nested(group)
    return every[~nested]


def _finest_times(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, float]:
    """Events' starts and ends in seconds on the finest clock they all have (the JVM's
    nanotime, else uptime), and how far apart two of its instants may be and still be one."""
    durations = frame["duration_ms"].to_numpy(dtype=float) / 1000
    nanotime = frame["end_nanotime"] if "end_nanotime" in frame else None
    if nanotime is not None and len(frame) and nanotime.notna().all():
        ends = nanotime.to_numpy(dtype="int64") / 1e9
        return ends - durations, ends, 1e-5  # durations are logged to the microsecond
    starts = frame["start_s"].to_numpy(dtype=float)
    return starts, starts + durations, NESTING_TOLERANCE_S


def _nested(group: pd.DataFrame) -> np.ndarray:
    """Which pauses of a group lie inside an earlier-starting (or as early and longer) one."""
    starts, ends, tolerance = _finest_times(group)
    order = np.lexsort((-(ends - starts), starts))
    latest_end = np.maximum.accumulate(np.concatenate([[-np.inf], ends[order][:-1]]))
    inside = (starts[order] < latest_end) & (ends[order] <= latest_end + tolerance)
    nested = np.zeros(len(group), dtype=bool)
    nested[order] = inside
    return nested


def stops(events: pd.DataFrame) -> pd.DataFrame:
    """Each stop of the world a collection made, once (kind `stop`): the pauses of one
    safepoint are one stop, timed by the safepoint's total, which includes bringing the
    threads to it (Parallel's `Pause Young` and the `Pause Full (Ergonomics)` it turned into,
    CMS's Full GC inside its Young pause, which it logs first); `name` lists the pauses in
    the order they started, `gc_id` is the first's. A pause the log puts in no safepoint is a
    stop of its own (outer_pauses)."""
    paused = pauses(events)
    safepoints = events[(events["kind"] == "safepoint") & events["safepoint"].notna()].set_index("safepoint")
    placed = paused[paused["safepoint"].isin(safepoints.index)]
    placed = placed.iloc[np.lexsort((_finest_times(placed)[0], placed["safepoint"].to_numpy(dtype="int64")))]
    by_safepoint = placed.groupby("safepoint", sort=False).agg(name=("name", " + ".join), gc_id=("gc_id", "first"))
    shared = safepoints.loc[by_safepoint.index].assign(kind="stop", name=by_safepoint["name"],
                                                       gc_id=by_safepoint["gc_id"]).reset_index()
    alone = outer_pauses(paused[~paused.index.isin(placed.index)]).assign(kind="stop")
    frame = pd.concat([shared[list(events.columns)], alone], ignore_index=True) if len(alone) else \
        shared[list(events.columns)]
    return frame.sort_values("end_s", kind="stable").reset_index(drop=True).astype(events.dtypes.to_dict())


def stalls(events: pd.DataFrame) -> pd.DataFrame:
    """The stalls of threads outside the collector (application and JVM threads; a GC
    worker's stall carries its collection's GC id and stops no one else)."""
    return events[(events["kind"] == "stall") & events["gc_id"].isna()]
