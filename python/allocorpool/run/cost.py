"""The cost model behind `make plan`: about how long a profile's cells take, and how far that model
misses what a store's runs took.

The constants are what the committed full-size runs took on 2 cores (medians, by engine or C++ design
and allocator); `make plan` prints the model against the runs of the profile's store, so that a
constant gone stale shows as a ratio far from one.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace

import pandas as pd

from allocorpool.analysis.min_heap import STEP_DOWN
from allocorpool.lists import (
    HEAP_SOLUTIONS,
    REALTIME_STRATEGIES,
    SENTINELS,
    SOURCE_SOLUTIONS,
    STORED_COUNT,
    STRATEGIES,
    THREAD_ENGINE_STRATEGIES,
    HANDOFF_ENGINES,
    STRONG,
    THREAD_REALTIME_ENGINES,
    TIMELINES,
    Solution,
)
from allocorpool.profiles import (HeapPlan, Profile, SearchPlan, continuum_repetitions, in_series, jdk_solutions,
                                  solutions)
from allocorpool.run.calibration import reference_cell
from allocorpool.run.cells import batch_block, probe_block

# What a run costs beyond its fill phase and its measured time (start-up, set-up, exit), by filler. A
# C++ batch run also runs its allocation-counting pass (cpp-lib's counting_pass.hpp; real-time runs
# skip it, Cell.engine_args): the counting build fills the same model again, about as long as the
# run's own fill (COUNTING_FILL_FACTOR), then counts for COUNTING_PASS_S. How often the first guess
# of a search keeps up (START_KEEPS_UP) was measured in a quick sweep.
RUN_OVERHEAD_S = {"java": 1.4, "cpp": 1.3, "flat": 1.3}
# Repeated probes of a continuum line: the two sizes around its change of verdict, where it has one.
CONTINUUM_REPEATS = 2
COUNTING_PASS_S = 1.0
COUNTING_FILL_FACTOR = 1.0
START_KEEPS_UP = 0.8
# The share of sentinel searches that keep up at 1000 ns, which chapter 12 runs long there (about the
# same at full size and at a tenth).
LONG_RUN_SHARE = 8 / 21
TYPICAL_LOW_NS = 150  # where a search's lower end usually is, for the estimate
# What a probe after the first of a series (run.probe_series) costs beyond its measured time: no JVM
# start, no fill (the mean of such probes of full-size sentinel searches, tools/compare_series.py).
SERIES_PROBE_OVERHEAD_S = 0.2
# The fill phase before every run: about 74 packets per store slot (random slots to 99 %), flat out,
# at about these ns per packet, by engine (Java) or C++ design on glibc, and for a C++ design on
# another allocator that many times slower (case C's fills).
FILL_PACKETS_PER_SLOT = 74
FILL_NS_PER_PACKET = {"java": 500, "cpp": 330, "flat": 220}
ALLOCATOR_FILL_FACTOR = {("cpp", "jemalloc"): 1.65, ("cpp", "mimalloc"): 1.85, ("cpp", "tcmalloc"): 1.7,
                         ("flat", "jemalloc"): 1.3, ("flat", "mimalloc"): 1.1}


# A Java fill of a large store (case C at full size) collects a live set of that size as it fills: each of
# its packets takes about this many times as long (fitted to the full store's runs, batch and real time).
LARGE_STORE_SLOTS = 300_000
JAVA_LARGE_FILL_FACTOR = 1.5


def fill_s(case: str, scale: float, filler: str = "java", stored: int | None = None,
           allocator: str | None = None) -> float:
    """About how long a run's fill phase takes (a case's store, or `stored` slots before the scale);
    filler: Solution.filler; allocator: a C++ solution's."""
    slots = (STORED_COUNT[case] if stored is None else stored) * scale
    ns = FILL_NS_PER_PACKET[filler] * ALLOCATOR_FILL_FACTOR.get((filler, allocator or ""), 1.0)
    if filler == "java" and slots >= LARGE_STORE_SLOTS:
        ns *= JAVA_LARGE_FILL_FACTOR
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
    beyond_seconds: float  # the chapters beyond the article: the minimum heap, the continuum, the JDKs, threads
    thread_runs: int = 0
    lines: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(self.lines)



