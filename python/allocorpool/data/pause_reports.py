"""What the binary-trees programs report about their pauses: one parser per report format.

The programs' own timing of each tree's deallocation (C, C++, Rust), Boehm's GC_PRINT_STATS, the
JVM's unified GC log, Go's GODEBUG=gctrace=1, D's --DRT-gcopt=profile:1, Nim refc's GC statistics;
OCaml 4 and Nim's markAndSweep report collections but no pause times, and the row says so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from allocorpool.data import gclog


@dataclass
class Pauses:
    """What a run reported about its pauses: each pause where the runtime lists them, else totals."""

    source: str  # what was measured, for the table
    table: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAUSE_COLUMNS))
    count: int | None = None
    total_ms: float | None = None
    max_ms: float | None = None
    collections: int | None = None
    resolution_ms: float | None = None  # the report's rounding (D and Nim report whole ms)

    @staticmethod
    def listed(source: str, table: pd.DataFrame, collections: int | None) -> Pauses:
        durations = table["duration_ms"].astype(float)
        return Pauses(source, table.reset_index(drop=True), len(table), float(durations.sum()),
                      float(durations.max()) if len(table) else 0.0, collections)


PAUSE_COLUMNS = ["source", "name", "start_s", "duration_ms"]
_DEALLOCATION = re.compile(r"^binary-trees: deallocation pauses count=(\d+) total_ms=([\d.]+) max_ms=([\d.]+)$",
                           re.MULTILINE)
_BOEHM_MARKING = re.compile(r"^--> Marking for collection #(\d+)", re.MULTILINE)
_BOEHM_STOPPED = re.compile(r"^World-stopped marking took (\d+) ms (\d+) ns")
_BOEHM_FINALIZE = re.compile(r"^Finalize and initiate sweep took (\d+) ms (\d+) ns \+ (\d+) ms (\d+) ns")
_GCTRACE = re.compile(r"^gc (\d+) @([\d.]+)s \d+%: ([\d.]+)\+([\d.]+)\+([\d.]+) ms clock", re.MULTILINE)
_D_COLLECTIONS = re.compile(r"^\s*Number of collections:\s+(\d+)", re.MULTILINE)
_D_SUMMARY = re.compile(r"^GC summary:.*?(\d+) GC\s+(\d+) ms, Pauses\s+(\d+) ms <\s+(\d+) ms", re.MULTILINE)
_NIM_STAT = re.compile(r"^\[GC\] ([a-z ]+?)(?: \[ms\])?: (\d+)$", re.MULTILINE)
_OCAML_STAT = re.compile(r"^(minor_collections|major_collections|compactions|forced_major_collections): (\d+)$",
                         re.MULTILINE)


def parse_deallocation(text: str) -> Pauses:
    """The programs' own timing of each tree's deallocation (C, C++, Rust): totals only."""
    found = _DEALLOCATION.findall(text)
    if not found:
        raise ValueError("no 'binary-trees: deallocation pauses' line in the program's stderr")
    count, total, longest = found[-1]
    return Pauses("deallocation of each tree, timed by the program", count=int(count), total_ms=float(total),
                  max_ms=float(longest))


def parse_boehm(text: str) -> Pauses:
    """Boehm's GC_PRINT_STATS log: per collection, the world-stopped marking plus the finalization
    and sweep start that follow it under the collector's lock (the mutator waits for both)."""
    rows = []
    number: int | None = None
    stopped_ms = 0.0
    for line in text.splitlines():
        if (match := _BOEHM_MARKING.match(line)) is not None:
            number, stopped_ms = int(match.group(1)), 0.0
        elif (match := _BOEHM_STOPPED.match(line)) is not None and number is not None:
            stopped_ms = int(match.group(1)) + int(match.group(2)) / 1e6
        elif (match := _BOEHM_FINALIZE.match(line)) is not None and number is not None:
            a_ms, a_ns, b_ms, b_ns = (int(g) for g in match.groups())
            rows.append({"source": "collector", "name": f"collection #{number}", "start_s": math.nan,
                         "duration_ms": stopped_ms + a_ms + a_ns / 1e6 + b_ms + b_ns / 1e6})
            number = None
    return Pauses.listed("Boehm GC_PRINT_STATS: world-stopped marking + finalize and sweep start",
                         pd.DataFrame(rows, columns=PAUSE_COLUMNS), len(rows))


