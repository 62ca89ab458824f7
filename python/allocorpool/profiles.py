"""How big and how long every run is: the study's three profiles and their plans.

`ci` (seconds per cell, for the notebook tests), `quick` (the whole study at a tenth of the
article's sizes) and `full` (the article's sizes and durations). A profile's plans say how its
real-time searches, minimum heaps, continuum, collectors across the JDKs, blocks, several threads,
binary-trees shoot-out and event echo run: one profile for every chapter, looked up by name here.
The figures behind a plan's estimate constants are the stored runs' (`make plan` checks the model
against them; chapters 12 and 13 show the sizes' and heaps' own).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product

from allocorpool import collectors
from allocorpool.lists import (
    CASES,
    COLLECTOR_LABELS,
    CONTINUUM_SOLUTIONS,
    ECHO_ALLOCATION_THREADS,
    ECHO_CLIENTS,
    ECHO_COLLECTORS,
    ECHO_JDKS,
    ECHO_MODES,
    ECHO_TRANSPORTS,
    MAX_CAPTURING_DELAY_MS,
    REFERENCE_NS,
    SELECTIONS,
    SOLUTIONS,
    SOLUTIONS_BY_NAME,
    THREAD_COUNTS,
    THREAD_SOLUTIONS,
    THREAD_STRATEGIES,
    THREAD_SCALINGS,
    HANDOFF_STRATEGIES,
    Solution,
    named,
)

# The real-time search stops when its loss-free interval is within this share of a lossy one (a profile's
# default; analysis.search's too).
RESOLUTION = 0.1


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
    # overhead can be far off (chapter 13 shows the range of a small profile's repeats).
    repeats: int = 1
    # For the estimate: how many times slower than in the solution's heap a bisection run fills its
    # store near the minimum, where the collector thrashes (`make plan` checks it against the stored runs).
    near_min_fill_factor: float = 3


@dataclass(frozen=True)
class ContinuumPlan:
    """How the continuum chapter runs under a profile: the live-set sizes (FIFO = store, before the
    profile's scale), the strategies, the interval of the real-time probe at each size, and the pool
    sizes of the pool-size what-if (case B)."""

    sizes: tuple[int, ...] = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
    strategies: tuple[str, ...] = ("alloc", "mix", "pool")
    solutions: tuple[str, ...] = CONTINUUM_SOLUTIONS  # those the profile and the selection hold
    interval_ns: int = REFERENCE_NS
    pool_sizes: tuple[int, ...] = (1_000_000, 3_000_000, 10_000_000)
    # Where a heap pool's largest size ran out of heap: the bisection between the largest size that fitted and
    # the smallest that did not ends when they are this many buffers apart (before the scale).
    pool_resolution: int = 500_000
    # The same what-if off the heap (buffers in direct memory), at the smallest and largest pool sizes: the
    # native-buffer solutions of the article, whichever of them the profile and the selection hold.
    off_heap: tuple[str, ...] = ("native-parallel-11", "native-g1", "native-zgc")
    # Each size's batch comparison runs as a block of this many repetitions (None: the profile's batch blocks');
    # three tell an interval at every size at a fraction of five's cost over the many sizes.
    block_repetitions: int | None = 3


@dataclass(frozen=True)
class BlockPlan:
    """How a profile measures a comparison as a block (run.blocks): each repetition a fresh process, the
    cells of one comparison interleaved. Batch blocks run shorter than the profile's single batch runs:
    several short runs tell the spread between processes, which one long run cannot."""

    repetitions: int = 5  # 0: no blocks, each batch cell runs once
    batch_s: float | None = None  # None: the profile's batch_s
    batch_warmup_s: float | None = None
    probe_repetitions: int = 3  # real-time blocks: probes of every strategy at one interval, each this often
    dummy: bool = True  # the batch blocks hold the dummy strategy too (it measures the harness, not an answer)
    # How long a reference run (run.calibration) stands for the blocks started after it in one boot and store: 0,
    # each block runs its own. The notebook tests let one stand, as the memory's latency does: they check code.
    reference_valid_s: float = 0.0


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
class ThreadPlan:
    """How the several-threads chapter runs under a profile: a block per solution and case holding every
    strategy at every thread count the machine has CPUs for (lists.THREAD_COUNTS), each run this long (None:
    the profile's batch blocks'), as often as the profile's batch blocks; and, where the engine runs several
    real-time consumers, a block of probes per solution and case."""

    counts: tuple[int, ...] = THREAD_COUNTS
    strategies: tuple[str, ...] = THREAD_STRATEGIES
    solutions: tuple[str, ...] = THREAD_SOLUTIONS
    # Weak scaling (every thread the case's live set) is the comparison; strong (the case split) is measured too
    scalings: tuple[str, ...] = THREAD_SCALINGS
    # The hand-off blocks' strategies (engines of lists.HANDOFF_ENGINES): one producer, N workers
    handoff_strategies: tuple[str, ...] = HANDOFF_STRATEGIES
    cases: tuple[str, ...] | None = None  # None: the profile's
    batch_s: float | None = None
    batch_warmup_s: float | None = None
    repetitions: int | None = None  # None: the profile's batch blocks'
    # Real time (engines of lists.THREAD_REALTIME_ENGINES): the interval each of N consumers sees, at each
    # count the machine has N + 1 CPUs for, probed as the profile's real-time blocks are
    interval_ns: int = REFERENCE_NS


@dataclass(frozen=True)
class BinaryTreesPlan:
    """How the binary-trees shoot-out runs under a profile (run.binary_trees): the depths (the seed ran 20
    and 21), repetitions per variant and depth, and the time one run may take before it is stopped and
    recorded as timed out."""

    depths: tuple[int, ...]
    repetitions: int
    timeout_s: float


@dataclass(frozen=True)
class EchoPlan:
    """How big and how long the event echo's runs are under a profile (run.event_echo)."""

    jdks: tuple[int, ...]
    collectors: tuple[str, ...]
    clients: tuple[int, ...]
    duration_s: float  # measured seconds of an echo run, after its warm-up
    warmup_s: float
    heap: str
    warmup_iterations: int  # the allocation loop (JMH), per fork
    iterations: int
    iteration_ms: int
    forks: int
    # Each echo and allocation-loop cell runs this many times, each a fresh JVM: a claim is decided on the
    # interval of its repetitions, never on one run against one.
    repetitions: int = 3
    transports: tuple[str, ...] = ECHO_TRANSPORTS
    modes: tuple[str, ...] = ECHO_MODES
    threads: tuple[int, ...] = ECHO_ALLOCATION_THREADS
    pairs: tuple[tuple[int, str], ...] | None = None  # the (JDK, collector) pairs run; None: every JDK with each

    def jdk_collectors(self) -> tuple[tuple[int, str], ...]:
        return self.pairs if self.pairs is not None else tuple(product(self.jdks, self.collectors))


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
    # the slowest collections, which short probes can miss (a full collection late in a long run, say).
    long_run_s: float
    queue_probe_s: float  # the queue benchmark's probes with 100 ms of ticks per array
    queue_fixed_probe_s: float  # its probes under the original's fixed capacity (10 s to compare with it)
    search: SearchPlan
    binary_trees: BinaryTreesPlan  # the binary-trees shoot-out (chapter 10)
    echo: EchoPlan  # the event echo (chapter 11)
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
    threads: ThreadPlan = ThreadPlan()

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
    # The notebook tests: every chapter's code on one solution of each kind the chapter needs (the collectors of
    # 2019 on JDK 11, off-heap buffers, C++ allocating and flat, a second allocator), runs shorter than a second.
    # The continuum's two sizes are ones the full store holds too (its miniature comparison has both sides); its
    # largest stops short of the full heap's, where the collector thrashes for seconds and checks no more code; a
    # Java collector and flat C++ run every path of its code.
    Profile("ci", "under a second per run, case A, a solution of each kind: for the notebook tests",
            scale=0.02, batch_s=0.25, batch_warmup_s=0.1, probe_s=0.25, probe_warmup_s=0.1, timeline_s=1, long_run_s=1,
            queue_probe_s=0.2, queue_fixed_probe_s=0.2,
            search=SearchPlan(high_ns=1000, longest_probe_s=1, confirm=False, digits=1, resolution=0.5),
            # Binary trees: one run of each variant at depth 10 (well under a second each), for the tests.
            binary_trees=BinaryTreesPlan(depths=(10,), repetitions=1, timeout_s=120),
            # The event echo: JDK 11 with generational ZGC is an "unsupported" row, and ci shows one. Two measured
            # pairs check every claim's code; G1 on JDK 25 would check none that G1 on JDK 11 does not.
            echo=EchoPlan(jdks=(11, 25), collectors=("g1", "zgc-gen"), clients=(1,), duration_s=0.5, warmup_s=0.25,
                          heap="512m", warmup_iterations=1, iterations=2, iteration_ms=200, forks=1, repetitions=2,
                          pairs=((11, "g1"), (11, "zgc-gen"), (25, "zgc-gen"))),
            cases=("A",), strict=True, heap=HeapPlan(factors=(2, 6), resolution=0.5),
            blocks=BlockPlan(repetitions=2, probe_repetitions=2, reference_valid_s=1800),
            continuum=ContinuumPlan(sizes=(1_000, 100_000), strategies=("alloc", "pool"),
                                    solutions=("parallel-11", "flat-glibc"),
                                    pool_sizes=(1_000_000, 10_000_000), pool_resolution=3_000_000,
                                    off_heap=("native-parallel-11",)),
            jdks=JdkPlan(jdks=(11, 25), collectors=("parallel", "g1"), strategies=("alloc", "pool"), cases=None),
            threads=ThreadPlan(solutions=("parallel-11", "flat-glibc")),
            solutions=("parallel-11", "g1", "zgc", "native-parallel-11", "cpp-glibc", "flat-glibc", "flat-jemalloc")),
    Profile("quick", "the whole study at a tenth of the article's sizes, short runs and a coarser search",
            scale=0.1, batch_s=1.5, batch_warmup_s=0.5, probe_s=1.5, probe_warmup_s=0.5, timeline_s=10, long_run_s=12,
            queue_probe_s=0.5, queue_fixed_probe_s=1,
            # long_probes: the stored Java sentinel searches' long probes per search
            search=SearchPlan(high_ns=2000, longest_probe_s=6, long_probes=1.5),
            # Binary trees: five runs of each variant at depth 18 (a quarter of the seed's smaller size).
            binary_trees=BinaryTreesPlan(depths=(18,), repetitions=5, timeout_s=300),
            echo=EchoPlan(jdks=ECHO_JDKS, collectors=ECHO_COLLECTORS, clients=ECHO_CLIENTS, duration_s=2, warmup_s=1,
                          heap="1g", warmup_iterations=2, iterations=3, iteration_ms=500, forks=1),
            heap=HeapPlan(resolution=0.1, cases=("C",), repeats=3),
            continuum=ContinuumPlan(pool_resolution=1_000_000),  # three bisection runs, not four, between 3 and 10 M
            # The longest pause of the Java sentinel cells' batch runs at a tenth of the sizes, over that
            # at full size (their median, chapter 12): a collection's fixed costs do not shrink. A queue
            # scaled whole lost packets behind young pauses that a full-size queue bridges.
            queue_scale=0.14,
            # How much longer than their longest pause the Java probes of the quick sentinels waited, on
            # the median, well above their batch time per packet (chapter 12 shows it).
            unscaled_delay_ms=9,
            threads=ThreadPlan(batch_s=1, batch_warmup_s=0.5, repetitions=3)),
    # The article's sizes. Every run fills its store before its warm-up, so the warm-ups need only
    # settle the JIT and the heap; a probe of 8 s holds two of the article's ~4 s collection periods,
    # and the interval found is confirmed by a probe holding the cell's slowest collection twice.
    Profile("full", "the article's sizes: batch blocks of three 10 s runs per cell, 8 s probes confirmed by a longer "
                    "one, a fine search",
            scale=1.0, batch_s=20, batch_warmup_s=5, probe_s=8, probe_warmup_s=2, timeline_s=60, long_run_s=120,
            queue_probe_s=2, queue_fixed_probe_s=10,
            # Searched up to 2000 ns, as quick is: the article's tables print no interval above 2000 ns
            # (G1's allocation B), and "lost" means no loss-free interval up to twice the reference. Probes
            # above it took much of a wider search's time, and probes of 30 s cannot show the article's
            # loss at 10,000 ns anyway (80K packets every 40 s). long_probes and long_probe_share: the
            # stored Java searches' long probes per search and their mean length (`make plan` checks them).
            search=SearchPlan(high_ns=2000, longest_probe_s=30, long_probes=1.6, long_probe_share=0.93),
            # Binary trees: the seed's depths, 20 and 21, five runs of each variant.
            binary_trees=BinaryTreesPlan(depths=(20, 21), repetitions=5, timeout_s=1800),
            echo=EchoPlan(jdks=ECHO_JDKS, collectors=ECHO_COLLECTORS, clients=ECHO_CLIENTS, duration_s=20, warmup_s=5,
                          heap="1g", warmup_iterations=5, iterations=5, iteration_ms=2000, forks=3),
            # The bisection runs at full size fill several times slower than the model's fill (the mean of
            # the stored ones, case C): near the minimum heap they thrash up to the fill limit.
            heap=HeapPlan(cases=("C",), search_s=5, search_warmup_s=2, near_min_fill_factor=4.4),
            continuum=ContinuumPlan(sizes=(1_000, 10_000, 100_000, 1_000_000)), machine_check=True,
            blocks=BlockPlan(repetitions=3, batch_s=10, batch_warmup_s=3),
            # Every strategy at every thread count in a block: shorter runs. Case C's fill still takes most of a
            # run, longer under weak scaling (each thread fills a live set of its own): its blocks take most of
            # a solution's time (README: Getting started)
            threads=ThreadPlan(batch_s=6, batch_warmup_s=2)),
)}