def _batch(prof: Profile, chosen: list[Solution]) -> tuple[int, float]:
    """The batch chapter's cells (the random-source ones included) and their seconds."""
    cases, cells, seconds = len(prof.cases), 0, 0.0
    for s in chosen:
        fill = sum(fill_s(case, prof.scale, s.filler, allocator=s.allocator) for case in prof.cases) / cases
        sources = 2 if s.name in SOURCE_SOLUTIONS else 1
        cells += len(STRATEGIES) * cases * sources
        seconds += len(STRATEGIES) * cases * sources * run_s(s.filler, prof.batch_s, fill)
    return cells, seconds


def _searches(prof: Profile, chosen: list[Solution]) -> tuple[int, float, float]:
    """The real-time searches, their short probes and their seconds."""
    count = len(REALTIME_STRATEGIES) * len(prof.cases) * len(chosen)
    seconds = sum(len(REALTIME_STRATEGIES) * sum(search_s(s, case, prof) for case in prof.cases) for s in chosen)
    return count, count * expected_probes(prof.search), seconds


def _long_runs(prof: Profile, chosen: list[Solution]) -> tuple[float, float]:
    """The sentinel searches' long runs at 1000 ns (chapter 12), as often as they keep up there, and their seconds."""
    sentinels = [(s, case) for name, case in SENTINELS for s in chosen if s.name == name and case in prof.cases]
    share = LONG_RUN_SHARE * len(REALTIME_STRATEGIES)
    seconds = share * sum(run_s(s.filler, prof.long_run_s, fill_s(case, prof.scale, s.filler, allocator=s.allocator),
                                counts_allocations=False) for s, case in sentinels)
    return share * len(sentinels), seconds


def _heap(prof: Profile, chosen: list[Solution]) -> tuple[float, float]:
    """The minimum-heap chapter's runs (bisections, then each multiple) and their seconds."""
    plan = prof.heap
    cases = [case for case in (plan.cases or prof.cases) if case in prof.cases]
    cells = len([s for s in chosen if s.name in HEAP_SOLUTIONS]) * len(plan.strategies)
    runs = cells * len(cases) * (expected_heap_runs(plan) + len(plan.factors) * plan.repeats)
    seconds = cells * sum(
        expected_heap_runs(plan) * run_s("java", plan.search_s or prof.batch_s,
                                         plan.near_min_fill_factor * fill_s(case, prof.scale))
        + len(plan.factors) * plan.repeats * run_s("java", prof.batch_s, fill_s(case, prof.scale))
        for case in cases)
    return runs, seconds


