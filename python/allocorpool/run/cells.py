"""The study's cell factories: the engine runs (run.runner.Cell) and blocks (run.blocks.Block) a
solution, strategy and case make under a profile."""

from __future__ import annotations

import math
from dataclasses import replace

from allocorpool import paths
from allocorpool.lists import (HANDOFF_ENGINES, WEAK, HEADROOM_STRATEGIES, MAX_CAPTURING_DELAY_MS, POOL_CHOICE_STRATEGIES, POOL_SIZE,
                              REALTIME_STRATEGIES, REFERENCE_NS, STRATEGIES, THREAD_ENGINE_STRATEGIES, Solution)
from allocorpool.profiles import Profile, continuum_repetitions
from allocorpool.run.blocks import Block
from allocorpool.run.runner import Cell


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


def batch_strategies(prof: Profile) -> tuple[str, ...]:
    """The strategies a profile's batch tables hold: every one, or the real ones where its blocks leave out
    the dummy."""
    return STRATEGIES if prof.blocks.dummy else REALTIME_STRATEGIES


def batch_block(solution: Solution, case: str, prof: Profile, source: str = "counter") -> Block:
    """The batch comparison of one solution and case: every strategy's batch run, as a block of the
    profile's repetitions and run length (BlockPlan)."""
    plan = prof.blocks
    cells = tuple(batch_cell(solution, strategy, case, prof, source, duration_s=plan.batch_s, warmup_s=plan.batch_warmup_s)
                  for strategy in batch_strategies(prof))
    return Block(f"batch, {solution.name}, case {case}" + ("" if source == "counter" else f", {source} source"),
                 cells, plan.repetitions)


def headroom_block(solution: Solution, case: str, prof: Profile, factor: float, heap_mb: int) -> Block:
    """Pooling against allocation in a heap of `factor` times the case's minimum heap (heap_mb: the larger of the
    two strategies' minimum heaps, times factor), both strategies in the same heap, as the batch blocks run."""
    plan = prof.blocks
    cells = tuple(batch_cell(solution, strategy, case, prof, heap_mb=heap_mb, duration_s=plan.batch_s,
                             warmup_s=plan.batch_warmup_s) for strategy in HEADROOM_STRATEGIES)
    return Block(f"batch at {factor:g}x the minimum heap, {solution.name}, case {case}", cells, max(1, plan.repetitions))


def pool_choice_block(solution: Solution, case: str, prof: Profile) -> Block:
    """The C++ choice of pool for one design and case: allocation, the engine's free list and the standard
    library's pool resource, as the batch blocks run. Its allocation and free-list runs are the batch block's
    (the same cells): in a boot where that block ran, only the standard pool's runs are new."""
    plan = prof.blocks
    cells = tuple(batch_cell(solution, strategy, case, prof, duration_s=plan.batch_s, warmup_s=plan.batch_warmup_s)
                  for strategy in POOL_CHOICE_STRATEGIES)
    return Block(f"pool choice, {solution.name}, case {case}", cells, max(1, plan.repetitions))


def jdk_block(solution: Solution, case: str, prof: Profile) -> Block:
    """The comparison of the JDKs chapter (chapter 15) for one JDK, collector and case: each strategy of its
    plan as the batch blocks run, interleaved and repeated as they are. Where the solution's batch block
    holds the same strategies (the article's solutions), its runs are those cells' own."""
    plan = prof.blocks
    cells = tuple(batch_cell(solution, strategy, case, prof, duration_s=plan.batch_s, warmup_s=plan.batch_warmup_s)
                  for strategy in prof.jdks.strategies)
    return Block(f"JDKs, {solution.name}, case {case}", cells, max(1, plan.repetitions))


def thread_cell(solution: Solution, strategy: str, case: str, prof: Profile, threads: int, scaling: str = WEAK,
                handoff: bool = False) -> Cell:
    """A batch run of the several-threads chapter: `threads` processing threads, each with the case's live set
    (weak scaling) or its share of it (strong), fed by one producer thread where `handoff`, for the profile's
    thread-run length (ThreadPlan). Under weak scaling a Java heap holds N live sets: the solution's heap at N
    times the scale (its heap grows with the live set)."""
    plan = prof.threads
    heap = solution.heap_mb(prof.scale * threads) if scaling == WEAK and solution.engine == "java" else None
    return _cell(solution, strategy, case, prof, heap, mode="batch", threads=threads,
                 scaling=None if scaling == WEAK else scaling, handoff=handoff,
                 duration_s=plan.batch_s or prof.blocks.batch_s or prof.batch_s,
                 warmup_s=plan.batch_warmup_s or prof.blocks.batch_warmup_s or prof.batch_warmup_s)


def thread_probe_cell(solution: Solution, strategy: str, case: str, prof: Profile, threads: int) -> Cell:
    """A real-time probe of the several-threads chapter: one clock feeding `threads` consumers in turn, each
    with the case's live set (weak scaling, in a Java heap of N times the scale's, as thread_cell's) and seeing
    the chapter's interval (the clock ticks `threads` times as often), for the profile's probe length."""
    heap = solution.heap_mb(prof.scale * threads) if solution.engine == "java" else None
    return _cell(solution, strategy, case, prof, heap, mode="realtime", threads=threads,
                 interval_ns=prof.threads.interval_ns // threads, duration_s=prof.probe_s,
                 warmup_s=prof.probe_warmup_s, capture_delay_ms=_queue_delay(prof))