# Your machine's answer (`make study`): only the blocks the article's answer table rests on, for the
# article's eight solutions, at quick's scale (chapter 12 shows it keeps the verdicts), with short runs.
PROFILES["answer"] = replace(
    PROFILES["quick"], name="answer",
    description="the blocks of the article's answer, for its eight solutions, at a tenth of its sizes: three 1 s "
                "batch runs and three 1.5 s probes per strategy",
    # A reference run stands for the blocks of the next five minutes: one per block would spend minutes of the half
    # hour on references (`make plan PROFILE=answer` counts them), and a boot that moves within a sweep still shows.
    solutions=SELECTIONS["paper"], blocks=BlockPlan(repetitions=3, batch_s=1, batch_warmup_s=0.5, probe_repetitions=3,
                                                    dummy=False, reference_valid_s=300))


def profile(name: str | Profile) -> Profile:
    return name if isinstance(name, Profile) else named(PROFILES, name, "profile")


def solutions(names: tuple[str, ...] | list[str] | None = None, profile_: Profile | None = None,
              selected: tuple[str, ...] | None = None) -> list[Solution]:
    """The named solutions (all when None) in the study's order, less those the profile leaves out and
    those a selection (when given) does not hold."""
    wanted = SOLUTIONS if names is None else tuple(SOLUTIONS_BY_NAME[n] for n in names)
    wanted = tuple(s for s in wanted if selected is None or s.name in selected)
    order = {s.name: i for i, s in enumerate(SOLUTIONS)}
    return sorted((s for s in wanted if profile_ is None or profile_.selects(s)), key=lambda s: order[s.name])



def continuum_repetitions(prof: Profile) -> int:
    """The repetitions of the continuum's blocks: its plan's, at most the profile's batch blocks', at least one."""
    return max(1, min(prof.continuum.block_repetitions or prof.blocks.repetitions, prof.blocks.repetitions))


def jdk_solutions(plan: JdkPlan) -> list[Solution]:
    """A solution per JDK of the plan and collector it has, JDK by JDK in COLLECTOR_LABELS' order."""
    return [Solution(f"{collector}-{jdk}", f"{COLLECTOR_LABELS[collector]} (JDK {jdk})", "java", jdk=jdk,
                     collector=collector)
            for jdk in plan.jdks for collector in COLLECTOR_LABELS
            if collector in collectors.collectors_of(jdk) and (plan.collectors is None or collector in plan.collectors)]


def in_series(solution: Solution, plan: SearchPlan) -> bool:
    """Whether a plan runs the solution's searches in series (run.probe_series): Java, but Epsilon, whose
    probe ends when its heap is full."""
    return plan.series and solution.engine == "java" and solution.collector != "epsilon"