def parse_gctrace(text: str) -> Pauses:
    """GODEBUG=gctrace=1: each cycle's two stop-the-world phases (sweep termination, mark termination)."""
    rows = []
    cycles = 0
    for number, at_s, sweep_term, _, mark_term in _GCTRACE.findall(text):
        cycles += 1
        for name, ms in (("sweep termination", sweep_term), ("mark termination", mark_term)):
            rows.append({"source": "collector", "name": f"gc {number} {name}", "start_s": float(at_s),
                         "duration_ms": float(ms)})
    return Pauses.listed("Go gctrace: stop-the-world phases", pd.DataFrame(rows, columns=PAUSE_COLUMNS), cycles)


def parse_jvm(log: Path, collector: str | None) -> Pauses:
    """The unified GC log's pauses. CMS logs a failed young collection's Full GC inside it (both
    timing one stop), so for CMS each stop is counted once (gclog.outer_pauses); for the others every
    pause is its own stop: generational ZGC's young and old pauses often share a millisecond of
    uptime and would look nested."""
    events = gclog.parse(log, collector)
    stops = gclog.outer_pauses(events) if collector == "cms" else gclog.pauses(events)
    table = pd.DataFrame({"source": "collector", "name": stops["name"].astype(str), "start_s": stops["start_s"],
                          "duration_ms": stops["duration_ms"].astype(float)}, columns=PAUSE_COLUMNS)
    cycles = events["gc_id"].dropna().nunique() if len(events) else 0
    return Pauses.listed("JVM unified GC log: pauses", table, int(cycles))


def parse_d(text: str) -> Pauses:
    """D's --DRT-gcopt=profile:1 report: collections, total and longest pause, in whole ms."""
    summary = _D_SUMMARY.search(text)
    collections = _D_COLLECTIONS.search(text)
    if summary is None or collections is None:
        raise ValueError("no D GC profile ('GC summary:') in the program's output")
    return Pauses("D GC profile: total and longest pause", count=int(collections.group(1)),
                  total_ms=float(summary.group(3)), max_ms=float(summary.group(4)),
                  collections=int(collections.group(1)), resolution_ms=1.0)


def parse_nim(text: str) -> Pauses:
    """Nim's GC_getStatistics: refc reports its longest pause (whole ms) and its stack scans (one per
    collection); markAndSweep only its collections."""
    stats = {name: int(value) for name, value in _NIM_STAT.findall(text)}
    if not stats:
        raise ValueError("no Nim GC statistics ('[GC] ...') in the program's stderr")
    if "max pause time" in stats:
        return Pauses("Nim refc GC statistics: longest pause", max_ms=float(stats["max pause time"]),
                      collections=stats.get("stack scans"), resolution_ms=1.0)
    return Pauses("Nim GC statistics: collections only, no pause times", collections=stats.get("collections"))


def parse_ocaml(text: str) -> Pauses:
    """OCAMLRUNPARAM=v=0x400: the GC counters at exit (OCaml 4 reports no pause times)."""
    stats = {name: int(value) for name, value in _OCAML_STAT.findall(text)}
    if "minor_collections" not in stats:
        raise ValueError("no OCaml GC counters ('minor_collections: ...') in the program's stderr")
    return Pauses("OCaml GC counters: collections only, no pause times",
                  collections=stats["minor_collections"] + stats.get("major_collections", 0))


def parse_boehm_and_deallocation(text: str) -> Pauses:
    """Boehm with explicit free: the collector's pauses and the timed deallocations, both kept."""
    collector, freed = parse_boehm(text), parse_deallocation(text)
    return Pauses("Boehm GC_PRINT_STATS pauses; deallocation of each tree, timed by the program",
                  collector.table, (collector.count or 0) + (freed.count or 0),
                  (collector.total_ms or 0) + (freed.total_ms or 0),
                  max(collector.max_ms or 0, freed.max_ms or 0), collector.collections)


PAUSE_PARSERS: dict[str, Callable[[str], Pauses]] = {
    "deallocation": parse_deallocation,
    "boehm": parse_boehm,
    "boehm+deallocation": parse_boehm_and_deallocation,
    "gctrace": parse_gctrace,
    "d": parse_d,
    "nim": parse_nim,
    "ocaml": parse_ocaml,
}
NO_PAUSES = "not reported by this runtime"


def allocator_line(text: str) -> str | None:
    """What the program said it allocates with ('binary-trees: allocator ...')."""
    found = re.findall(r"^binary-trees: allocator (.+)$", text, re.MULTILINE)
    return found[-1].strip() if found else None

