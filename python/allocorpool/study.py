"""What the study measures: its selectable lists, its solutions and its three profiles.

The lists come first (as in mimalloc-bench): edit them to change the study. A solution is
what the summary tables call one: an engine with a JDK and a collector (and compact object
headers), or a C++ design with an allocator. A profile sets how big and how long every run
is: `ci` (seconds per cell, for the notebook tests), `quick` (the whole study at a tenth of
the article's sizes) and `full` (the article's sizes and durations).

Heaps scale with the profile's --scale so that small runs keep the article's proportions of
heap to live set: 2 GB x scale for the heap strategies, half of that for the native-buffer ones
(whose 2 GB of direct memory is a limit, kept as the article's), and five times it for the
article's "(10 GB)" loss column; MIN_HEAP_MB only keeps the smallest profile above what a JVM
needs for itself. Epsilon never collects: it gets a fixed heap, touched before the run
(-XX:+AlwaysPreTouch, so that first touches of fresh pages are not what is measured), and its
runs end when the heap is 90 % used (--stop-when-heap-full: the window is what the heap holds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import pandas as pd

from allocorpool import paths
from allocorpool.analysis.min_heap import STEP_DOWN
from allocorpool.analysis.search import RESOLUTION
from allocorpool.run import jdks
from allocorpool.run.blocks import Block
from allocorpool.run.runner import Cell

# ---- The selectable lists -------------------------------------------------------------
STRATEGIES = ("dummy", "alloc", "mix", "pool")
STRATEGY_LABELS = {"dummy": "Dummy", "alloc": "Allocation", "mix": "Mix", "pool": "Pooling"}  # the article's
REALTIME_STRATEGIES = ("alloc", "mix", "pool")  # the dummy strategy only measures the harness
CASES = ("A", "B", "C")
ALLOCATORS = ("glibc", "jemalloc", "mimalloc", "tcmalloc")
SEED_JDK = 11  # the article ran CMS and G1 on Java 8 and ZGC on Java 11; 11 is the oldest here and the last with CMS
MODERN_JDK = 25
ARTICLE_HEAP_MB = 2048  # the article's -Xmx2g; its native-buffer runs had half (1 GB)
BIG_HEAP_FACTOR = 5  # the article's "(10 GB)" column: five times the heap
MIN_HEAP_MB = 96  # JDK 11's ZGC fails under it at ci's sizes (40 MB will not start, 64 MB runs out with the pool); only ci reaches it
# The part of a collector's heap that does not shrink with the live set (its pages, the headroom it
# collects in), which a small profile keeps whole while it scales the rest. From chapter 13's minimum
# heaps of case C at two sizes ("vm", 2026-11-23): JDK 11's ZGC needs 1512 MB for allocation at the
# article's sizes and 223 MB at a tenth, so min heap = 80 MB + 0.1 x 1432 MB; pooling's 1328 MB and
# 204 MB give 79 MB + 0.1 x 1249 MB. Scaled whole, quick's
# 205 MB was under that minimum (it kept up at full size and lost 55 % in quick: chapter 12); with
# the 80 MB kept, the heap's room above the minimum scales with the live set. Collectors not listed
# were not measured to need it.
UNSCALED_HEAP_MB: dict[tuple[int, str], int] = {(SEED_JDK, "zgc"): 80}
EPSILON_HEAP_MB = 8192
# Epsilon touches every page of its heap once, before the run, so that the run measures allocation
# and not the kernel handing out fresh pages.
EPSILON_OPTIONS = ("-XX:+AlwaysPreTouch",)
REFERENCE_NS = 1000  # the article's interval for "lost: x%"
MAX_CAPTURING_DELAY_MS = 100  # the article's input queue, in time


@dataclass(frozen=True)
class Solution:
    """One row group of the summary tables."""

    name: str
    label: str
    engine: str  # "java" or "cpp"
    reference_name: str | None = None  # its name in data/reference/article_reference.csv (the 2019 article's)
    jdk: int | None = None
    collector: str | None = None
    native_buffers: bool = False  # the native-* strategies: buffers off-heap, 1 GB heap
    compact_headers: bool = False
    design: str | None = None  # cpp: "cpp" or "flat"
    allocator: str | None = None
    fixed_heap_mb: int | None = None
    baseline: bool = False  # shown, but never marked best: it cannot run for long
    vm_options: tuple[str, ...] = ()  # JVM options beyond the collector's own
    about: str = ""  # what the short label stands for, for the article's glossary ("" : the label says it)

    def engine_strategy(self, strategy: str) -> str:
        """The engine's name for a strategy (native buffers have their own, except dummy)."""
        return f"native-{strategy}" if self.native_buffers and strategy != "dummy" else strategy

    def heap_mb(self, scale: float) -> int | None:
        if self.engine != "java":
            return None
        if self.fixed_heap_mb is not None:
            return self.fixed_heap_mb
        full = ARTICLE_HEAP_MB / 2 if self.native_buffers else ARTICLE_HEAP_MB
        kept = UNSCALED_HEAP_MB.get((self.jdk, self.collector), 0) if self.jdk is not None else 0
        return max(MIN_HEAP_MB, round(kept + (full - kept) * scale))

    @property
    def filler(self) -> str:
        """What sets its fill phase's speed (FILL_NS_PER_PACKET): the engine, or a C++ design."""
        return self.design or self.engine

    def big_heap_mb(self, scale: float) -> int | None:
        """The heap of the article's "(10 GB)" column; None where it does not apply or equals heap_mb."""
        if self.engine != "java" or self.native_buffers or self.fixed_heap_mb is not None:
            return None
        heap = self.heap_mb(scale)
        return None if heap is None else BIG_HEAP_FACTOR * heap


def _cpp(design: str, allocator: str) -> Solution:
    title = "C++" if design == "cpp" else "C++ flat"
    reference = title if allocator == "glibc" else None
    return Solution(f"{design}-{allocator}", f"{title} ({allocator})", "cpp", reference_name=reference, design=design,
                    allocator=allocator)


# The article ran its G1 rows with an 80 ms pause goal; the rows compared with them do too.
G1_ARTICLE_GOAL = ("-XX:MaxGCPauseMillis=80",)

