"""The binary-trees shoot-out (seed 002): one program, every allocator and collector, one row each.

The lists and the per-profile sizes come first (as in mimalloc-bench): edit them to change what
runs. A `Variant` is one row: a program of binary-trees/ (built by `make binary-trees` into
build/binary-trees/bin), its environment and where its pauses come from. A `BinaryTreesCell` is
one repetition of one variant at one depth; it goes into the study's store like the engines'
cells (kind "binary-trees"), so a finished repetition is never rerun and a failed or timed-out one
is kept with its stderr tail. Repetitions are interleaved (every variant's first, then every
variant's second, ...) so that a slow spell of the machine does not land on one variant.

Each run is measured from outside: a small launcher (binary-trees/measure) forks the program and
reports its wall time (monotonic clock) and the user and sys time and peak RSS of the rusage that
its wait4 returns; the launcher is there because a program forked from this Python process
would carry the process's peak RSS into its own. Its stdout must be the benchmarks game's
check lines for the depth, exactly, or the run is an error. Pauses come from what each runtime
reports (the parsers below, one per report format): the programs' own timing of each tree's
deallocation (C, C++, Rust), Boehm's GC_PRINT_STATS, the JVM's unified GC log, Go's
GODEBUG=gctrace=1, D's --DRT-gcopt=profile:1, Nim refc's GC statistics; OCaml 4 and Nim's
markAndSweep report collections but no pause times, and the row says so.
"""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from allocorpool import paths, settings
from allocorpool.data import gclog
from allocorpool.data.records import Run
from allocorpool.data.store import Store
from allocorpool.run import jdks
from allocorpool.run.executor import run_missing
from allocorpool.run.runner import STDERR_TAIL_CHARS, CellResult

# ---- The selectable lists -------------------------------------------------------------
JAVA_MAJORS = (11, 17, 21, 25)
# Collectors left out, with the reason the table gives.
JAVA_LEFT_OUT = {"epsilon": "Epsilon never frees: this program allocates about 7 GB of 24-byte nodes at depth 20 "
                            "and 15 GB at 21, more than a shared 24 GB machine can give one run"}
MARKERS = 2  # "several markers": the machine's 2 cores (the seed's Mac used 4)
# Rows of the seed that are not reproduced here, and why.
NOT_REPRODUCED = {
    "dart": ("Dart", "Dart garbage collector",
             "no Dart SDK in Debian 12 or in a registry this machine reaches (PyPI, crates.io, npm, Maven Central, "
             "the Go proxy)"),
    "tiny-gc": ("C", "Tiny GC (w/ dlmalloc as base allocator)",
                "the seed author's own collector: its code is not published in a package, and others' code is "
                "not copied into the study"),
}


@dataclass(frozen=True)
class BinaryTreesProfile:
    """How big and how often: the depths (the seed ran 20 and 21), repetitions per variant and depth,
    and the time one run may take before it is stopped and recorded as timed out."""

    name: str
    description: str
    depths: tuple[int, ...]
    repetitions: int
    timeout_s: float


PROFILES: dict[str, BinaryTreesProfile] = {p.name: p for p in (
    BinaryTreesProfile("ci", "one run of each variant at depth 10 (well under a second each): for the tests",
                       depths=(10,), repetitions=1, timeout_s=120),
    BinaryTreesProfile("quick", "five runs of each variant at depth 18 (a quarter of the seed's smaller size)",
                       depths=(18,), repetitions=5, timeout_s=300),
    BinaryTreesProfile("full", "the seed's depths, 20 and 21, five runs of each variant",
                       depths=(20, 21), repetitions=5, timeout_s=1800),
)}

MIN_DEPTH = 4
REPORT_PREFIX = "binary-trees: "


# ---- Variants ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """One row of the shoot-out."""

    name: str
    language: str
    label: str
    memory: str  # "malloc/free", "pool/arena", "tracing GC", "reference counting"
    program: str  # under build/binary-trees/bin ("java/BinaryTrees.class" for the JVM rows)
    pauses: str | None  # the report format (PAUSE_PARSERS), None: nothing reported
    env: tuple[tuple[str, str], ...] = ()
    bump_allocation: bool = False  # allocation is a pointer bump inlined by the compiler (JVM TLABs, OCaml minor heap)
    mark_sweep: bool = False  # a non-moving mark-and-sweep collector (Boehm, D, Go, Nim's): the seed's "mark and sweep"
    seed_label: str | None = None  # the seed's row this one reproduces
    jdk: int | None = None
    collector: str | None = None
    unavailable: str | None = None  # a row that cannot be run here, and why

    @property
    def is_java(self) -> bool:
        return self.jdk is not None


