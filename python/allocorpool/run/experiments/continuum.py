"""The continuum chapter's experiments (chapter 14): live sets from case A past case C, a batch run and a
real-time probe at each size, and the pool-size what-if."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import Any

import pandas as pd

from allocorpool.analysis.blocks import cell_figures, complete_boots, spread_columns
from allocorpool.analysis.min_heap import FAILED, FITS, NOT_FITTING, TOO_SMALL, fill_limit_s, heap_verdict
from allocorpool.data.records import row_failure
from allocorpool.data.tables import CONTINUUM_COLUMNS, POOL_SIZE_COLUMNS, Continuum, machine_name, machine_names, value
from allocorpool.lists import Solution
from allocorpool.run.cells import continuum_block, continuum_cells, pool_size_block, pool_size_cell
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import MISSING, labels, latency, probe_verdict

# The pool-size what-if's rows (pool_sizes): beyond a run's own columns, where the pool keeps
# its buffers, the run's heap verdict (analysis.min_heap, or MISSING), whether it is a size of the plan or a step of
# the bisection, and the bisection's outcome and largest size that fits (the same on every row of a solution).
POOL_WHAT_IF_COLUMNS = POOL_SIZE_COLUMNS + ["pool", "fits", "step", "search", "largest_fitting", "failure"]
ON_HEAP, OFF_HEAP, NO_HEAP = "Java heap", "direct memory", "C++ memory"  # where the buffers are kept
# A row's step: a size of the plan, a step of the bisection, or a run of the block that repeats the comparison
# (the smallest size against the largest that fits: pool_blocks)
PLAN, SEARCH, BLOCK = "plan", "search", "block"
# The bisection's outcomes: the plan's largest size fits (nothing to search); the largest size that fits found to
# the plan's resolution; no size of the plan fits; or the verdict of the run it stopped at (FAILED, MISSING).
ALL_FIT, FOUND, NONE_FIT = "fits", "found", "none"
SEARCH_OUTCOMES = (ALL_FIT, FOUND, NONE_FIT, FAILED, MISSING)


def around_changes(line: list[dict[str, Any]]) -> set[int]:
    """The positions in a continuum line (by size) of the sizes on either side of a change of verdict,
    sizes with no verdict (not run, failed) skipped."""
    known = [i for i, row in enumerate(line) if row.get("keeps_up") is not None]
    return {i for a, b in pairwise(known) if bool(line[a]["keeps_up"]) != bool(line[b]["keeps_up"])
            for i in (a, b)}


def continuum(ex: Executor, chosen: Iterable[Solution], off_heap: Iterable[Solution] = ()) -> Continuum:
    """For each chosen solution, strategy and live-set size of the profile's continuum plan: a
    batch run and a real-time probe at the plan's interval; and the pool-size what-if (pool_sizes, off_heap:
    the plan's off-heap solutions shown)."""
    ex.progress.begin("continuum")
    chosen = list(chosen)
    jobs = [(solution, strategy) for solution in chosen for strategy in ex.profile.continuum.strategies]
    curves = [row for line in ex.each(lambda job: _continuum_line(ex, job), jobs, "continuum lines") for row in line]
    curves = _continuum_blocks(ex, chosen, curves)
    pools = pool_sizes(ex, chosen, off_heap)
    ex.progress.end(f"{len(curves)} live-set sizes, {len(pools)} pool sizes")
    return Continuum(pd.DataFrame(curves, columns=CONTINUUM_COLUMNS), pools)


def _continuum_line(ex: Executor, job: tuple[Solution, str]) -> list[dict[str, Any]]:
    """One solution and strategy at every size. Smallest size first: once a live set ran out of heap, a
    larger one in the same heap would too, and its probe likewise; those runs are not made (G1 thrashes
    for minutes before its OutOfMemoryError)."""
    rows, fits = [], True
    for size in sorted(ex.profile.continuum.sizes):
        rows.append(_continuum_size(ex, *job, size, fits))
        fits = rows[-1]["batch_status"] != NOT_FITTING
    # A crossover rests on the probes at the two sizes around it: each is repeated, and a size keeps up
    # only where both of its probes did. A repeat that loses moves the change, so the sizes around the new
    # one are repeated in turn.
    repeated: set[int] = set()
    while around := around_changes(rows) - repeated:
        for i in sorted(around):
            rows[i] = _continuum_repeat(ex, *job, rows[i])
        repeated |= around
    return rows