SOLUTIONS: tuple[Solution, ...] = (
    # the article's solutions as it ran them, in its order. Its "CMS" rows passed no collector flag to
    # Java 8, whose default was Parallel (its logs say "Full GC (Ergonomics)", which only Parallel prints).
    Solution("parallel-11", "Parallel 11, 2019 \"CMS\"", "java", "CMS", SEED_JDK, "parallel",
             about="JDK 11, Parallel collector: the 2019 article's \"CMS\" rows passed no collector flag, so ran Parallel"),
    Solution("g1", "G1 11", "java", "G1", SEED_JDK, "g1", vm_options=G1_ARTICLE_GOAL,
             about="JDK 11, G1 with the 2019 article's 80 ms pause goal"),
    Solution("zgc", "ZGC 11", "java", "ZGC", SEED_JDK, "zgc", about="JDK 11, ZGC (experimental then)"),
    Solution("native-parallel-11", "Native Parallel 11, 2019 \"Native CMS\"", "java",
             "Native CMS", SEED_JDK, "parallel", native_buffers=True,
             about="JDK 11, Parallel, buffers in native memory off the heap: the 2019 \"Native CMS\" as it ran"),
    Solution("native-g1", "Native G1 11", "java", "Native G1", SEED_JDK, "g1", native_buffers=True,
             vm_options=G1_ARTICLE_GOAL, about="JDK 11, G1 (80 ms goal), buffers in native memory"),
    Solution("native-zgc", "Native ZGC 11", "java", "Native ZGC", SEED_JDK, "zgc", native_buffers=True,
             about="JDK 11, ZGC, buffers in native memory"),
    _cpp("cpp", "glibc"),
    _cpp("flat", "glibc"),
    # the collector the article named but did not run
    Solution("cms", "CMS 11", "java", jdk=SEED_JDK, collector="cms"),
    Solution("native-cms", "Native CMS 11", "java", jdk=SEED_JDK, collector="cms", native_buffers=True),
    # today's collectors and allocators
    Solution("g1-25", "G1 25", "java", jdk=MODERN_JDK, collector="g1"),
    Solution("g1-25-coh", "G1 25, compact headers", "java", jdk=MODERN_JDK, collector="g1",
             compact_headers=True),
    Solution("parallel-25", "Parallel 25", "java", jdk=MODERN_JDK, collector="parallel"),
    Solution("shenandoah-25", "Shenandoah 25", "java", jdk=MODERN_JDK, collector="shenandoah"),
    Solution("zgc-gen-25", "Generational ZGC 25", "java", jdk=MODERN_JDK, collector="zgc-gen"),
    Solution("native-zgc-gen-25", "Native generational ZGC 25", "java", jdk=MODERN_JDK,
             collector="zgc-gen", native_buffers=True),
    Solution("epsilon-25", "Epsilon 25 (no GC)", "java", jdk=MODERN_JDK, collector="epsilon",
             fixed_heap_mb=EPSILON_HEAP_MB, baseline=True, vm_options=EPSILON_OPTIONS),
    *(_cpp(design, allocator) for design in ("cpp", "flat") for allocator in ALLOCATORS[1:]),
)
SOLUTIONS_BY_NAME = {s.name: s for s in SOLUTIONS}

# Selections of solutions a sweep can be limited to (`make sweep SOLUTIONS=paper`): "paper", the
# article's eight solutions as it ran them; "all", every solution the profile has.
SELECTIONS: dict[str, tuple[str, ...] | None] = {
    "all": None,
    "paper": tuple(s.name for s in SOLUTIONS if s.reference_name),
}
SELECTION_TEXTS = {"all": "every solution the profile has", "paper": "the article's solutions, as it ran them"}

# Which chapter (notebook) runs which solutions; the summary shows them all.
CHAPTERS: dict[str, tuple[str, ...]] = {
    "batch": ("parallel-11", "cms", "parallel-25", "epsilon-25"),
    "g1": ("g1", "g1-25", "g1-25-coh"),
    "zgc": ("zgc", "zgc-gen-25", "shenandoah-25"),
    "native": ("native-parallel-11", "native-cms", "native-g1", "native-zgc", "native-zgc-gen-25"),
    "cpp": tuple(s.name for s in SOLUTIONS if s.engine == "cpp"),
}
CHAPTERS["realtime"] = CHAPTERS["gclogs"] = CHAPTERS["batch"]

# The solutions the batch chapter also runs with the `random` packet source, to show per cell what
# the published code's `counter` draws change: the article's "CMS" as run, and flat C++.
SOURCE_SOLUTIONS = ("parallel-11", "flat-glibc")

# The article's printed real-time runs (solution, strategy, case) at 1000 ns, replayed as timelines.
TIMELINES = (("parallel-11", "alloc", "A"), ("parallel-11", "pool", "A"), ("native-parallel-11", "pool", "C"))

# The minimum-heap chapter (heap sizes as multiples of each cell's minimum heap, as DaCapo Chopin
# gives them): the article's collectors as it ran them, and today's on JDK 25.
HEAP_SOLUTIONS = ("parallel-11", "g1", "zgc", "parallel-25", "g1-25", "zgc-gen-25", "shenandoah-25")
CHAPTERS["heap"] = HEAP_SOLUTIONS

# The live-set continuum: the internal FIFO and the store sized together, from case A's 1,000 past
# case C's 495,000, for a handful of collectors and flat C++; and the pool's size alone, up to the
# article's "ten million buffers" what-if. The pool grows with the live set (it must hold the FIFO
# and the store, docs/records.md), from the article's POOL_SIZE.
CONTINUUM_SOLUTIONS = ("parallel-11", "g1", "zgc-gen-25", "shenandoah-25", "flat-glibc")
CHAPTERS["continuum"] = CONTINUUM_SOLUTIONS
POOL_SIZE = 1_000_000

# The collectors-across-JDKs chapter: each JDK's collectors as it ships them (no flag but the
# collector's own; the article's G1 rows add an 80 ms goal, these do not), in the article's heap.
COLLECTOR_LABELS = {"serial": "Serial", "parallel": "Parallel", "cms": "CMS", "g1": "G1", "zgc": "ZGC",
                    "zgc-gen": "Generational ZGC", "shenandoah": "Shenandoah",
                    "shenandoah-gen": "Generational Shenandoah"}