def _boehm_env(markers: int) -> tuple[tuple[str, str], ...]:
    return (("GC_MARKERS", str(markers)), ("GC_PRINT_STATS", "1"))


def _native_variants() -> list[Variant]:
    malloc = "malloc/free"
    return [
        Variant("c-glibc", "C", "C, glibc malloc", malloc, "c-glibc", "deallocation",
                seed_label="System malloc()/free()"),
        Variant("c-jemalloc", "C", "C, jemalloc", malloc, "c-jemalloc", "deallocation",
                seed_label="jemalloc explicit malloc()/free()"),
        Variant("c-mimalloc", "C", "C, mimalloc", malloc, "c-mimalloc", "deallocation"),
        Variant("c-tcmalloc", "C", "C, tcmalloc", malloc, "c-tcmalloc", "deallocation"),
        Variant("c-boehm-1", "C", "C, Boehm GC, 1 marker", "tracing GC", "c-boehm", "boehm", _boehm_env(1),
                mark_sweep=True, seed_label="Boehm GC with single-threaded marking"),
        Variant(f"c-boehm-{MARKERS}", "C", f"C, Boehm GC, {MARKERS} markers", "tracing GC", "c-boehm", "boehm",
                _boehm_env(MARKERS), mark_sweep=True, seed_label="Boehm GC with four parallel marker threads"),
        Variant("c-boehm-free", "C", "C, Boehm GC, explicit free", malloc, "c-boehm-free", "boehm+deallocation",
                _boehm_env(1), seed_label="Boehm GC with explicit deallocation"),
        Variant("c-boehm-incremental", "C", f"C, Boehm GC, incremental, {MARKERS} markers", "tracing GC",
                "c-boehm-incremental", "boehm", _boehm_env(MARKERS), mark_sweep=True,
                seed_label="Boehm GC with incremental collection"),
        Variant("c-arena", "C", "C, arena per tree", "pool/arena", "c-arena", "deallocation"),
        Variant("cpp-new-delete", "C++", "C++, new/delete", malloc, "cpp-new-delete", "deallocation"),
        Variant("cpp-pool", "C++", "C++, std::pmr pool", "pool/arena", "cpp-pool", "deallocation"),
        Variant("rust-system", "Rust", "Rust, system allocator", malloc, "rust-system", "deallocation"),
        Variant("rust-dlmalloc", "Rust", "Rust, dlmalloc, no lock", malloc, "rust-dlmalloc", "deallocation",
                seed_label="dlmalloc explicit malloc()/free() (not threadsafe)"),
        Variant("rust-dlmalloc-locked", "Rust", "Rust, dlmalloc behind a lock", malloc, "rust-dlmalloc-locked",
                "deallocation", seed_label="dlmalloc explicit malloc()/free() (threadsafe)"),
        Variant("go", "Go", "Go", "tracing GC", "go", "gctrace", (("GODEBUG", "gctrace=1"),),
                mark_sweep=True, seed_label="Go garbage collector"),
        Variant("ocaml", "OCaml", "OCaml", "tracing GC", "ocaml", "ocaml", (("OCAMLRUNPARAM", "v=0x400"),),
                bump_allocation=True, seed_label="OCaml"),
        Variant("nim-refc", "Nim", "Nim, refc", "reference counting", "nim-refc", "nim",
                seed_label="Nim reference counting GC"),
        Variant("nim-markandsweep", "Nim", "Nim, mark and sweep", "tracing GC", "nim-markAndSweep", "nim",
                mark_sweep=True, seed_label="Nim mark and sweep GC"),
        Variant("nim-boehm", "Nim", f"Nim, Boehm GC, {MARKERS} markers", "tracing GC", "nim-boehm", "boehm",
                _boehm_env(MARKERS), mark_sweep=True, seed_label="Nim with Boehm GC"),
        Variant("nim-orc", "Nim", "Nim, ORC", "reference counting", "nim-orc", None),
        Variant("d-classes", "D", "D, classes", "tracing GC", "d-classes", "d", mark_sweep=True,
                seed_label="D garbage collector (classes)"),
        Variant("d-structs", "D", "D, structs", "tracing GC", "d-structs", "d", mark_sweep=True,
                seed_label="D garbage collector (structs)"),
    ]


