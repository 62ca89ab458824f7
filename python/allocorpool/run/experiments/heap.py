"""The minimum-heap chapter's experiments (chapter 13): each cell's minimum heap by bisection, then a batch
run at each multiple of it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool.analysis.min_heap import FITS, HeapRun, fill_limit_s, find_min_heap, lower_bound_overhead
from allocorpool.data.tables import (
    MIN_HEAP_COLUMNS,
    MULTIPLE_COLUMNS,
    HeapMultiples,
    batch_costs,
    machine_name,
    machine_names,
    value,
)
from allocorpool.lists import BIG_HEAP_FACTOR, HEADROOM_FACTORS, HEADROOM_STRATEGIES, Solution
from allocorpool.run.cells import batch_cell, headroom_block
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import labels


def min_heap(ex: Executor, solution: Solution, strategy: str, case: str) -> tuple[dict[str, Any], pd.DataFrame]:
    """The bisection of one cell's minimum heap (analysis.min_heap): its row and its runs. A run
    that ran out of heap is the bisection's answer, not a failure of the chapter."""
    plan = ex.profile.heap
    runs: list[dict[str, Any]] = []
    fitted_fill_s: list[float] = []  # the fill phase of the first run that fitted: it limits the later ones'

    def run(heap_mb: int) -> HeapRun:
        cell = batch_cell(solution, strategy, case, ex.profile, heap_mb=heap_mb, duration_s=plan.search_s,
                          warmup_s=plan.search_warmup_s, fill_limit_s=fill_limit_s(next(iter(fitted_fill_s), None)))
        row = ex.row(cell)
        found = ex.progress.heap_verdict(cell.key, row)
        if found == FITS and not fitted_fill_s and value(row, "fill_s") is not None:
            fitted_fill_s.append(float(value(row, "fill_s")))
        runs.append(row)
        return HeapRun(heap_mb, found, row["status"], value(row, "error"))
    start = solution.heap_mb(ex.profile.scale)
    assert start is not None, "a Java solution"
    found = find_min_heap(run, start_mb=start, resolution=plan.resolution, floor_mb=min(plan.floor_mb, start),
                          cap_mb=BIG_HEAP_FACTOR * start)
    bisection = found.runs.assign(key=[r["key"] for r in runs], machine=[machine_name(r) for r in runs],
                                  **labels(solution, strategy, case))
    return ({**labels(solution, strategy, case), "outcome": found.outcome, "min_heap_mb": found.min_heap_mb,
             "solution_heap_mb": start, "runs": len(runs), "error": found.error,
             "machine": machine_names(runs)}, bisection)


def heap_multiples(ex: Executor, chosen: Iterable[Solution]) -> HeapMultiples:
    """For each chosen Java solution, strategy and case of the profile's heap plan: the minimum heap,
    then a batch run at each multiple of it, each with its wall and CPU time per packet and their
    lower-bound overheads against the cheapest configuration of the same strategy and case."""
    ex.progress.begin("heap multiples")
    plan = ex.profile.heap
    cases = [case for case in (plan.cases or ex.profile.cases) if case in ex.profile.cases]
    jobs = [(solution, strategy, case) for solution in chosen if solution.engine == "java"
            for strategy in plan.strategies for case in cases]
    minimum, bisections, multiples = [], [], []
    for row, runs in ex.each(lambda job: min_heap(ex, *job), jobs, "minimum heaps"):
        minimum.append(row)
        bisections.append(runs)
    for (solution, strategy, case), row in zip(jobs, minimum):
        if row["min_heap_mb"] is None:
            continue
        for factor in plan.factors:
            heap = round(row["min_heap_mb"] * factor)
            for repetition in range(plan.repeats):
                cell_row = ex.row(batch_cell(solution, strategy, case, ex.profile, heap_mb=heap,
                                                    repetition=repetition))
                multiples.append({**labels(solution, strategy, case), "factor": factor, "heap_mb": heap,
                                  "repetition": repetition, "status": cell_row["status"],
                                  "error": value(cell_row, "error"), **batch_costs(cell_row),
                                  "key": cell_row["key"], "machine": machine_name(cell_row)})
    ex.progress.end(f"{len(minimum)} minimum heaps, {len(multiples)} runs at multiples of them")
    table = pd.DataFrame(multiples, columns=MULTIPLE_COLUMNS)
    table["overhead_wall"] = lower_bound_overhead(table, "ns_per_packet")
    table["overhead_cpu"] = lower_bound_overhead(table, "cpu_ns_per_packet")
    return HeapMultiples(pd.DataFrame(minimum, columns=MIN_HEAP_COLUMNS), table,
                         pd.concat(bisections, ignore_index=True) if bisections else pd.DataFrame())


def headroom(ex: Executor, chosen: Iterable[Solution]) -> pd.DataFrame:
    """For each chosen Java solution with buffers on the heap and each case of the profile: both strategies'
    minimum heaps (min_heap's bisection), then pooling against allocation as a block in a heap of each of
    HEADROOM_FACTORS times the larger minimum. One row per block: solution, case, factor, heap, the
    minimum heaps, and the block's runs in every boot (analysis.model reads them from the store)."""
    ex.progress.begin("heap headroom")
    rows = []
    for solution in chosen:
        if solution.engine != "java" or solution.native_buffers or solution.baseline:
            continue
        for case in ex.profile.cases:
            minimum = {strategy: min_heap(ex, solution, strategy, case)[0]["min_heap_mb"]
                       for strategy in HEADROOM_STRATEGIES}
            if any(mb is None for mb in minimum.values()):
                continue
            base = max(minimum.values())
            blocks = [(factor, headroom_block(solution, case, ex.profile, factor, round(factor * base)))
                      for factor in HEADROOM_FACTORS]
            for (factor, block), runs in zip(blocks, ex.measure([b for _, b in blocks])):
                rows.append({"solution": solution.name, "case": case, "factor": factor,
                             "heap_mb": round(factor * base), **{f"min_heap_mb_{s}": mb for s, mb in minimum.items()},
                             "block": block.name, "runs": runs})
    ex.progress.end(f"{len(rows)} headroom blocks")
    return pd.DataFrame(rows)