def jdk_solutions(plan: JdkPlan) -> list[Solution]:
    """A solution per JDK of the plan and collector it has, JDK by JDK in COLLECTOR_LABELS' order."""
    return [Solution(f"{collector}-{jdk}", f"{COLLECTOR_LABELS[collector]} (JDK {jdk})", "java", jdk=jdk,
                     collector=collector)
            for jdk in plan.jdks for collector in COLLECTOR_LABELS
            if collector in jdks.collectors_of(jdk) and (plan.collectors is None or collector in plan.collectors)]

# The cells that show whether a small profile is a true miniature of the article's sizes: each
# (solution, case) with all its strategies, so that their order can be compared too.
SENTINELS: tuple[tuple[str, str], ...] = (
    ("parallel-11", "A"), ("parallel-11", "B"), ("parallel-11", "C"), ("g1", "C"), ("zgc", "C"),
    ("native-parallel-11", "C"), ("flat-glibc", "C"))


# The engines' last change that alters what a cell measures (the builds before it are java
# b63d5051e81b, cpp 3ff949ef812b). The measured window of a real-time run is the ticks due in it, for
# its loss and its latency (docs/records.md): a pause that straddled the warm-up's end used to lose for
# the window every tick the consumer found missing after the window opened. And the Java consumer loads
# no class in the window: its first read of the process's CPU time loaded the OS MXBean (about 200
# classes) there, and its first window period HdrHistogram's ConcurrentHistogram, which voided the
# compiled real-time loop.
MEASUREMENT_CHANGE = ("the measured window became the ticks due in it, and the Java consumer stopped loading "
                      "classes in it (docs/records.md)")

# Engine builds (tools/source_id.py) whose finished cells a sweep takes as its own build's, so that
# a long sweep resumes across an engine change that alters no stored figure. Each entry says what
# changed since; a change that alters what a cell measures must empty the list (MEASUREMENT_CHANGE did).
SAME_MEASUREMENT_BUILDS: dict[str, dict[str, str]] = {
    "java": {"9f24b021cea7": "added the probe series (--probes-from-stdin) and the header's series_probe; a run of "
                             "its own runs as before",
             "0997b85b0112": "the queue benchmark's header has series_probe too (null)",
             "60f6c1cfa87d": "native-queue's tick producer takes its pace clock as a template argument, for tests; "
                             "the clock thread compiles to the same instructions",
             "034efef65076": "the real-time loop reads the time on its tick source's clock, System.nanoTime for the "
                             "engine's sources (a test's is scripted); the per-packet path is unchanged"},
    "cpp": {"3c66a9270919": "the machine check's memory_latency program and its test joined cpp-lib's build "
                            "(CMakeLists.txt); the engine's code is unchanged",
            "aeec5c53b4ea": "the real-time loop takes its tick source as a template argument, for tests: the clock "
                            "thread compiles to the same instructions, the consumer loop differs in register "
                            "allocation only"}}


# ---- Profiles ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchPlan:
    """How the real-time search (analysis.search.find_interval) runs under a profile."""

    high_ns: int  # the largest interval probed
    longest_probe_s: float  # a confirmation's cap: it lasts long enough for two of the slowest collections
    confirm: bool = True  # confirm the interval found with that longer probe (Java cells)
    low_ns: int = 20  # the low end where the batch time per packet is unknown
    start_factor: float = 1.5  # the first probe: this x the batch time per packet
    digits: int = 2  # the grid: significant digits of the intervals probed (the article's tables: two)
    resolution: float = RESOLUTION  # the search ends when the loss-free interval is within this share of a lossy one
    # For the estimate: the probes longer than probe_s a Java search runs on average, and their mean
    # length as a share of longest_probe_s, as measured. More than one: a confirmation that loses (a rare
    # collection the short probes missed) makes every later probe as long as it, and the search
    # brackets and bisects again above (analysis.search.find_interval).
    long_probes: float = 1.0
    long_probe_share: float = 1.0
    # A Java search's probes in one JVM that fills the model once (run.probe_series), not each in its own.
    series: bool = False


@dataclass(frozen=True)
class HeapPlan:
    """How the minimum-heap chapter runs under a profile (analysis.min_heap)."""

    factors: tuple[float, ...] = (1.5, 2, 3, 6)  # the heaps measured, as multiples of the minimum heap
    resolution: float = 0.05  # the bisection ends when a heap that completes is within 5 % of one that does not
    strategies: tuple[str, ...] = ("alloc", "pool")  # the two ends: mix lies between them
    cases: tuple[str, ...] | None = None  # None: the profile's
    floor_mb: int = 16  # the smallest heap tried
    # The bisection's runs only need to complete: they may be shorter than the profile's batch runs
    # (None: as long), which measure each multiple. Every run fills its store first.
    search_s: float | None = None
    search_warmup_s: float | None = None
    # Runs at each multiple: a short run holds few collections near the minimum heap, so one run's
    # overhead can be far off (quick's three runs of one configuration differed by a median 18 and up
    # to 154 percentage points; "vm", 2026-11-23).
    repeats: int = 1
    # For the estimate: how many times slower than in the solution's heap a bisection run fills its
    # store near the minimum, where the collector thrashes (quick, case C allocation: 11-35 s against
    # 5-9 s, about 3 times).
    near_min_fill_factor: float = 3


@dataclass(frozen=True)
class ContinuumPlan:
    """How the continuum chapter runs under a profile: the live-set sizes (FIFO = store, before the
    profile's scale), the strategies, the interval of the real-time probe at each size, and the pool
    sizes of the pool-size what-if (case B)."""

    sizes: tuple[int, ...] = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
    strategies: tuple[str, ...] = ("alloc", "mix", "pool")
    interval_ns: int = REFERENCE_NS
    pool_sizes: tuple[int, ...] = (1_000_000, 3_000_000, 10_000_000)


@dataclass(frozen=True)
class BlockPlan:
    """How a profile measures a comparison as a block (run.blocks): each repetition a fresh process, the
    cells of one comparison interleaved. Batch blocks run shorter than the profile's single batch runs:
    several short runs tell the spread between processes, which one long run cannot."""

    repetitions: int = 5  # 0: no blocks, each batch cell runs once (as on a cluster, where a block cannot run)
    batch_s: float | None = None  # None: the profile's batch_s
    batch_warmup_s: float | None = None
    probe_repetitions: int = 3  # real-time blocks: probes of every strategy at one interval, each this often