def _continuum(prof: Profile, chosen: list[Solution]) -> tuple[int, float]:
    """The continuum chapter's runs (a batch run and a probe per size, each size's batch block, the repeats
    around a line's change of verdict, taken at the middle size, the pool sizes, and each Java pool's block of
    two sizes) and their seconds (every size taken to fit; not the bisection of a heap pool that does not fit:
    how far it goes depends on the machine)."""
    reach = prof.continuum
    on_continuum = [s for s in chosen if s.name in reach.solutions]
    middle = sorted(reach.sizes)[len(reach.sizes) // 2]
    pool_block = 2 * prof.blocks.repetitions if reach.pool_sizes else 0  # run.experiments.continuum.pool_blocks
    block_s = prof.blocks.batch_s or prof.batch_s
    # run.experiments.continuum._continuum_blocks: each strategy's runs per size (none without blocks)
    size_block = continuum_repetitions(prof) if prof.blocks.repetitions else 0
    runs = len(on_continuum) * (len(reach.strategies) * (len(reach.sizes) * (2 + size_block) + CONTINUUM_REPEATS)
                                + len(reach.pool_sizes)) + pool_block * sum(s.engine == "java" for s in on_continuum)

    def fill(s: Solution, size: int | None) -> float:
        return fill_s("B", prof.scale, s.filler, stored=size, allocator=s.allocator)
    seconds = sum(len(reach.strategies) * (
        sum((1 + size_block) * run_s(s.filler, prof.batch_s, fill(s, size))
            + run_s(s.filler, prof.probe_s, fill(s, size), False) for size in reach.sizes)
        + CONTINUUM_REPEATS * run_s(s.filler, prof.probe_s, fill(s, middle), False))
        + len(reach.pool_sizes) * run_s(s.filler, prof.batch_s, fill(s, None))
        + (pool_block * run_s(s.filler, block_s, fill(s, None)) if s.engine == "java" else 0.0)
        for s in on_continuum)
    return runs, seconds


def _jdks(prof: Profile, names: set[str] | None) -> tuple[int, float]:
    """The JDKs chapter's runs (its batch blocks' and a probe per cell) and their seconds: its own solutions, those
    of a selection only when one was chosen (names; None: every one)."""
    across = [s for s in jdk_solutions(prof.jdks) if names is None or s.name in names]
    cases = [case for case in (prof.jdks.cases or prof.cases) if case in prof.cases]
    reps = prof.blocks.repetitions  # the batch runs are blocks (one run each without them)
    batch_s = (prof.blocks.batch_s or prof.batch_s) if reps else prof.batch_s
    runs = len(across) * len(prof.jdks.strategies) * len(cases) * (max(1, reps) + 1)
    seconds = len(across) * len(prof.jdks.strategies) * sum(
        max(1, reps) * run_s("java", batch_s, fill_s(case, prof.scale))
        + run_s("java", prof.probe_s, fill_s(case, prof.scale)) for case in cases)
    return runs, seconds


def _threads(prof: Profile, chosen: list[Solution], cpus: int) -> tuple[int, float]:
    """The several-threads chapter's runs on a machine of `cpus` CPUs (every strategy at each thread count it
    has CPUs for, in blocks of each scaling; hand-off and real time at each count it has a CPU more for) and their
    seconds; each thread fills its live set (the case's, or under strong scaling its share) beside the others."""
    plan = prof.threads
    counts = [n for n in plan.counts if n <= cpus] or [1]
    on_chapter = [s for s in chosen if s.name in plan.solutions]
    cases = plan.cases or prof.cases
    reps = plan.repetitions or max(1, prof.blocks.repetitions)
    measured = (plan.batch_s or prof.blocks.batch_s or prof.batch_s)
    runs, seconds = 0, 0.0
    for solution in on_chapter:
        strategies = [s for s in plan.strategies if s in THREAD_ENGINE_STRATEGIES[solution.engine]]
        for scaling in plan.scalings:  # a weak thread fills the case's live set, a strong one its share
            runs += len(cases) * len(strategies) * len(counts) * reps
            seconds += len(strategies) * reps * sum(
                run_s(solution.filler, measured, fill_s(case, prof.scale) / (n if scaling == STRONG else 1))
                for case in cases for n in counts)
        # hand-off (lists.HANDOFF_ENGINES): every hand-off strategy at each count of workers with N CPUs (the
        # producer shares them where no CPU is left for it)
        workers = [n for n in plan.counts if n <= cpus] if solution.engine in HANDOFF_ENGINES else []
        runs += len(cases) * len(plan.handoff_strategies) * len(workers) * reps
        seconds += len(plan.handoff_strategies) * reps * sum(
            run_s(solution.filler, measured, fill_s(case, prof.scale)) for case in cases for n in workers)
        # real time (lists.THREAD_REALTIME_ENGINES): every strategy's probes at each count with N + 1 CPUs
        consumers = [n for n in plan.counts if n + 1 <= cpus] if solution.engine in THREAD_REALTIME_ENGINES else []
        runs += len(cases) * len(strategies) * len(consumers) * prof.blocks.probe_repetitions
        seconds += len(strategies) * prof.blocks.probe_repetitions * sum(
            run_s(solution.filler, prof.probe_s, fill_s(case, prof.scale), counts_allocations=False)
            for case in cases for n in consumers)
    return runs, seconds


def estimate(prof: Profile, chosen: list[Solution] | None = None, title: str = "") -> Estimate:
    """The cells a profile runs for the chosen solutions (all it selects by default) and about how long."""
    chosen_all = chosen is None
    chosen = solutions(None, prof) if chosen is None else [s for s in chosen if prof.selects(s)]
    names = {s.name for s in chosen}
    batch_cells, batch_s = _batch(prof, chosen)
    search_count, probes, searches = _searches(prof, chosen)
    other = replace(prof, search=replace(prof.search, series=not prof.search.series))  # for the comparison
    searches_other = _searches(other, chosen)[2]
    timelines = sum(1 for name, _, case in TIMELINES if name in names and case in prof.cases)
    timeline_s = timelines * run_s("java", prof.timeline_s, 0.0)
    long_runs, long_run_s = _long_runs(prof, chosen)
    heap_runs, heap_s = _heap(prof, chosen)
    continuum_runs, continuum_s = _continuum(prof, chosen)
    jdk_runs, jdk_s = _jdks(prof, None if chosen_all else names)
    thread_runs, thread_s = _threads(prof, chosen, len(os.sched_getaffinity(0)))
    total = batch_s + searches + timeline_s + long_run_s
    beyond = heap_s + continuum_s + jdk_s + thread_s
    per_search = expected_probes(prof.search)
    lines = [f"profile {prof.name}{title}: {prof.description}",
             f"  scale {prof.scale:g}; batch runs {prof.batch_s:g} s (warm-up {prof.batch_warmup_s:g} s); "
             f"probes {prof.probe_s:g} s (warm-up {prof.probe_warmup_s:g} s)",
             f"  {len(chosen)} solutions x {len(prof.cases)} case(s): {batch_cells} batch cells ~ {batch_s / 60:.1f} "
             f"min; {search_count} real-time searches x ~{per_search:g} short probes and the probes their interval "
             f"rests on ~ {searches / 60:.1f} min"
             + (f" ({'in series' if other.search.series else 'each probe in its own JVM'}, "
                f"{searches_other / 60:.1f} min)" if searches_other != searches else "") + "; "
             f"{timelines} timeline run(s) ~ {timeline_s / 60:.1f} min; "
             f"~{long_runs:.0f} sentinel long run(s) ~ {long_run_s / 60:.1f} min; "
             f"~{heap_runs:.0f} minimum-heap runs ~ {heap_s / 60:.1f} min; "
             f"{continuum_runs} continuum runs ~ {continuum_s / 60:.1f} min; "
             f"{jdk_runs} runs across the JDKs ~ {jdk_s / 60:.1f} min; "
             f"{thread_runs} runs of several threads on this machine ~ {thread_s / 60:.1f} min",
             f"  estimate: about {total / 60:.0f} min for the article's chapters and {beyond / 60:.0f} min more for "
             "chapters 13 to 17, a rough figure (a search that loses everywhere takes fewer probes and one more "
             "on the big heap, two where the first saw no collection; cells already stored are skipped)"]
    return Estimate(batch_cells, search_count, probes, timelines, long_runs, heap_runs, continuum_runs, jdk_runs,
                    total, beyond, lines=lines, thread_runs=thread_runs)


# A block's calibration (run.calibration): the reference cell's run, and the memory's latency once a process
LATENCY_S = 20.0


def answer_estimate(prof: Profile, chosen: list[Solution] | None = None) -> str:
    """What `make study` measures under a profile (the answer's blocks: chapter 09's batch and real-time
    blocks, nothing else) and about how long, calibrations included. Each run is modelled from the cell its
    block plans (its --duration-s holds its warm-up) as modelled_against_measured models a stored one."""
    chosen = solutions(None, prof) if chosen is None else [s for s in chosen if prof.selects(s)]
    blocks = [(s, case, make(s, case, prof)) for s in chosen for case in prof.cases for make in (batch_block, probe_block)]
    runs = seconds = 0.0
    for solution, case, block in blocks:
        fill = fill_s(case, prof.scale, solution.filler, allocator=solution.allocator)
        runs += len(block.cells) * block.repetitions
        seconds += block.repetitions * sum(run_s(solution.filler, cell.duration_s, fill, cell.mode == "batch")
                                           for cell in block.cells)
    reference = reference_cell(prof)
    reference_s = run_s("java", reference.duration_s, fill_s(reference.case, prof.scale))
    # Where a reference run stands for a while (BlockPlan.reference_valid_s), one runs per that much measuring.
    valid_s = prof.blocks.reference_valid_s
    references = len(blocks) if valid_s <= 0 else min(len(blocks), math.ceil(seconds / valid_s))
    calibration = references * reference_s + LATENCY_S
    return (f"profile {prof.name}: {prof.description}\n  {len(chosen)} solutions x {len(prof.cases)} case(s): "
            f"{len(blocks)} blocks, {runs:.0f} runs ~ {seconds / 60:.1f} min, their calibrations ({references} reference runs) "
            f"~ {calibration / 60:.1f} min; estimate: about {(seconds + calibration) / 60:.0f} min of measuring (set-up and "
            "building come before it)")