def _java_variants() -> list[Variant]:
    out = []
    for major in JAVA_MAJORS:
        for collector in jdks.collectors_of(major):
            description = jdks.COLLECTORS[collector].description.split(" (")[0].split(":")[0]
            out.append(Variant(f"java{major}-{collector}", "Java", f"Java {major}, {description}", "tracing GC",
                               "java/BinaryTrees.class", "jvm", bump_allocation=True,
                               seed_label="Java default garbage collector" if (major, collector) == (11, "g1") else None,
                               jdk=major, collector=collector, unavailable=JAVA_LEFT_OUT.get(collector)))
    return out


def _not_reproduced() -> list[Variant]:
    return [Variant(name, language, label, "tracing GC", "", None, seed_label=label, unavailable=reason)
            for name, (language, label, reason) in NOT_REPRODUCED.items()]


VARIANTS: tuple[Variant, ...] = (*_native_variants(), *_java_variants(), *_not_reproduced())
VARIANTS_BY_NAME = {v.name: v for v in VARIANTS}


def variant(name: str) -> Variant:
    if name not in VARIANTS_BY_NAME:
        raise ValueError(f"unknown binary-trees variant {name!r}; one of {', '.join(VARIANTS_BY_NAME)}")
    return VARIANTS_BY_NAME[name]


def profile(name: str | BinaryTreesProfile) -> BinaryTreesProfile:
    if isinstance(name, BinaryTreesProfile):
        return name
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; one of {', '.join(PROFILES)}")
    return PROFILES[name]


def bin_dir() -> Path:
    return paths.project_root() / "build" / "binary-trees" / "bin"


def why_unavailable(v: Variant, programs: Path | None = None) -> str | None:
    """Why a variant cannot run here (None when it can): a fixed reason, or what its build said."""
    if v.unavailable:
        return v.unavailable
    programs = programs or bin_dir()
    explained = programs / f"{v.program}.unavailable"
    if explained.is_file():
        return f"not built: {explained.read_text().strip()}"
    if not (programs / v.program).is_file():
        return f"not built: {programs / v.program} is missing (run `make binary-trees`)"
    if v.is_java:
        try:
            jdks.java_executable(v.jdk)  # type: ignore[arg-type]
        except FileNotFoundError as error:
            return str(error)
    return None


# ---- Cells ------------------------------------------------------------------------------
@dataclass(frozen=True)
class BinaryTreesCell:
    """One repetition of one variant at one depth."""

    kind: ClassVar[str] = "binary-trees"  # data.store.CELL_TYPES
    variant: str
    depth: int
    repetition: int

    def __post_init__(self) -> None:
        variant(self.variant)
        if not 0 <= self.depth <= 30:
            raise ValueError(f"depth {self.depth}: an integer from 0 to 30")
        if self.repetition < 1:
            raise ValueError(f"repetition {self.repetition}: counted from 1")

    @property
    def key(self) -> str:
        return f"binary-trees_{self.variant}_d{self.depth}_r{self.repetition}"

    def params(self) -> dict[str, Any]:
        return asdict(self)


def cells(prof: BinaryTreesProfile, chosen: Iterable[Variant] | None = None) -> list[BinaryTreesCell]:
    """The profile's cells, repetitions interleaved: every variant's first run, then every second, ..."""
    chosen = list(VARIANTS if chosen is None else chosen)
    return [BinaryTreesCell(v.name, depth, repetition) for depth in prof.depths
            for repetition in range(1, prof.repetitions + 1) for v in chosen]


def expected_output(depth: int) -> list[str]:
    """The benchmarks game's check lines for a depth (a tree of depth d has 2^(d+1) - 1 nodes)."""
    max_depth = max(MIN_DEPTH + 2, depth)
    lines = [f"stretch tree of depth {max_depth + 1}\t check: {2 ** (max_depth + 2) - 1}"]
    for d in range(MIN_DEPTH, max_depth + 1, 2):
        iterations = 1 << (max_depth - d + MIN_DEPTH)
        lines.append(f"{iterations}\t trees of depth {d}\t check: {iterations * (2 ** (d + 1) - 1)}")
    lines.append(f"long lived tree of depth {max_depth}\t check: {2 ** (max_depth + 1) - 1}")
    return lines