@dataclass(frozen=True)
class JdkPlan:
    """How the collectors-across-JDKs chapter runs under a profile: the JDKs, the collectors (None: every
    one each JDK has, but Epsilon, which never collects), the strategies and cases (None: the profile's),
    and the interval of the real-time probe."""

    jdks: tuple[int, ...] = (11, 17, 21, 25)
    collectors: tuple[str, ...] | None = None
    strategies: tuple[str, ...] = ("alloc", "mix", "pool")
    cases: tuple[str, ...] | None = ("C",)  # the case that decides: only there do collectors differ much
    interval_ns: int = REFERENCE_NS


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    scale: float
    batch_s: float
    batch_warmup_s: float
    probe_s: float
    probe_warmup_s: float
    timeline_s: float
    # A sentinel cell's long run at 1000 ns, where its search kept up there (chapter 12): long enough for
    # the slowest collections, which short probes can miss (native Parallel's pooling C: at full size one
    # 500 ms full collection 52 s into 90 s at 1000 ns; at a tenth, a 42-56 ms one every 6 s; "vm", 2026-11-24).
    long_run_s: float
    queue_probe_s: float  # the queue benchmark's probes with 100 ms of ticks per array
    queue_fixed_probe_s: float  # its probes under the original's fixed capacity (10 s to compare with it)
    search: SearchPlan
    cases: tuple[str, ...] = CASES
    solutions: tuple[str, ...] | None = None  # None: every solution
    strict: bool = False  # a chapter fails when any of its runs failed or it has no result (the tests' profile)
    heap: HeapPlan = HeapPlan()
    continuum: ContinuumPlan = ContinuumPlan()
    jdks: JdkPlan = JdkPlan()
    # The input queue's capacity as a share of the article's (None: the scale). A pause does not
    # shrink in proportion to the live set (a collection has fixed costs), so a small profile's queue
    # is sized by how its pauses measured against the article's sizes: chapter 12 shows the ratio.
    queue_scale: float | None = None
    # The delay a real-time consumer sees beyond its GC pauses whatever the live set (the OS handing
    # its core to the collector's concurrent threads, the JIT, the machine's own jitter). It does not
    # shrink, so the queue keeps it whole beside the scaled part: the article's queue bridges a pause
    # P plus this delay D, and a small profile's must bridge queue_scale x P + D.
    unscaled_delay_ms: float = 0.0
    # Before its first run a sweep checks that the machine runs at the speed of the one that measured the
    # store (run.machine_check): the full profile's, whose committed store grows over sessions and boots;
    # quick's and the tests' stores are made in one go.
    machine_check: bool = False
    blocks: BlockPlan = BlockPlan()

    def selects(self, solution: Solution) -> bool:
        return self.solutions is None or solution.name in self.solutions

    @property
    def capture_delay_ms(self) -> float:
        """The input queue's capacity in time: the article's 100 ms scaled as the pauses are, so that
        a pause keeps its ratio to what the queue bridges."""
        return self.queue_ms(MAX_CAPTURING_DELAY_MS)

    def queue_ms(self, article_ms: float) -> float:
        """An input queue of the article's sizes (article_ms of ticks) in this profile: it loses a packet
        when a pause P plus the unscaled delay D outlasts it, so article_ms - D scales with the pauses."""
        share = self.scale if self.queue_scale is None else self.queue_scale
        return round(article_ms * share + self.unscaled_delay_ms * (1 - share), 3)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("ci", "seconds per cell, case A, a solution of each kind: for the notebook tests",
            scale=0.02, batch_s=1, batch_warmup_s=0.5, probe_s=1, probe_warmup_s=0.5, timeline_s=2, long_run_s=2,
            queue_probe_s=0.2, queue_fixed_probe_s=0.2,
            search=SearchPlan(high_ns=1000, longest_probe_s=2, confirm=False, digits=1),
            cases=("A",), strict=True, heap=HeapPlan(factors=(2, 6), resolution=0.25), blocks=BlockPlan(repetitions=2, probe_repetitions=2),
            continuum=ContinuumPlan(sizes=(1_000, 30_000, 1_000_000), strategies=("alloc", "pool"),
                                    pool_sizes=(1_000_000, 10_000_000)),
            jdks=JdkPlan(jdks=(11, 25), collectors=("parallel", "g1"), strategies=("alloc", "pool"), cases=None),
            solutions=("parallel-11", "g1", "zgc", "native-parallel-11", "native-g1", "native-zgc", "cpp-glibc",
                       "flat-glibc", "g1-25-coh", "zgc-gen-25", "epsilon-25", "flat-jemalloc")),
    Profile("quick", "the whole study at a tenth of the article's sizes, short runs and a coarser search",
            scale=0.1, batch_s=1.5, batch_warmup_s=0.5, probe_s=1.5, probe_warmup_s=0.5, timeline_s=10, long_run_s=12,
            queue_probe_s=0.5, queue_fixed_probe_s=1,
            # 27 long probes in the 18 Java sentinel searches, all 6 s ("vm", 2026-11-25)
            search=SearchPlan(high_ns=2000, longest_probe_s=6, long_probes=1.5),
            heap=HeapPlan(resolution=0.1, cases=("C",), repeats=3),
            # The longest pause of the Java sentinel cells' batch runs at a tenth of the sizes was
            # 0.137 x that at full size (the median of 15 cells, 0.10 to 0.50; "vm", 2026-11-23): a
            # collection's fixed costs do not shrink. A queue of 10 ms lost packets behind 10 ms young
            # pauses in Parallel's mix B, which keeps up at full size behind 77 ms ones (chapter 12).
            queue_scale=0.14,
            # Java probes of the quick sentinels at twice their batch time per packet or more waited a
            # median 9 ms longer than their longest pause (72 probes, "vm", 2026-11-23; ZGC's 24 to
            # 37 ms with no pause over 0.3 ms; flat C++'s a median 4.5 ms): chapter 12 shows it.
            unscaled_delay_ms=9),
    # The article's sizes. Every run fills its store before its warm-up, so the warm-ups need only
    # settle the JIT and the heap; a probe of 8 s holds two of the article's ~4 s collection periods,
    # and the interval found is confirmed by a probe holding the cell's slowest collection twice.
    Profile("full", "the article's sizes: batch blocks of three 10 s runs per cell, 8 s probes confirmed by a longer "
                    "one, a fine search",
            scale=1.0, batch_s=20, batch_warmup_s=5, probe_s=8, probe_warmup_s=2, timeline_s=60, long_run_s=120,
            queue_probe_s=2, queue_fixed_probe_s=10,
            # Searched up to 2000 ns, as quick is: the article's tables print no interval above 2000 ns
            # (G1's allocation B), and "lost" means no loss-free interval up to twice the reference. Up
            # to 10,000 ns, the paper searches' probes above 2000 ns were 1.7 of their 4.8 h ("vm",
            # 2026-11-25, replayed from data/full), and probes of 30 s cannot show the article's loss
            # at 10,000 ns anyway (80K packets every 40 s). Its 54 Java searches ran 5.3 short probes and 1.6
            # long ones of a mean 28.0 s each ("vm", 2026-11-25; bisecting to two digits and doubling above a
            # lost confirmation, 6.1 short and 2.2 long of 29.8 s; up to 10,000 ns, 4.9 long of 27.5 s).
            search=SearchPlan(high_ns=2000, longest_probe_s=30, long_probes=1.6, long_probe_share=0.93),
            # The bisection runs at full size filled 6.6 times the model's fill on the mean (130 runs, case C,
            # JDK 11 2.5-3.2 times on the median, JDK 25's Shenandoah 9.2: runs thrash up to the fill limit;
            # "vm", 2026-11-26).
            heap=HeapPlan(cases=("C",), search_s=5, search_warmup_s=2, near_min_fill_factor=6.6),
            continuum=ContinuumPlan(sizes=(1_000, 10_000, 100_000, 1_000_000)), machine_check=True,
            blocks=BlockPlan(repetitions=3, batch_s=10, batch_warmup_s=3)),
)}


