"""The binary-trees shoot-out's lists, variants and cells (chapter 10).

The lists come first (as in mimalloc-bench): edit them to change what runs; how big and how
often is each profile's binary-trees plan (profiles.BinaryTreesPlan). A `Variant` is one row: a
program of binary-trees/ (built by `make binary-trees` into build/binary-trees/bin), its
environment and where its pauses come from. A `BinaryTreesCell` is one repetition of one variant
at one depth (a store's cell kind "binary-trees").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from allocorpool import kinds, paths
from allocorpool.collectors import THREAD_BUDGET
from allocorpool.lists import named
from allocorpool.profiles import Profile
from allocorpool.run import jdks

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
    return named(VARIANTS_BY_NAME, name, "binary-trees variant")


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
@kinds.register
@dataclass(frozen=True)
class BinaryTreesCell:
    """One repetition of one variant at one depth."""

    kind: ClassVar[str] = "binary-trees"  # allocorpool.kinds: registered
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


def cells(prof: Profile, chosen: Iterable[Variant] | None = None) -> list[BinaryTreesCell]:
    """The profile's cells, repetitions interleaved: every variant's first run, then every second, ..."""
    chosen = list(VARIANTS if chosen is None else chosen)
    plan = prof.binary_trees
    return [BinaryTreesCell(v.name, depth, repetition) for depth in plan.depths
            for repetition in range(1, plan.repetitions + 1) for v in chosen]


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
        flags += THREAD_BUDGET.flags(v.collector)  # type: ignore[arg-type]
        if gc_log is not None:
            # filecount=0: one file, never rotated (the default keeps 5 x 20 MB and drops the oldest)
            flags.append(f"-Xlog:gc*,safepoint:file={gc_log}:uptime,level,tags:filecount=0")
        return [str(jdks.java_executable(v.jdk)), *flags, "-cp", str(programs / "java"),  # type: ignore[arg-type]
                "BinaryTrees", str(depth)]
    args = [str(programs / v.program), str(depth)]
    if v.pauses == "d":
        args.append("--DRT-gcopt=profile:1")  # read by D's runtime, removed from the program's arguments
    return args