def command(v: Variant, depth: int, gc_log: Path | None = None, programs: Path | None = None) -> list[str]:
    """The command line of a variant at a depth."""
    programs = programs or bin_dir()
    if v.is_java:
        flags = list(jdks.collector_flags(v.jdk, v.collector))  # type: ignore[arg-type]
        if gc_log is not None:
            # filecount=0: one file, never rotated (the default keeps 5 x 20 MB and drops the oldest)
            flags.append(f"-Xlog:gc*,safepoint:file={gc_log}:uptime,level,tags:filecount=0")
        return [str(jdks.java_executable(v.jdk)), *flags, "-cp", str(programs / "java"),  # type: ignore[arg-type]
                "BinaryTrees", str(depth)]
    args = [str(programs / v.program), str(depth)]
    if v.pauses == "d":
        args.append("--DRT-gcopt=profile:1")  # read by D's runtime, removed from the program's arguments
    return args


# ---- Pause reports: one parser per format --------------------------------------------------
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


# ---- Versions -----------------------------------------------------------------------------
_TOOLCHAINS = {
    "C": ["gcc", "--version"], "C++": ["g++", "--version"], "Rust": ["rustc", "--version"],
    "Go": ["go", "version"], "OCaml": ["ocamlopt", "-version"], "Nim": ["nim", "--version"],
    "D": ["gdc", "--version"],
}


@cache
def toolchain(language: str) -> str | None:
    """The first line the language's compiler prints of its version (None where it is missing)."""
    argv = _TOOLCHAINS.get(language)
    if argv is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else None


@cache
def crate_version(name: str) -> str | None:
    """A crate's version pinned in binary-trees/rust/Cargo.lock."""
    lock = paths.project_root() / "binary-trees" / "rust" / "Cargo.lock"
    found = re.search(rf'name = "{re.escape(name)}"\nversion = "([^"]+)"', lock.read_text()) if lock.is_file() else None
    return found.group(1) if found else None


def runtime_version(v: Variant, said: str | None) -> str:
    """The allocator's or runtime's version for the record: what the program said, with the pinned
    crate where the program cannot tell."""
    text = said or "unknown"
    if v.name.startswith("rust-dlmalloc"):
        text += f" (dlmalloc {crate_version('dlmalloc')})"
    return text


# ---- Running one cell ----------------------------------------------------------------------
def _stop(pid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0] != 0:
                return
            time.sleep(0.05)


def _tail(path: Path) -> str:
    data = path.read_bytes() if path.is_file() else b""
    return data[-STDERR_TAIL_CHARS:].decode("utf-8", errors="replace")


@dataclass
class Measured:
    """One process, measured by the launcher that forked it."""

    exit_code: int | None
    timed_out: bool
    wall_s: float
    user_s: float | None
    sys_s: float | None
    peak_rss_bytes: int | None


_MEASURED = re.compile(r"^wall_s=([\d.]+) user_s=([\d.]+) sys_s=([\d.]+) maxrss_kb=(\d+) exit=(-?\d+) signal=(\d+)$")


def launcher(programs: Path | None = None) -> Path:
    """binary-trees/measure/measure.c, built with the programs: it forks each one and reports the
    rusage its wait4 returns. Forked from this Python process instead, a program's peak RSS would
    start at this process's (Linux carries ru_maxrss across exec)."""
    path = (programs or bin_dir()) / "measure"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; build it with `make binary-trees`")
    return path


def measure(argv: list[str], env: dict[str, str], stdout: Path, stderr: Path, cwd: Path, timeout_s: float,
            programs: Path | None = None, poll_s: float = 0.02) -> Measured:
    """Runs argv through the launcher in a session of its own (a timeout stops both by their group):
    wall, user and sys time and peak RSS of the program itself."""
    report = stdout.with_suffix(".measured")
    report.unlink(missing_ok=True)
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        started = time.monotonic()
        process = subprocess.Popen([str(launcher(programs)), str(report), *argv], stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=err, cwd=cwd, env=env, start_new_session=True)
    while process.poll() is None:
        if time.monotonic() - started > timeout_s:
            _stop(process.pid)
            process.returncode = -signal.SIGKILL  # reaped by _stop: Popen must not wait for it again
            return Measured(None, True, time.monotonic() - started, None, None, None)
        time.sleep(poll_s)
    found = _MEASURED.match(report.read_text().strip()) if report.is_file() else None
    if found is None:  # the launcher itself failed: its message is in stderr
        return Measured(process.returncode, False, time.monotonic() - started, None, None, None)
    wall, user, sys_, rss_kb, code, _ = found.groups()
    return Measured(int(code), False, float(wall), float(user), float(sys_), int(rss_kb) * 1024)