def profile(name: str | Profile) -> Profile:
    if isinstance(name, Profile):
        return name
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; one of {', '.join(PROFILES)}")
    return PROFILES[name]


def selection(name: str) -> tuple[str, ...] | None:
    """The solutions of a selection (SELECTIONS); a clear error naming the valid ones otherwise."""
    if name not in SELECTIONS:
        raise ValueError(f"unknown selection of solutions {name!r}; one of {', '.join(SELECTIONS)}")
    return SELECTIONS[name]


def solutions(names: tuple[str, ...] | list[str] | None = None, profile_: Profile | None = None,
              selected: tuple[str, ...] | None = None) -> list[Solution]:
    """The named solutions (all when None) in the study's order, less those the profile leaves out and
    those a selection (when given) does not hold."""
    wanted = SOLUTIONS if names is None else tuple(SOLUTIONS_BY_NAME[n] for n in names)
    wanted = tuple(s for s in wanted if selected is None or s.name in selected)
    order = {s.name: i for i, s in enumerate(SOLUTIONS)}
    return sorted((s for s in wanted if profile_ is None or profile_.selects(s)), key=lambda s: order[s.name])


# ---- Cells ------------------------------------------------------------------------------
def heap_text(mb: int) -> str:
    return f"{mb // 1024}g" if mb % 1024 == 0 else f"{mb}m"


def _cell(solution: Solution, strategy: str, case: str, prof: Profile, heap_mb: int | None = None,
          **run: object) -> Cell:
    common: dict[str, object] = dict(case=case, strategy=solution.engine_strategy(strategy), scale=prof.scale,
                                     build=paths.engine_build(solution.engine), **run)
    if solution.engine == "cpp":
        return Cell(engine="cpp", design=solution.design, allocator=solution.allocator, **common)  # type: ignore[arg-type]
    heap = heap_mb or solution.heap_mb(prof.scale)
    assert heap is not None
    return Cell(engine="java", jdk=solution.jdk, collector=solution.collector, heap=heap_text(heap),
                compact_headers=solution.compact_headers, vm_options=solution.vm_options, gc_log=True,
                stop_when_heap_full=solution.collector == "epsilon", **common)  # type: ignore[arg-type]


def batch_cell(solution: Solution, strategy: str, case: str, prof: Profile, source: str = "counter",
               heap_mb: int | None = None, duration_s: float | None = None, warmup_s: float | None = None,
               fill_limit_s: float | None = None, repetition: int = 0) -> Cell:
    """A batch run (in the solution's heap and for the profile's time unless told); Java ones log GC
    and count live objects at the end (the GC table's last columns), except where nothing is ever
    collected."""
    live = solution.engine == "java" and not solution.baseline
    return _cell(solution, strategy, case, prof, heap_mb, mode="batch", fill_limit_s=fill_limit_s, repetition=repetition,
                 duration_s=prof.batch_s if duration_s is None else duration_s,
                 warmup_s=prof.batch_warmup_s if warmup_s is None else warmup_s, source=source,
                 **({"live_objects": True} if live else {}))


def batch_block(solution: Solution, case: str, prof: Profile, source: str = "counter") -> Block:
    """The batch comparison of one solution and case: every strategy's batch run, as a block of the
    profile's repetitions and run length (BlockPlan)."""
    plan = prof.blocks
    cells = tuple(batch_cell(solution, strategy, case, prof, source, duration_s=plan.batch_s, warmup_s=plan.batch_warmup_s)
                  for strategy in STRATEGIES)
    return Block(f"batch, {solution.name}, case {case}" + ("" if source == "counter" else f", {source} source"),
                 cells, plan.repetitions)


def probe_block(solution: Solution, case: str, prof: Profile, interval_ns: int = REFERENCE_NS) -> Block:
    """The real-time comparison of one solution and case at one interval: every real strategy's probe of
    the profile's length, as a block of BlockPlan.probe_repetitions."""
    cells = tuple(probe_cell(solution, strategy, case, prof, interval_ns) for strategy in REALTIME_STRATEGIES)
    return Block(f"real time at {interval_ns} ns, {solution.name}, case {case}", cells, prof.blocks.probe_repetitions)


