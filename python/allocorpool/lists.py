"""What the study measures: its selectable lists. Edit them to change the study (as in mimalloc-bench).

A solution is what the summary tables call one: an engine with a JDK and a collector (and compact
object headers), or a C++ design with an allocator. The strategies, cases and allocators, the
selections of solutions a sweep can be limited to, which chapter runs which solutions, and the cases'
sizes are here too. How big and how long each run is comes from a profile (profiles.py).

Heaps scale with the profile's --scale so that small runs keep the article's proportions of
heap to live set: 2 GB x scale for the heap strategies, half of that for the native-buffer ones
(whose 2 GB of direct memory is a limit, kept as the article's), and five times it for the
article's "(10 GB)" loss column; MIN_HEAP_MB only keeps the smallest profile above what a JVM
needs for itself. Epsilon never collects: it gets a fixed heap, touched before the run
(-XX:+AlwaysPreTouch, so that first touches of fresh pages are not what is measured), and its
runs end when the heap is 90 % used (--stop-when-heap-full: the window is what the heap holds).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

# The facts the engines share (engine-facts.json, beside this package's source: the cases, the pools, the
# limits, the failure codes, the run records' fields); the engines' tests check their own against the same file.
ENGINE_FACTS: dict[str, Any] = json.loads((Path(__file__).resolve().parents[2] / "engine-facts.json").read_text())

_Named = TypeVar("_Named")

STRATEGIES = ("dummy", "alloc", "mix", "pool")
STRATEGY_LABELS = {"dummy": "Dummy", "alloc": "Allocation", "mix": "Mix", "pool": "Pooling"}  # the article's
REALTIME_STRATEGIES = ("alloc", "mix", "pool")  # the dummy strategy only measures the harness
CASES = ("A", "B", "C")
ALLOCATORS = ("glibc", "jemalloc", "mimalloc", "tcmalloc")
ALLOCATOR_ABOUT = {"glibc": "glibc's malloc, as the 2019 article ran it", "jemalloc": "malloc replaced by jemalloc",
                   "mimalloc": "malloc replaced by mimalloc", "tcmalloc": "malloc replaced by tcmalloc"}
SEED_JDK = 11  # the article ran CMS and G1 on Java 8 and ZGC on Java 11; 11 is the oldest here and the last with CMS
MODERN_JDK = 25
ARTICLE_HEAP_MB = 2048  # the article's -Xmx2g; its native-buffer runs had half (1 GB)
BIG_HEAP_FACTOR = 5  # the article's "(10 GB)" column: five times the heap
MIN_HEAP_MB = 96  # JDK 11's ZGC fails under it at ci's sizes (40 MB will not start, 64 MB runs out with the pool); only ci reaches it
# The part of a collector's heap that does not shrink with the live set (its pages, the headroom it
# collects in), which a small profile keeps whole while it scales the rest. It is the fixed term of
# the collector's minimum heap of case C at two sizes (chapter 13: min heap = fixed + scale x the
# rest). Scaled whole, quick's heap for JDK 11's ZGC was under that minimum, and the cell lost in
# quick what kept up at full size (chapter 12); with the fixed part kept, the heap's room above the
# minimum scales with the live set. Collectors not listed were not measured to need it.
UNSCALED_HEAP_MB: dict[tuple[int, str], int] = {(SEED_JDK, "zgc"): 80}
EPSILON_HEAP_MB = 8192
# Epsilon touches every page of its heap once, before the run, so that the run measures allocation
# and not the kernel handing out fresh pages.
EPSILON_OPTIONS = ("-XX:+AlwaysPreTouch",)
REFERENCE_NS = 1000  # the article's interval for "lost: x%"
MAX_CAPTURING_DELAY_MS: int = ENGINE_FACTS["max_capturing_delay_ms"]  # the article's input queue, in time


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

    @property
    def configuration(self) -> tuple[Any, ...]:
        """What it runs, whatever it is called: two solutions of one configuration (a chapter's "ZGC 11" and the
        JDK chapter's "ZGC (JDK 11)") measure the same thing."""
        return (self.engine, self.jdk, self.collector, self.native_buffers, self.compact_headers, self.design,
                self.allocator, self.fixed_heap_mb, self.vm_options)

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
    model = ("the Java model translated object for object" if design == "cpp"
             else "a packet's parsed objects kept inside the packet")
    return Solution(f"{design}-{allocator}", f"{title} ({allocator})", "cpp", reference_name=reference, design=design,
                    allocator=allocator, about=f"C++, {model}; {ALLOCATOR_ABOUT.get(allocator, allocator)}")


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
SELECTION_TEXTS = {"all": "every solution the profile has", "paper": "the 2019 article's solutions as it ran them"}

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

# The answer's heap headroom (chapter 18): pooling against allocation in heaps of these multiples of the case's
# minimum heap (the larger of the two strategies' minimums), beside the article's 2 GB
HEADROOM_FACTORS = (3, 6)
HEADROOM_STRATEGIES = ("alloc", "pool")
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
# Several processing threads (the engines' --threads: each thread makes and processes its own packets):
# allocation (each thread's TLAB; malloc's thread caches in C++), a pool per thread, one pool shared by all
# (lock-free), in C++ the standard library's synchronized pool resource shared by all, and, in Java, Netty's
# pooled allocator (per-thread caches over shared arenas), on the heap and off it, and Netty's Recycler of packet
# objects; at 1 to 8 threads, as many as the machine has CPUs for; for the collectors of 2019 as the article ran
# them and C++ of both designs on glibc.
THREAD_STRATEGIES = ("alloc", "pool", "shared-pool", "pmr-synchronized", "netty-pooled-heap", "netty-pooled-direct",
                     "netty-recycler")
THREAD_ENGINE_STRATEGIES = {"java": ("alloc", "pool", "shared-pool", "netty-pooled-heap", "netty-pooled-direct",
                                     "netty-recycler"),
                            "cpp": ("alloc", "pool", "shared-pool", "pmr-synchronized")}
# As named inside a sentence ("less time than pool per thread"); Netty is a name and keeps its capital.
THREAD_STRATEGY_NAMES = {"alloc": "allocation", "pool": "pool per thread", "shared-pool": "shared pool",
                         "pmr-synchronized": "synchronized pmr pool", "netty-pooled-heap": "Netty, heap",
                         "netty-pooled-direct": "Netty, direct", "netty-recycler": "Netty Recycler"}
THREAD_STRATEGY_LABELS = {strategy: name[:1].upper() + name[1:] for strategy, name in THREAD_STRATEGY_NAMES.items()}
THREAD_POOLS = THREAD_STRATEGIES[1:]  # the pooling strategies "pooling beats allocation" is asked of
THREAD_COUNTS = (1, 2, 4, 8)
# Weak scaling (the default comparison): every thread a live set of the case's size, so a thread's work stays the
# same as threads are added; strong scaling: the case's live set split between the threads.
WEAK, STRONG = "weak", "strong"
THREAD_SCALINGS = (WEAK, STRONG)
# Hand-off (the Java engine's --handoff, batch): one producer thread acquires and fills every packet, N workers
# process and release them, so that every packet is released on another thread than the one that acquired it.
HANDOFF_STRATEGIES = ("alloc", "shared-pool", "netty-pooled-heap", "netty-pooled-direct", "netty-recycler")
HANDOFF_ENGINES = ("java",)
# Real time with several consumers: one clock feeds N consumer threads in turn, each on a CPU of its own beside
# the clock's (N + 1 CPUs), each seeing the reference interval (the clock ticks N times as often). Both
# engines run it.
THREAD_REALTIME_ENGINES = ("cpp", "java")
THREAD_SOLUTIONS = ("parallel-11", "g1", "zgc", "cpp-glibc", "flat-glibc")
CHAPTERS["threads"] = THREAD_SOLUTIONS

# The C++ chapter's choice of pool: the engine's free list beside the pool a C++ programmer gets without writing
# one, the standard library's pool resource (the pmr strategy: each packet and its buffer made from its size-class
# pools and destroyed back into them), and allocation; as one block per design (on glibc) and case.
POOL_CHOICE_STRATEGIES = ("alloc", "pool", "pmr")
POOL_CHOICE_LABELS = {"alloc": "Allocation", "pool": "Free list", "pmr": "Standard-library pool"}
POOL_CHOICE_SOLUTIONS = ("cpp-glibc", "flat-glibc")

# The event echo (chapter 11, run.event_echo): the JDKs and collectors it pairs, its two transports, its two modes
# (each event echoed back as read, or as a new copy), the clients of an echo run and the threads of the allocation
# loop. A profile's EchoPlan (profiles.py) picks from them.
ECHO_JDKS = (11, 17, 21, 25)
ECHO_COLLECTORS = ("g1", "parallel", "zgc-gen")
ECHO_TRANSPORTS = ("chronicle", "nio")
ECHO_MODES = ("reuse", "copy")
ECHO_CLIENTS = (1, 2, 4)
ECHO_ALLOCATION_THREADS = (1, 2)

POOL_SIZE: int = ENGINE_FACTS["pool_size"]

# The collectors-across-JDKs chapter: each JDK's collectors as it ships them (no flag but the
# collector's own; the article's G1 rows add an 80 ms goal, these do not), in the article's heap.
COLLECTOR_LABELS = {"serial": "Serial", "parallel": "Parallel", "cms": "CMS", "g1": "G1", "zgc": "ZGC",
                    "zgc-gen": "Generational ZGC", "shenandoah": "Shenandoah",
                    "shenandoah-gen": "Generational Shenandoah"}


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
                      "classes in it (the record formats in the documentation say how)")