def run_cell(cell: BinaryTreesCell, workdir: Path, timeout_s: float, programs: Path | None = None,
             build: Callable[[Variant, int, Path | None], list[str]] | None = None) -> CellResult:
    """Runs one repetition and returns it as the store keeps cells: status, rusage figures and pause
    summary in the run's summary, each listed pause in its `pause` table. Never raises for what the
    program does."""
    v = variant(cell.variant)
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    stdout, stderr = workdir / f"{cell.key}.stdout", workdir / f"{cell.key}.stderr"
    gc_log = workdir / f"{cell.key}.gc.log" if v.pauses == "jvm" else None
    if gc_log is not None:
        gc_log.unlink(missing_ok=True)
    header: dict[str, Any] = {"program": "binary-trees", "variant": v.name, "language": v.language,
                              "depth": cell.depth, "repetition": cell.repetition,
                              "compiler": toolchain(v.language), "commit": paths.source_commit()}
    try:
        argv = (build or (lambda var, depth, log: command(var, depth, log, programs)))(v, cell.depth, gc_log)
    except (OSError, ValueError) as error:
        return CellResult(cell, "error", None, str(error), 0.0, Run(header, {}, None), None, [])
    if v.is_java:
        header.update(vm_flags=argv[1:argv.index("-cp")])
    env = {**os.environ, **dict(v.env)}
    try:
        measured = measure(argv, env, stdout, stderr, workdir, timeout_s, programs)
    except OSError as error:
        return CellResult(cell, "error", None, str(error), 0.0, Run(header, {}, None), None, argv)
    out_text = stdout.read_text(errors="replace") if stdout.is_file() else ""
    err_text = stderr.read_text(errors="replace") if stderr.is_file() else ""
    said = allocator_line(err_text)
    if v.is_java and said:
        header.update(jdk_version=said.rsplit(" ", 1)[-1], vm_name=said.rsplit(" ", 1)[0])
    summary: dict[str, Any] = {"wall_s": measured.wall_s, "user_s": measured.user_s, "sys_s": measured.sys_s,
                               "peak_rss_bytes": measured.peak_rss_bytes, "runtime": runtime_version(v, said)}
    problem = None
    if measured.timed_out:
        problem = f"timed out after {measured.wall_s:.0f} s"
    elif measured.exit_code != 0:
        problem = f"exit code {measured.exit_code}"
    else:
        lines = out_text.splitlines()
        expected = expected_output(cell.depth)
        extra = lines[len(expected):] if v.pauses == "d" else []  # D's runtime prints its profile on stdout
        if lines[:len(expected)] != expected or (v.pauses != "d" and len(lines) != len(expected)):
            problem = f"wrong output: expected {len(expected)} check lines for depth {cell.depth}, got " \
                      f"{lines[:len(expected) + 1]!r}"
        out_text = "\n".join(extra)
    tables: dict[str, pd.DataFrame] = {}
    pauses = None
    if problem is None:
        try:
            pauses = _pauses(v, gc_log, err_text, out_text)
        except (OSError, ValueError) as error:
            problem = f"pause report unreadable: {error}"
    if pauses is not None:
        summary.update(pause_source=pauses.source, pause_count=pauses.count, pause_total_ms=pauses.total_ms,
                       pause_max_ms=pauses.max_ms, collections=pauses.collections,
                       pause_resolution_ms=pauses.resolution_ms)
        if len(pauses.table):
            tables["pause"] = pauses.table
    status = "timeout" if measured.timed_out else ("ok" if problem is None else "error")
    summary.update(status="ok" if problem is None else "error", error=problem)
    tail = _tail(stderr)
    return CellResult(cell, status, measured.exit_code, tail if problem else tail[-400:], measured.wall_s,
                      Run(header, tables, summary), None, argv)