def probe_cell(solution: Solution, strategy: str, case: str, prof: Profile, interval_ns: int,
               heap_mb: int | None = None, duration_s: float | None = None,
               capture_delay_ms: float | None = None, repetition: int = 0) -> Cell:
    """A real-time run at one interval (a search probe or its repeat, a big-heap probe, a timeline, or a
    what-if with a longer input queue): its input queue holds the profile's capture delay unless told."""
    return _cell(solution, strategy, case, prof, heap_mb, mode="realtime", interval_ns=interval_ns,
                 duration_s=duration_s if duration_s is not None else prof.probe_s, warmup_s=prof.probe_warmup_s,
                 capture_delay_ms=_queue_delay(prof, capture_delay_ms), repetition=repetition)


def _queue_delay(prof: Profile, capture_delay_ms: float | None = None) -> float | None:
    """A probe's input queue in time (the profile's unless told); None where it is the engines' own."""
    delay = capture_delay_ms if capture_delay_ms is not None else prof.capture_delay_ms
    return None if delay == MAX_CAPTURING_DELAY_MS else delay


def continuum_cells(solution: Solution, strategy: str, size: int, prof: Profile,
                    interval_ns: int | None = None, repetition: int = 0) -> tuple[Cell, Cell]:
    """The batch run and the real-time probe (at the continuum's interval unless told; its repeat when
    repetition > 0) of one live-set size (FIFO = store = size x scale), in a case-B run whose sizes are
    overridden; the pool holds the article's POOL_SIZE or both, if more."""
    count = max(1, round(size * prof.scale))
    sizes = dict(internal_queue_size=count, stored_count=count,
                 pool_size=max(round(POOL_SIZE * prof.scale), 2 * count + 2))
    batch = _cell(solution, strategy, "B", prof, mode="batch", duration_s=prof.batch_s, warmup_s=prof.batch_warmup_s,
                  **sizes)
    probe = _cell(solution, strategy, "B", prof, mode="realtime",
                  interval_ns=prof.continuum.interval_ns if interval_ns is None else interval_ns,
                  duration_s=prof.probe_s, warmup_s=prof.probe_warmup_s, capture_delay_ms=_queue_delay(prof),
                  repetition=repetition, **sizes)
    return batch, probe


def pool_size_cell(solution: Solution, pool_size: int, prof: Profile) -> Cell:
    """A batch run of the pool strategy in case B with a pool of pool_size x scale buffers; a JVM gets
    the big heap (the article's 10 GB x scale), which ten million buffers need."""
    return _cell(solution, "pool", "B", prof, solution.big_heap_mb(prof.scale), mode="batch",
                 duration_s=prof.batch_s, warmup_s=prof.batch_warmup_s, pool_size=max(1, round(pool_size * prof.scale)))


# ---- The time it takes ------------------------------------------------------------------
# What a run costs beyond its fill phase and its measured time (start-up, set-up, exit), by filler:
# the medians of the committed full-size runs on 2 cores ("vm", 2026-11-23; Java 1.4-1.6 s in every
# case, C++ 1.3 s in case A). A C++ batch run also runs its allocation-counting pass (cpp-lib's
# counting_pass.hpp; real-time runs skip it, Cell.engine_args): the counting build fills the same
# model again, about as long as the run's own fill, then counts for 1 s (what a batch run took beyond
# its fill and measured time, less 2.3 s, over its fill: medians by design and allocator of the
# committed full-size runs, "vm", 2026-11-26: case C 0.86 to 1.23, case B 0.40 to 0.90; a factor of
# 1.3 overestimated the C++ batch runs by 16 %). How often the first guess of a search keeps up was
# measured in a quick sweep.
RUN_OVERHEAD_S = {"java": 1.4, "cpp": 1.3, "flat": 1.3}
# Repeated probes of a continuum line: the two sizes around its change of verdict, where it has one.
CONTINUUM_REPEATS = 2
COUNTING_PASS_S = 1.0
COUNTING_FILL_FACTOR = 1.0
START_KEEPS_UP = 0.8
# The share of sentinel searches that keep up at 1000 ns, which chapter 12 runs long there (8 of 21 at
# full size and 8 of 21 at a tenth; "vm", 2026-11-24).
LONG_RUN_SHARE = 8 / 21
TYPICAL_LOW_NS = 150  # where a search's lower end usually is, for the estimate
# What a probe after the first of a series (run.probe_series) costs beyond its measured time (no JVM start,
# no fill): the mean of 21 such probes of seven full-size sentinel searches, 0.18 s (median 0.05, at most
# 0.52; "vm", 2026-11-26, tools/compare_series.py). A probe alone costs 1.9 s beyond its fill and measured time.
SERIES_PROBE_OVERHEAD_S = 0.2
# The fill phase before every run: about 74 packets per store slot (random slots to 99 %), flat out,
# at about these ns per packet, by engine (Java) or C++ design on glibc, and for a C++ design on
# another allocator that many times slower (the medians of the committed full-size fills, case C,
# on 2 cores, "vm", 2026-11-25: allocating C++ on glibc 332 ns over 86 runs, jemalloc 548, mimalloc
# 619, tcmalloc 557; flat C++ 220, 286, 240, 224, over 23 to 69 runs each).
FILL_PACKETS_PER_SLOT = 74
FILL_NS_PER_PACKET = {"java": 500, "cpp": 330, "flat": 220}
ALLOCATOR_FILL_FACTOR = {("cpp", "jemalloc"): 1.65, ("cpp", "mimalloc"): 1.85, ("cpp", "tcmalloc"): 1.7,
                         ("flat", "jemalloc"): 1.3, ("flat", "mimalloc"): 1.1}
# The engines' case sizes (case A as the published code ran it): the internal FIFO and the store.
INTERNAL_QUEUE_SIZE = {"A": 1_000, "B": 100_000, "C": 495_000}
STORED_COUNT = {"A": 1_000, "B": 100_000, "C": 495_000}


def live_packets(case: str, scale: float) -> int:
    """The packets a case holds live at a scale: its internal FIFO and its store."""
    return round(INTERNAL_QUEUE_SIZE[case] * scale) + round(STORED_COUNT[case] * scale)


def fill_s(case: str, scale: float, filler: str = "java", stored: int | None = None,
           allocator: str | None = None) -> float:
    """About how long a run's fill phase takes (a case's store, or `stored` slots before the scale);
    filler: Solution.filler; allocator: a C++ solution's."""
    slots = (STORED_COUNT[case] if stored is None else stored) * scale
    ns = FILL_NS_PER_PACKET[filler] * ALLOCATOR_FILL_FACTOR.get((filler, allocator or ""), 1.0)
    return FILL_PACKETS_PER_SLOT * slots * ns * 1e-9