def _continuum_blocks(ex: Executor, chosen: list[Solution], curves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The batch comparisons of each solution and size whose every strategy fitted in its heap, as blocks
    (run.cells.continuum_block): a row's time becomes its block's median, with its interval and runs, where
    a boot completed the block. None on a cluster or under a profile without blocks."""
    if ex.profile.blocks.repetitions == 0 or ex.cluster() is not None:
        return curves
    strategies = set(ex.profile.continuum.strategies)
    fitted: dict[tuple[str, int], set[str]] = {}
    for row in curves:
        if row["batch_status"] == "ok":
            fitted.setdefault((row["solution"], row["size"]), set()).add(row["strategy"])
    blocks = {(s.name, size): continuum_block(s, size, ex.profile) for s in chosen
              for size in ex.profile.continuum.sizes if fitted.get((s.name, size)) == strategies}
    figures: dict[str, dict[str, Any]] = {}
    for runs in ex.measure(list(blocks.values())):
        ex.progress.saw(runs.to_dict("records"))
        figures.update(cell_figures(runs))
    out = []
    for row in curves:
        block = blocks.get((row["solution"], row["size"]))
        cell = next((c for c in block.cells if c.strategy == row["strategy"]), None) if block else None
        found = figures.get(cell.key) if cell is not None else None
        out.append({**row, "ns_per_packet": found["spread"].median, **spread_columns(found)}
                   if found is not None and found["spread"].n else row)
    return out


def _continuum_size(ex: Executor, solution: Solution, strategy: str, size: int, fits: bool) -> dict[str, Any]:
    """One live-set size: its batch run, then (where the live set fits in the heap) its probe."""
    plan = ex.profile.continuum
    batch_cell_, probe_cell_ = continuum_cells(solution, strategy, size, ex.profile)
    row = {**labels(solution, strategy, "B"), "size": size,
           "live_packets": batch_cell_.internal_queue_size + batch_cell_.stored_count,
           "interval_ns": plan.interval_ns}
    if not fits:
        return {**row, "batch_status": NOT_FITTING, "probe_status": NOT_FITTING,
                "error": "not run: a smaller live set ran out of heap"}
    batch = ex.row(batch_cell_)
    if ex.progress.heap_verdict(batch_cell_.key, batch) == TOO_SMALL:  # the line's answer, not a failed run
        return {**row, "batch_status": NOT_FITTING, "probe_status": NOT_FITTING, "batch_key": batch["key"],
                "error": value(batch, "error") or batch["status"], "machine": machine_name(batch)}
    probe = ex.row(probe_cell_)
    judged = probe_verdict(probe, plan.interval_ns, probe_cell_.duration_s)
    kept = judged.ok if probe["status"] == "ok" else None
    return {**row, "batch_status": batch["status"],
            "ns_per_packet": value(batch, "ns_per_packet") if batch["status"] == "ok" else None,
            "probe_status": probe["status"], "keeps_up": kept, "probe_keeps_up": kept, "loss_pct": judged.lost_pct,
            **latency(judged), "batch_key": batch["key"], "probe_key": probe["key"],
            "machine": machine_names([batch, probe])}


def _continuum_repeat(ex: Executor, solution: Solution, strategy: str, row: dict[str, Any]) -> dict[str, Any]:
    """A size's probe again: it keeps up only where both probes did."""
    plan = ex.profile.continuum
    batch_cell_, first_cell = continuum_cells(solution, strategy, row["size"], ex.profile)
    _, probe_cell_ = continuum_cells(solution, strategy, row["size"], ex.profile, repetition=1)
    probe = ex.row(probe_cell_)
    judged = probe_verdict(probe, plan.interval_ns, probe_cell_.duration_s)
    again = judged.ok if probe["status"] == "ok" else None
    return {**row, "repeat_status": probe["status"], "repeat_keeps_up": again,
            "repeat_loss_pct": judged.lost_pct, "repeat_key": probe["key"],
            "keeps_up": (row["keeps_up"] and again) if again is not None else row["keeps_up"],
            # by the cells' keys: a replayed row can be another build's, under its own key
            "machine": machine_names([ex.progress.seen[batch_cell_.key], ex.progress.seen[first_cell.key], probe])}


def pool_sizes(ex: Executor, chosen: Iterable[Solution], off_heap: Iterable[Solution] = ()) -> pd.DataFrame:
    """The pool-size what-if of the continuum plan (case B's pooling batch run with each of its pool sizes,
    before the profile's scale), for the chosen solutions and the plan's off-heap ones (only their smallest
    and largest sizes): one row per solution and pool size run (POOL_WHAT_IF_COLUMNS). Where a pool on the
    heap ran out of it at the largest size, a bisection finds the largest that fits (bisect_pool)."""
    shown = list(chosen)
    names = {s.name for s in shown}
    shown += [s for s in off_heap if s.native_buffers and s.name not in names]
    lines = ex.each(lambda solution: _pool_line(ex, solution), shown, "pool sizes")
    rows = [row for line in lines for row in line] + pool_blocks(ex, shown, lines)
    return pd.DataFrame(rows, columns=POOL_WHAT_IF_COLUMNS)


def pool_blocks(ex: Executor, solutions: list[Solution], lines: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """For each Java solution whose pool fits at a size above the plan's smallest, the comparison of the
    smallest size with the largest that fits (compared_pool_sizes), measured again as a block (run.blocks:
    both interleaved, repeated): a row per run of its newest complete boot, step BLOCK. None on a cluster
    or under a profile without blocks, where the plan's single runs stand alone."""
    if ex.profile.blocks.repetitions == 0 or ex.cluster() is not None:
        return []
    jobs = [(solution, line, sizes) for solution, line in zip(solutions, lines)
            if solution.engine == "java" and (sizes := compared_pool_sizes(line)) is not None]
    blocks = [pool_size_block(solution, sizes, ex.profile) for solution, _, sizes in jobs]
    out = []
    for (solution, line, sizes), block, runs in zip(jobs, blocks, ex.measure(blocks)):
        boots = complete_boots(runs)
        if not boots:
            continue  # no boot completed the block: the plan's runs stand alone
        newest = runs[runs["boot"] == boots[-1]]
        for cell, size in zip(block.cells, sizes):
            for run in newest[newest["cell"] == cell.key].to_dict("records"):
                fits = FITS if run["status"] == "ok" else MISSING if run["status"] == MISSING else FAILED
                out.append({**pool_row(solution, size, run, fits, BLOCK), "search": line[0]["search"],
                            "largest_fitting": line[0]["largest_fitting"]})
    return out


def _pool_line(ex: Executor, solution: Solution) -> list[dict[str, Any]]:
    """One solution's pool sizes, then (a pool on the heap whose largest size ran out of it) the bisection's
    runs; every row carries the bisection's outcome and the largest size that fits (None: not searched)."""
    plan = ex.profile.continuum
    where = pool_place(solution)
    sizes = plan.pool_sizes if where != OFF_HEAP or not plan.pool_sizes else \
        tuple(sorted({min(plan.pool_sizes), max(plan.pool_sizes)}))
    rows = [_pool_run(ex, solution, size, PLAN) for size in sizes]
    outcome, largest = None, None
    if where == ON_HEAP and rows:
        outcome, largest, steps = _largest_pool(ex, solution, rows)
        rows += steps
    return [{**row, "search": outcome, "largest_fitting": largest} for row in rows]


def _pool_run(ex: Executor, solution: Solution, size: int, step: str, limit_s: float | None = None) -> dict[str, Any]:
    """One pool size's batch run (through the store: a replay reads it, or shows it not measured) as a row,
    with its heap verdict; a pool on the heap that ran out of it is an answer of the what-if, not a failure."""
    cell = pool_size_cell(solution, size, ex.profile, fill_limit_s=limit_s)
    row = ex.row(cell)
    where = pool_place(solution)
    if row["status"] == MISSING:
        fits = MISSING
    elif where == ON_HEAP:
        fits = ex.progress.heap_verdict(cell.key, row)
    else:
        fits = heap_verdict(row["status"], row_failure(row), value(row, "stderr_tail"))
    return pool_row(solution, size, row, fits, step)


def _largest_pool(ex: Executor, solution: Solution, rows: list[dict[str, Any]]
                  ) -> tuple[str, int | None, list[dict[str, Any]]]:
    """The bisection of a pool on the heap: its outcome (SEARCH_OUTCOMES), the largest size known to fit
    (None: none), and its runs. It runs only where the plan's largest size ran out of heap, between the
    largest size below it that fitted and the smallest that did not; each run's fill phase is limited as
    the minimum-heap bisection's are (analysis.min_heap.fill_limit_s), from the fill of that size."""
    verdicts = {row["pool_size"]: row["fits"] for row in rows}
    largest = max(verdicts)
    if verdicts[largest] == FITS:
        return ALL_FIT, largest, []
    if verdicts[largest] != TOO_SMALL:  # failed, or not measured: whether it fits is not known
        return verdicts[largest], None, []
    too_small = min(size for size, verdict in verdicts.items() if verdict == TOO_SMALL)
    fitting = [row for row in rows if row["fits"] == FITS and row["pool_size"] < too_small]
    if not fitting:
        return NONE_FIT, None, []
    fitted = max(fitting, key=lambda row: row["pool_size"])
    limit = fill_limit_s(fitted["fill_s"])
    steps: list[dict[str, Any]] = []

    def run(size: int) -> str:
        steps.append(_pool_run(ex, solution, size, SEARCH, limit))
        return str(steps[-1]["fits"])
    outcome, found = bisect_pool(run, fitted["pool_size"], too_small, ex.profile.continuum.pool_resolution)
    return outcome, found, steps


def pool_row(solution: Solution, size: int, run: dict[str, Any], fits: str, step: str) -> dict[str, Any]:
    """A what-if row of one pool-size run (a stored run's index row), without the bisection's columns."""
    return {**labels(solution, "pool", "B"), "pool_size": size, "status": run["status"], "error": value(run, "error"),
            "ns_per_packet": value(run, "ns_per_packet") if run["status"] == "ok" else None, "key": run["key"],
            "machine": machine_name(run), "pool": pool_place(solution), "fits": fits, "step": step,
            "fill_s": value(run, "fill_s"), "failure": row_failure(run)}


def compared_pool_sizes(line: list[dict[str, Any]]) -> tuple[int, int] | None:
    """The sizes a solution's pool-size comparison rests on: the plan's smallest and the largest size whose
    run fitted (of the plan or the bisection); None where no size above the smallest fitted."""
    plan = [row["pool_size"] for row in line if row["step"] == PLAN]
    fitted = [row["pool_size"] for row in line if row["fits"] == FITS]
    if not plan or not fitted or max(fitted) <= min(plan):
        return None
    return int(min(plan)), int(max(fitted))


def pool_place(solution: Solution) -> str:
    """Where a solution's pool keeps its buffers: the Java heap, direct memory (native buffers), or C++'s."""
    return NO_HEAP if solution.engine != "java" else OFF_HEAP if solution.native_buffers else ON_HEAP


def bisect_pool(run: Callable[[int], str], fits: int, too_small: int, resolution: int) -> tuple[str, int]:
    """The largest pool size that fits, between a size that fits and a larger one that does not. run(size)
    gives a size's heap verdict (analysis.min_heap: FITS, TOO_SMALL or FAILED; MISSING where a replay's store
    lacks the run). Each step halves the bracket, on a grid of `resolution` from the size that fits; the
    search ends as FOUND when the two are at most `resolution` apart, else at a run that neither fits nor
    runs out of heap, with its verdict. Either way: the largest size known to fit."""
    if not (0 < fits < too_small and resolution > 0):
        raise ValueError(f"need 0 < fits < too_small and resolution > 0; got {fits}, {too_small}, {resolution}")
    while too_small - fits > resolution:
        middle = fits + math.ceil((too_small - fits) / resolution) // 2 * resolution
        verdict = run(middle)
        if verdict == FITS:
            fits = middle
        elif verdict == TOO_SMALL:
            too_small = middle
        else:
            return (MISSING if verdict == MISSING else FAILED), fits
    return FOUND, fits