def _pauses(v: Variant, gc_log: Path | None, err_text: str, extra_stdout: str) -> Pauses:
    if v.pauses is None:
        return Pauses(NO_PAUSES)
    if v.pauses == "jvm":
        if gc_log is None or not gc_log.is_file():
            raise ValueError("the JVM wrote no GC log")
        return parse_jvm(gc_log, v.collector)
    return PAUSE_PARSERS[v.pauses](err_text + "\n" + extra_stdout)


# ---- The sweep -----------------------------------------------------------------------------
MACHINE = ["host", "cpu_model", "cpus", "memory_bytes", "kernel", "commit"]  # of machine.FINGERPRINT_FIELDS
FIGURES = ["wall_s", "user_s", "sys_s", "peak_rss_bytes", "pause_count", "pause_total_ms", "pause_max_ms",
           "collections"]


@dataclass
class Results:
    """A profile's binary-trees results: every run, and one row per variant and depth."""

    profile: BinaryTreesProfile
    runs: pd.DataFrame  # one row per cell: variant, depth, repetition, status, error, stderr tail, figures
    table: pd.DataFrame  # per variant and depth: medians, spread, runs, failures; unavailable rows too
    pauses: pd.DataFrame  # every listed pause of the finished runs, with variant and depth

    @property
    def failures(self) -> pd.DataFrame:
        """Runs that failed or timed out (a run the store does not hold is no failure: `missing`)."""
        return self.runs[self.runs["status"].notna() & (self.runs["status"] != "ok")]

    @property
    def missing(self) -> pd.DataFrame:
        """Runs of the profile the store does not hold (a replay of a store the sweep has not filled)."""
        return self.runs[self.runs["status"].isna()]


def _log(text: str, progress: bool) -> None:
    if progress:
        print(f"[binary-trees] {text}", file=sys.__stderr__, flush=True)


def sweep(profile_name: str | BinaryTreesProfile | None = None, data_dir: str | Path | None = None,
          chosen: Iterable[str] | None = None, retry_failed: bool = False, progress: bool = True,
          programs: Path | None = None, store: Store | None = None,
          run: Callable[[BinaryTreesCell], CellResult] | None = None) -> Results:
    """Runs every cell of the profile the store lacks (interleaved repetitions) and reads all back (a replay,
    make article, only reads: run.executor.run_missing)."""
    prof = profile(profile_name or settings.profile_name())
    store = store or Store.chosen(prof.name, data_dir)
    wanted = [variant(name) for name in chosen] if chosen is not None else list(VARIANTS)
    # A replay reads what the store holds, whatever this machine has built: only a fixed reason stands.
    reasons = {v.name: v.unavailable if settings.replaying() else why_unavailable(v, programs) for v in wanted}
    runnable = [v for v in wanted if reasons[v.name] is None]
    todo = cells(prof, runnable)
    started, count = time.monotonic(), 0

    def run_one(cell: BinaryTreesCell) -> CellResult:
        nonlocal count
        count += 1
        _log(f"{cell.key} ...", progress)
        result = (run or (lambda c: run_cell(c, store.runs_dir, prof.timeout_s, programs)))(cell)
        wall = result.run.summary.get("wall_s") if result.run.summary else None
        _log(f"{cell.key}: {result.status}" + (f", {wall:.2f} s" if wall else "") +
             f" ({count} run, {time.monotonic() - started:.0f} s so far)", progress)
        return result

    index = run_missing(todo, store, run=run_one, retry_failed=retry_failed, progress=False) if todo else None
    _log(f"done: {count} run(s) in this session, the rest read from {paths.shown(store.root)}", progress)
    runs = _runs(index, todo)
    table = summarise(runs, [v for v in wanted], reasons, prof)
    pauses = _pause_rows(store, runs)
    return Results(prof, runs, table, pauses)


def _runs(index: pd.DataFrame | None, todo: list[BinaryTreesCell]) -> pd.DataFrame:
    rows = {row["key"]: row for row in index.to_dict("records")} if index is not None else {}
    out = []
    for cell in todo:
        row = rows.get(cell.key, {})
        ok = row.get("status") == "ok"
        out.append({"key": cell.key, "variant": cell.variant, "depth": cell.depth, "repetition": cell.repetition,
                    "status": row.get("status"), "error": row.get("error"), "stderr_tail": row.get("stderr_tail"),
                    "runtime": row.get("runtime"), "compiler": row.get("compiler"), "jdk_build": row.get("jdk_build"),
                    "pause_source": row.get("pause_source"), "pause_resolution_ms": row.get("pause_resolution_ms"),
                    **{name: row.get(name) for name in MACHINE},
                    **{name: (row.get(name) if ok else None) for name in FIGURES}})
    return pd.DataFrame(out, columns=["key", "variant", "depth", "repetition", "status", "error", "stderr_tail",
                                      "runtime", "compiler", "jdk_build", "pause_source", "pause_resolution_ms",
                                      *MACHINE, *FIGURES])