def run_s(filler: str, measured_s: float, fill: float, counts_allocations: bool = True) -> float:
    """About how long one run takes: its fill phase (`fill`, seconds), its measured time (warm-up
    included) and what it costs beyond them; filler: Solution.filler. counts_allocations: whether a
    C++ run has its allocation-counting pass (batch runs do)."""
    counting = COUNTING_PASS_S + COUNTING_FILL_FACTOR * fill if filler != "java" and counts_allocations else 0.0
    return RUN_OVERHEAD_S[filler] + fill + measured_s + counting


def modelled_against_measured(index: pd.DataFrame, heap: HeapPlan | None = None) -> pd.DataFrame:
    """The estimate's model of a run against what a store's engine runs took (ok or not), by filler
    and mode: runs, measured and modelled minutes, and their ratio. It keeps the estimate honest: the
    model's constants came from one store, this shows how far they miss on any other. heap: the
    profile's, whose minimum-heap bisection runs (Java batch runs of its search_s) the estimate models
    with their slower fill near the minimum."""
    runs = index[index["cell_kind"] == "engine"]
    if runs.empty:
        return pd.DataFrame(columns=["runs", "measured_min", "model_min", "measured_per_model"])
    filler = runs["design"].fillna(runs["engine"])
    stored = runs["params_stored_count"].fillna(0)
    # a probe after the first of its series (run.probe_series) neither starts a JVM nor fills
    later = runs["series_probe"].fillna(0).gt(0) if "series_probe" in runs else pd.Series(False, index=runs.index)
    counted = runs["allocs_counted_packets"].fillna(0) > 0  # real-time runs before they skipped it counted too
    near_min = runs["duration_s"].eq(heap.search_s) & filler.eq("java") & runs["mode"].eq("batch") \
        if heap is not None and heap.search_s is not None else pd.Series(False, index=runs.index)
    slower = near_min.map({True: heap.near_min_fill_factor if heap else 1.0, False: 1.0})
    model = [SERIES_PROBE_OVERHEAD_S + d if after else
             run_s(f, d, k * fill_s(case, 1.0, f, stored=int(n), allocator=a), c)  # params_stored_count is scaled
             for f, case, d, n, c, a, k, after in zip(filler, runs["case"], runs["duration_s"], stored, counted,
                                                       runs["allocator"].where(runs["allocator"].notna(), None), slower,
                                                       later)]
    table = (runs.assign(filler=filler, model_s=model)
             .groupby(["filler", "mode"])
             .agg(runs=("elapsed_s", "size"), measured_s=("elapsed_s", "sum"), model_s=("model_s", "sum")))
    return in_minutes(table, ["runs"], ("all", ""))


def in_minutes(table: pd.DataFrame, counts: list[str], total: str | tuple[str, str]) -> pd.DataFrame:
    """A table of counts and measured_s / model_s sums, with a total row: the counts, both sums in
    minutes and their ratio."""
    table.loc[total, :] = table.sum()
    return pd.DataFrame({**{name: table[name].astype(int) for name in counts},
                         "measured_min": (table["measured_s"] / 60).round(1),
                         "model_min": (table["model_s"] / 60).round(1),
                         "measured_per_model": (table["measured_s"] / table["model_s"]).round(2)})


def expected_probes(plan: SearchPlan) -> float:
    """Short probes of a search: doubling from 1.5 x the batch figure to the first loss-free interval,
    then bisection of that factor of two to the resolution (three to 10 %; to one significant digit, about
    two), as often as the first guess keeps up; doubling to the largest interval where nothing keeps up."""
    start = TYPICAL_LOW_NS * plan.start_factor
    bisection = math.ceil(math.log2(math.log(2) / math.log(1 + plan.resolution))) if plan.digits > 1 else 2
    found = START_KEEPS_UP * 1 + (1 - START_KEEPS_UP) * 2 + bisection
    lost = 1 + math.ceil(math.log2(plan.high_ns / start))
    return START_KEEPS_UP * found + (1 - START_KEEPS_UP) * lost


def in_series(solution: Solution, plan: SearchPlan) -> bool:
    """Whether a plan runs the solution's searches in series (run.probe_series): Java, but Epsilon, whose
    probe ends when its heap is full."""
    return plan.series and solution.engine == "java" and solution.collector != "epsilon"


def search_s(solution: Solution, case: str, prof: Profile) -> float:
    """About how long one real-time search of a case takes: its short probes, then the probes the
    interval found rests on (a Java cell's confirmations where the profile confirms, else one repeat).
    In series, only the first probe starts a JVM and fills the model."""
    fill = fill_s(case, prof.scale, solution.filler, allocator=solution.allocator)
    plan = prof.search
    series = in_series(solution, plan)

    def probe(measured_s: float, first: bool = False) -> float:
        if series and not first:
            return SERIES_PROBE_OVERHEAD_S + measured_s
        return run_s(solution.filler, measured_s, fill, counts_allocations=False)
    if plan.confirm and solution.engine == "java":
        second_s = plan.long_probes * probe(plan.long_probe_share * plan.longest_probe_s)
    else:
        second_s = probe(prof.probe_s)
    return probe(prof.probe_s, first=True) + (expected_probes(plan) - 1) * probe(prof.probe_s) + second_s


def expected_heap_runs(plan: HeapPlan) -> float:
    """Runs of one minimum-heap bisection (analysis.min_heap): its start, about one step down by four,
    then the bisection of that factor of four to the resolution."""
    return 2 + math.ceil(math.log2(math.log(STEP_DOWN) / math.log(1 + plan.resolution)))


@dataclass(frozen=True)
class Estimate:
    batch_cells: int
    searches: int
    probes: float
    timelines: int
    long_runs: float
    heap_runs: float
    continuum_runs: int
    jdk_runs: int
    seconds: float  # the article's chapters
    beyond_seconds: float  # the chapters beyond the article: the minimum heap, the continuum, the JDKs (13-15)
    lines: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(self.lines)


