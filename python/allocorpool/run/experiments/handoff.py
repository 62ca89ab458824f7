"""The several-threads chapter's hand-off experiments and its rows (chapter 17): one producer thread acquiring
and filling every packet for N workers that process and release them (run.cells.handoff_block), for the chosen
solutions whose engine runs it (lists.HANDOFF_ENGINES); and the row of a thread cell, a hand-off one or not, with
its CPU time, Netty's allocator metrics and its collector's hold on its threads beside its wall time
(analysis.thread_costs). Plain functions of the sweep (run.executor.Executor) that measures or replays the
blocks."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

import pandas as pd

from allocorpool import machine
from allocorpool.analysis.blocks import cell_figures, spread_columns
from allocorpool.analysis.thread_costs import (CPU_COLUMNS, HELD, collector_held, cpu_figures, live_set_per_thread,
                                               netty_columns)
from allocorpool.data.records import MISSING, CellResult
from allocorpool.data.tables import THREAD_COLUMNS, THREAD_FIELDS, machine_name, recorded, value
from allocorpool.lists import HANDOFF_ENGINES, THREAD_STRATEGY_LABELS, WEAK, Solution
from allocorpool.run.cells import handoff_block, thread_block
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import runs_of
from allocorpool.run.runner import Cell


def handoffs(ex: Executor, chosen: Iterable[Solution]) -> pd.DataFrame:
    """Every hand-off strategy at each worker count, for each chosen solution of a hand-off engine and case: one
    row each (data.tables.THREAD_COLUMNS, handoff True). Measured, the counts the machine that runs the blocks
    (Executor.cpus: this one, or on a Dask cluster its smallest worker) has a CPU for each worker (N), the producer
    sharing them where no CPU is left for it (worker_counts); a replay, every planned count (those the store
    lacks show as not measured).
    `ex`: the run.executor.Executor measuring or replaying (its profile, blocks and progress)."""
    plan = ex.profile.threads
    counts = plan.counts if ex.replay else worker_counts(plan.counts, ex.cpus(), sharing=True)
    ex.progress.begin(f"hand-off to several workers ({', '.join(map(str, counts))})")
    rows = []
    for solution in (s for s in chosen if s.engine in HANDOFF_ENGINES and counts):
        for case in plan.cases or ex.profile.cases:
            block = handoff_block(solution, case, ex.profile, counts)
            runs = runs_of(ex, handoff_block, solution, case, counts)
            ex.progress.saw(runs.to_dict("records"))
            rows += block_rows(solution, block.cells, runs, ex.load)
    ex.progress.end(f"{len(rows)} hand-off cells")
    return pd.DataFrame(rows, columns=THREAD_COLUMNS)


def worker_counts(planned: Iterable[int], cpus: int | None = None, *, sharing: bool = False) -> tuple[int, ...]:
    """The planned worker counts a machine of `cpus` CPUs (this process's, machine.cpus, unless told) can run, the
    producer and each worker on a CPU of its own: N + 1 CPUs for N (none on a machine of one CPU). With sharing
    (the batch hand-off, whose threads yield their CPU when they wait), N CPUs for N: the producer shares a CPU
    with the workers where none is left for it (oversubscribed)."""
    cpus = machine.cpus() if cpus is None else cpus
    return tuple(n for n in planned if n + (0 if sharing else 1) <= cpus)



def block_rows(solution: Solution, cells: Iterable[Cell], runs: pd.DataFrame,
               load: Callable[[str], CellResult]) -> list[dict[str, Any]]:
    """A thread block's rows, one per cell (thread_row), from its runs, each finished Java cell's with its
    collector's hold on its threads, read from the GC log of the run that stands for it (`load`: a stored run by
    its key, Executor.load; analysis.thread_costs.collector_held)."""
    figures = cell_figures(runs) if len(runs) else {}
    costs = cpu_figures(runs) if len(runs) else {}
    rows = [thread_row(solution, cell, figures.get(cell.key), costs.get(cell.key)) for cell in cells]
    for row in rows:
        java = row["status"] == "ok" and solution.engine == "java"
        row[HELD] = collector_held(load(row["key"])) if java else None
    return rows


def thread_row(solution: Solution, cell: Cell, found: dict[str, Any] | None,
               costs: dict[str, Any] | None) -> dict[str, Any]:
    """A thread cell's row: its labels (strategy, case, threads, scaling, hand-off), its median over the newest
    complete boot's repetitions and its interval, the standing run's figures and Netty metrics, and the CPU
    figures (analysis.thread_costs)."""
    threads = int(cell.threads or 1)
    labels = {"solution": solution.name, "label": solution.label, "reference_name": solution.reference_name,
              "engine": solution.engine, "baseline": solution.baseline, "strategy": cell.strategy,
              "strategy_label": THREAD_STRATEGY_LABELS[cell.strategy], "case": cell.case, "threads": threads,
              "scaling": cell.scaling or WEAK, "handoff": cell.handoff}
    if found is None:
        return {**labels, "key": cell.key, "status": MISSING, "error": "not measured: no boot completed its block",
                "runs": 0, "failed_runs": 0, "boots": 0}
    row = found["standing"]
    ok = row.get("status") == "ok"
    return {**labels, "key": row.get("key", cell.key), "status": row.get("status", MISSING),
            "error": value(row, "error"), **{name: recorded(row, name) if ok else None for name in THREAD_FIELDS},
            **({"ns_per_packet": found["spread"].median} if ok else {}), **spread_columns(found),
            **({name: (costs or {}).get(name) for name in CPU_COLUMNS} if ok else {}),
            **(netty_columns(row) if ok else {}),
            "live_set_per_thread": live_set_per_thread(row, threads) if ok else None,
            "machine": machine_name(row)}


def scaling_block(scaling: str) -> Any:
    """run.cells.thread_block under `scaling`, as the sweep's block makers are called."""
    return partial(thread_block, scaling=scaling)