def _first(values: pd.Series) -> Any:
    values = values.dropna()
    return values.iloc[0] if len(values) else None


def summarise(runs: pd.DataFrame, chosen: list[Variant], reasons: dict[str, str | None],
              prof: BinaryTreesProfile) -> pd.DataFrame:
    """One row per variant and depth: medians and spread (min, max) of the finished runs, how many
    ran and failed; variants that cannot run here are rows with their reason and no figures."""
    rows = []
    for v in chosen:
        for depth in prof.depths:
            base = {"variant": v.name, "language": v.language, "label": v.label, "memory": v.memory,
                    "bump_allocation": v.bump_allocation, "mark_sweep": v.mark_sweep, "seed_label": v.seed_label, "jdk": v.jdk,
                    "collector": v.collector, "depth": depth}
            if reasons.get(v.name):
                rows.append({**base, "status": "unavailable", "why": reasons[v.name], "runs": 0, "failed": 0})
                continue
            mine = runs[(runs["variant"] == v.name) & (runs["depth"] == depth)]
            ok = mine[mine["status"] == "ok"]
            failed = mine[mine["status"].notna() & (mine["status"] != "ok")]  # no status: not measured
            row = {**base, "status": "ok" if len(ok) and not len(failed) else ("failed" if len(failed) else "missing"),
                   "why": "; ".join(sorted(set(failed["error"].dropna().astype(str)))) or None,
                   "runs": len(ok), "failed": len(failed), "runtime": _first(mine["runtime"]),
                   "compiler": _first(mine["compiler"]), "pause_source": _first(ok["pause_source"]),
                   "pause_resolution_ms": _first(ok["pause_resolution_ms"])}
            for name in FIGURES:
                values = pd.to_numeric(ok[name], errors="coerce").dropna()
                row[name] = float(values.median()) if len(values) else None
                row[f"{name}_min"] = float(values.min()) if len(values) else None
                row[f"{name}_max"] = float(values.max()) if len(values) else None
            rows.append(row)
    figures = [f"{name}{end}" for name in FIGURES for end in ("", "_min", "_max")]
    table = pd.DataFrame(rows)
    return table.reindex(columns=[*table.columns, *[c for c in figures if c not in table.columns]])


def _pause_rows(store: Store, runs: pd.DataFrame) -> pd.DataFrame:
    finished = runs[(runs["status"] == "ok")]
    keys = set(finished["key"])
    rows = store.rows("pause") if keys else pd.DataFrame()
    if not len(rows):
        return pd.DataFrame(columns=[*PAUSE_COLUMNS, "key", "variant", "depth", "repetition"])
    rows = rows[rows["key"].isin(keys)].reindex(columns=[*PAUSE_COLUMNS, "key"])  # the store drops all-empty columns
    return rows.merge(finished[["key", "variant", "depth", "repetition"]], on="key")


def main(argv: list[str] | None = None) -> int:
    """python -m allocorpool.run.binary_trees [--profile P] [--variant NAME ...]: runs what is missing."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m allocorpool.run.binary_trees", description=main.__doc__)
    parser.add_argument("--profile", default="quick", help=f"one of {', '.join(PROFILES)}")
    parser.add_argument("--variant", action="append", help="a variant (repeatable; default: all)")
    parser.add_argument("--retry-failed", action="store_true", help="run failed or timed-out cells again")
    args = parser.parse_args(argv)
    try:
        prof = profile(args.profile)
        for name in args.variant or []:
            variant(name)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    results = sweep(prof, chosen=args.variant, retry_failed=args.retry_failed)
    columns = ["label", "depth", "status", "runs", "wall_s", "user_s", "sys_s", "peak_rss_bytes", "pause_max_ms", "why"]
    with pd.option_context("display.width", 200, "display.max_rows", 200, "display.max_colwidth", 60):
        print(results.table[columns].to_string(index=False))
    return 1 if len(results.failures) else 0


if __name__ == "__main__":
    sys.exit(main())