def estimate(prof: Profile, chosen: list[Solution] | None = None, title: str = "") -> Estimate:
    """The cells a profile runs for the chosen solutions (all it selects by default) and about how long."""
    chosen_all = chosen is None
    chosen = solutions(None, prof) if chosen is None else [s for s in chosen if prof.selects(s)]
    cases = len(prof.cases)
    batch_s = searches = searches_other = probes = 0.0
    other = replace(prof, search=replace(prof.search, series=not prof.search.series))  # for the comparison
    batch_cells = search_count = 0
    per_search = expected_probes(prof.search)
    for s in chosen:
        fill = sum(fill_s(case, prof.scale, s.filler, allocator=s.allocator) for case in prof.cases) / cases
        sources = 2 if s.name in SOURCE_SOLUTIONS else 1  # the batch chapter's random-source cells
        batch_cells += len(STRATEGIES) * cases * sources
        batch_s += len(STRATEGIES) * cases * sources * run_s(s.filler, prof.batch_s, fill)
        search_count += len(REALTIME_STRATEGIES) * cases
        probes += len(REALTIME_STRATEGIES) * cases * per_search
        searches += len(REALTIME_STRATEGIES) * sum(search_s(s, case, prof) for case in prof.cases)
        searches_other += len(REALTIME_STRATEGIES) * sum(search_s(s, case, other) for case in prof.cases)
    names = {s.name for s in chosen}
    timelines = sum(1 for name, _, case in TIMELINES if name in names and case in prof.cases)
    timeline_s = timelines * run_s("java", prof.timeline_s, 0.0)
    sentinels = [(s, case) for name, case in SENTINELS for s in chosen if s.name == name and case in prof.cases]
    long_runs = LONG_RUN_SHARE * len(REALTIME_STRATEGIES) * len(sentinels)
    long_run_s = LONG_RUN_SHARE * len(REALTIME_STRATEGIES) * sum(
        run_s(s.filler, prof.long_run_s, fill_s(case, prof.scale, s.filler, allocator=s.allocator), counts_allocations=False)
        for s, case in sentinels)
    plan = prof.heap
    heap_cases = [case for case in (plan.cases or prof.cases) if case in prof.cases]
    heap_cells = len([s for s in chosen if s.name in HEAP_SOLUTIONS]) * len(plan.strategies)
    heap_runs = heap_cells * len(heap_cases) * (expected_heap_runs(plan) + len(plan.factors) * plan.repeats)
    heap_s = heap_cells * sum(
        expected_heap_runs(plan) * run_s("java", plan.search_s or prof.batch_s,
                                         plan.near_min_fill_factor * fill_s(case, prof.scale))
        + len(plan.factors) * plan.repeats * run_s("java", prof.batch_s, fill_s(case, prof.scale))
        for case in heap_cases)
    reach = prof.continuum
    on_continuum = [s for s in chosen if s.name in CONTINUUM_SOLUTIONS]
    # a line's change of verdict has its two sizes probed again (taken at the middle size)
    middle = sorted(reach.sizes)[len(reach.sizes) // 2]
    continuum_runs = len(on_continuum) * (len(reach.strategies) * (len(reach.sizes) * 2 + CONTINUUM_REPEATS)
                                          + len(reach.pool_sizes))
    continuum_s = sum(len(reach.strategies) * (sum(
        run_s(s.filler, prof.batch_s, fill_s("B", prof.scale, s.filler, stored=size, allocator=s.allocator))
        + run_s(s.filler, prof.probe_s, fill_s("B", prof.scale, s.filler, stored=size, allocator=s.allocator), False) for size in reach.sizes)
        + CONTINUUM_REPEATS * run_s(s.filler, prof.probe_s, fill_s("B", prof.scale, s.filler, stored=middle, allocator=s.allocator), False))
        + len(reach.pool_sizes) * run_s(s.filler, prof.batch_s, fill_s("B", prof.scale, s.filler, allocator=s.allocator))
        for s in on_continuum)
    # the JDKs chapter: its own solutions, those of a selection only when one was chosen (SOLUTIONS=paper)
    across = [s for s in jdk_solutions(prof.jdks) if chosen_all or s.name in names]
    jdk_cases = [case for case in (prof.jdks.cases or prof.cases) if case in prof.cases]
    jdk_runs = len(across) * len(prof.jdks.strategies) * len(jdk_cases) * 2
    jdk_s = len(across) * len(prof.jdks.strategies) * sum(
        run_s("java", prof.batch_s, fill_s(case, prof.scale)) + run_s("java", prof.probe_s, fill_s(case, prof.scale))
        for case in jdk_cases)
    total = batch_s + searches + timeline_s + long_run_s
    beyond = heap_s + continuum_s + jdk_s
    lines = [f"profile {prof.name}{title}: {prof.description}",
             f"  scale {prof.scale:g}; batch runs {prof.batch_s:g} s (warm-up {prof.batch_warmup_s:g} s); "
             f"probes {prof.probe_s:g} s (warm-up {prof.probe_warmup_s:g} s)",
             f"  {len(chosen)} solutions x {cases} case(s): {batch_cells} batch cells ~ {batch_s / 60:.1f} min; "
             f"{search_count} real-time searches x ~{per_search:g} short probes and the probes their interval "
             f"rests on ~ {searches / 60:.1f} min"
             + (f" ({'in series' if other.search.series else 'each probe in its own JVM'}, "
                f"{searches_other / 60:.1f} min)" if searches_other != searches else "") + "; "
             f"{timelines} timeline run(s) ~ {timeline_s / 60:.1f} min; "
             f"~{long_runs:.0f} sentinel long run(s) ~ {long_run_s / 60:.1f} min; "
             f"~{heap_runs:.0f} minimum-heap runs ~ {heap_s / 60:.1f} min; "
             f"{continuum_runs} continuum runs ~ {continuum_s / 60:.1f} min; "
             f"{jdk_runs} runs across the JDKs ~ {jdk_s / 60:.1f} min",
             f"  estimate: about {total / 60:.0f} min for the article's chapters and {beyond / 60:.0f} min more for "
             "chapters 13 to 15, a rough figure (a search that loses everywhere takes fewer probes and one more "
             "on the big heap, two where the first saw no collection; cells already stored are skipped)"]
    return Estimate(batch_cells, search_count, probes, timelines, long_runs, heap_runs, continuum_runs, jdk_runs,
                    total, beyond, lines)