# Engine builds (tools/source_id.py) whose finished cells a sweep takes as its own build's, so that
# a long sweep resumes across an engine change that alters no stored figure. Each entry says what
# changed since, in the reader's words (the Methods appendix shows them); a change that alters what a
# cell measures must empty the list (MEASUREMENT_CHANGE did).
SAME_MEASUREMENT_BUILDS: dict[str, dict[str, str]] = {
    "java": {"9f24b021cea7": "a search's probes may run one after another in one process, and each record says "
                             "which probe of such a series it is; a run of its own runs as before",
             "0997b85b0112": "the queue benchmark's records say so too (no series)",
             "60f6c1cfa87d": "the native clock's tick producer may take another pace clock, for tests; "
                             "the clock thread compiles to the same instructions",
             "034efef65076": "the real-time loop reads the time on its tick source's clock, the JVM's monotonic "
                             "clock for the engine's sources (a test's is scripted); the per-packet path is unchanged",
             "15abe37b387a": "Netty's allocators joined as strategies of their own (the others' code is unchanged and "
                             "loads no Netty class), and the real-time loop reads the time on its tick source's clock",
             "326d64668008": "the off-heap slab is cut into direct buffers of 1 GiB, so that ten million slots fit; "
                             "up to a million slots it is one buffer, as before, reached by one more array load "
                             "(an A/B of native pooling found no difference)",
             "a4604fa7404e": "a batch run may take several processing threads, and a shared pool joined the "
                             "strategies; a run of one thread and its loops are unchanged",
             "bf01f730c546": "the queue benchmark's records say so too (no threads)",
             "8b820dc74190": "the native clock thread may feed several queues in turn, for the C++ engine's several "
                             "consumers; the one-queue clock thread Java runs is the same code",
             "fb0094708eed": "a real-time run may take several consumers, one clock feeding them in turn; a run of "
                             "one consumer keeps its loop, meter and clock, which its reporter now reads through "
                             "interfaces",
             "8588266edcc0": "the several-consumer clock became a class of its own, so that the one-consumer "
                             "clock makes the same calls as before several consumers came in; the several-consumer "
                             "code is unchanged",
             "e4d1c4a936a9": "the record's header and the peak resident set read the kernel's process files "
                             "through another Java stream (JDK 11's ZGC failed once inside the former before a run "
                             "began); the runs and their loops are unchanged",
             "698fdbec5587": "a failed run's summary names its failure in a code beside its error (the pools and the "
                             "fill phase throw an exception that carries it); a run that ends well is unchanged"},
    "cpp": {"3c66a9270919": "the machine check's memory-latency program and its test joined the C++ build; the "
                            "engine's code is unchanged",
            "aeec5c53b4ea": "the real-time loop takes its tick source as a template argument, for tests: the clock "
                            "thread compiles to the same instructions, the consumer loop differs in register "
                            "allocation only",
            "ef7ec988ea94": "the command line's parsing and the engine's run (set-up, counting pass, last lines) "
                            "split into functions, the model and its loops unchanged; the allocation counting pass "
                            "lasts the run's duration where that is under its 1 s (the tests' runs only)",
            "026d05cf08ee": "a real-time run may take several consumer threads fed by one clock; the "
                            "one-thread loops are unchanged, and a threaded batch thread publishes two more counts "
                            "(lost ticks, zero) with its packets every 1024 packets",
            "b355ac0ae992": "the engine's run moved its banner and the summary's last inputs into functions of "
                            "their own (the model and its loops, in other files, compile the same; an A/B of flat "
                            "pooling C and C++ allocation A found no difference); then its fill limit, the same "
                            "600 s, moved to a header that a test of the facts the engines share reads",
            "7b6498063546": "a failed run's summary names its failure in a code beside its error (the pools and the "
                            "fill phase throw an exception that carries it); a run that ends well is unchanged"}}

# The engines' case sizes (case A as the published code ran it): the internal FIFO and the store.
INTERNAL_QUEUE_SIZE: dict[str, int] = {case: sizes["internal_queue_size"] for case, sizes in ENGINE_FACTS["cases"].items()}
STORED_COUNT: dict[str, int] = {case: sizes["stored_count"] for case, sizes in ENGINE_FACTS["cases"].items()}


def live_packets(case: str, scale: float) -> int:
    """The packets a case holds live at a scale: its internal FIFO and its store."""
    return round(INTERNAL_QUEUE_SIZE[case] * scale) + round(STORED_COUNT[case] * scale)


def named(table: Mapping[str, _Named], name: str, what: str) -> _Named:
    """An entry of a study's table by name (a profile, a selection, a variant); a clear error naming the
    valid ones otherwise."""
    if name not in table:
        raise ValueError(f"unknown {what} {name!r}; one of {', '.join(table)}")
    return table[name]


def selection(name: str) -> tuple[str, ...] | None:
    """The solutions of a selection (SELECTIONS)."""
    return named(SELECTIONS, name, "selection of solutions")