def thread_probe_block(solution: Solution, case: str, prof: Profile, counts: tuple[int, ...]) -> Block:
    """The several-threads real-time comparison of one solution and case: every strategy of the chapter its
    engine runs at each consumer count, interleaved and repeated as the profile's real-time blocks are."""
    strategies = [s for s in prof.threads.strategies if s in THREAD_ENGINE_STRATEGIES[solution.engine]]
    cells = tuple(thread_probe_cell(solution, strategy, case, prof, n) for n in counts for strategy in strategies)
    return Block(f"real time, consumers {', '.join(map(str, counts))}, {solution.name}, case {case}", cells,
                 prof.blocks.probe_repetitions)


def thread_block(solution: Solution, case: str, prof: Profile, counts: tuple[int, ...], scaling: str = WEAK) -> Block:
    """The several-threads comparison of one solution and case under weak or strong scaling: every strategy of the
    chapter its engine runs (lists.THREAD_ENGINE_STRATEGIES) at each thread count, interleaved and repeated as the
    profile's batch blocks are. The weak block keeps its name of before strong scaling was measured."""
    strategies = [s for s in prof.threads.strategies if s in THREAD_ENGINE_STRATEGIES[solution.engine]]
    cells = tuple(thread_cell(solution, strategy, case, prof, n, scaling) for n in counts for strategy in strategies)
    return Block(f"threads {', '.join(map(str, counts))}, {solution.name}, case {case}"
                 + ("" if scaling == WEAK else f", {scaling} scaling"), cells,
                 prof.threads.repetitions or max(1, prof.blocks.repetitions))


def handoff_block(solution: Solution, case: str, prof: Profile, counts: tuple[int, ...]) -> Block:
    """The hand-off comparison of one solution and case (engines of lists.HANDOFF_ENGINES): one producer thread
    feeding N workers, every hand-off strategy at each worker count, weak scaling, interleaved and repeated as the
    thread blocks are."""
    if solution.engine not in HANDOFF_ENGINES:
        raise ValueError(f"{solution.name}: hand-off runs in the {', '.join(HANDOFF_ENGINES)} engine only")
    cells = tuple(thread_cell(solution, strategy, case, prof, n, handoff=True) for n in counts
                  for strategy in prof.threads.handoff_strategies)
    return Block(f"hand-off {', '.join(map(str, counts))}, {solution.name}, case {case}", cells,
                 prof.threads.repetitions or max(1, prof.blocks.repetitions))


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


def continuum_block(solution: Solution, size: int, prof: Profile) -> Block:
    """The continuum's batch comparison at one live-set size: each strategy of its plan's batch run there
    (continuum_cells), as a block of the profile's repetitions."""
    cells = tuple(continuum_cells(solution, strategy, size, prof)[0] for strategy in prof.continuum.strategies)
    return Block(f"continuum, {solution.name}, {size:,} packets", cells, continuum_repetitions(prof))



PACKET_BYTES = 1024  # one packet buffer (both engines' Packet)
# The JVM's direct memory unless a cell asks for more (run.java.JavaRun's -XX:MaxDirectMemorySize), and the room an
# off-heap pool gets above its buffers when it needs more than that.
DIRECT_MEMORY_MB = 2048
DIRECT_ROOM_MB = 256


def direct_memory_option(buffers: int) -> tuple[str, ...]:
    """The JVM option that lets an off-heap pool of `buffers` packet buffers fit its direct memory, in whole GiB;
    none where the JVM's own limit holds it with room (the cell and its key stay as they were)."""
    need_mb = buffers * PACKET_BYTES / 2**20 + DIRECT_ROOM_MB
    return () if need_mb <= DIRECT_MEMORY_MB else (f"-XX:MaxDirectMemorySize={math.ceil(need_mb / 1024)}g",)


def pool_size_cell(solution: Solution, pool_size: int, prof: Profile, fill_limit_s: float | None = None,
                   duration_s: float | None = None, warmup_s: float | None = None) -> Cell:
    """A batch run of the pool strategy in case B with a pool of pool_size x scale buffers; a JVM gets the
    big heap of the heap strategies (the article's 10 GB x scale), which ten million buffers need, and an
    off-heap pool the direct memory its buffers need (the packet objects stay on the heap). fill_limit_s: a
    bisection's limit on the fill phase (not in the key). The run lasts the profile's batch run unless told."""
    buffers = max(1, round(pool_size * prof.scale))
    heap = replace(solution, native_buffers=False).big_heap_mb(prof.scale)
    if solution.native_buffers:
        solution = replace(solution, vm_options=solution.vm_options + direct_memory_option(buffers))
    return _cell(solution, "pool", "B", prof, heap, mode="batch",
                 duration_s=prof.batch_s if duration_s is None else duration_s,
                 warmup_s=prof.batch_warmup_s if warmup_s is None else warmup_s, pool_size=buffers,
                 fill_limit_s=fill_limit_s)


def pool_size_block(solution: Solution, sizes: tuple[int, int], prof: Profile) -> Block:
    """The pool-size comparison of one solution: pooling in case B with the smaller and the larger pool
    (sizes before the profile's scale), as a block of the profile's repetitions and batch-block length."""
    plan = prof.blocks
    cells = tuple(pool_size_cell(solution, size, prof, duration_s=plan.batch_s, warmup_s=plan.batch_warmup_s)
                  for size in sizes)
    return Block(f"pool sizes {sizes[0]:,} and {sizes[1]:,}, {solution.name}, case B", cells, plan.repetitions)
