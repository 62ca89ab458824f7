"""The several-threads chapter's experiments (chapter 17): every strategy of lists.THREAD_STRATEGIES at each
thread count the machine that runs the blocks has CPUs for (Executor.cpus: this one, or a Dask cluster's smallest
worker), as one block per solution and case (run.cells.thread_block)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool import machine
from allocorpool.data.records import MISSING
from allocorpool.data.tables import THREAD_COLUMNS, THREAD_PROBE_COLUMNS
from allocorpool.lists import THREAD_REALTIME_ENGINES, THREAD_STRATEGY_LABELS, Solution
from allocorpool.run.cells import thread_block, thread_probe_block
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.handoff import block_rows, scaling_block, worker_counts
from allocorpool.run.experiments.rows import labels, probe_block_figures, runs_of


def thread_counts(planned: Iterable[int], cpus: int | None = None) -> tuple[int, ...]:
    """The planned thread counts a machine of `cpus` CPUs (this process's, machine.cpus, unless told) can run,
    each thread on a CPU of its own: at least one."""
    cpus = machine.cpus() if cpus is None else cpus
    return tuple(n for n in planned if n <= cpus) or (1,)


def consumer_counts(planned: Iterable[int], cpus: int | None = None) -> tuple[int, ...]:
    """The planned counts of real-time consumers a machine of `cpus` CPUs can pin, each beside the clock's
    CPU: N + 1 CPUs for N (none on a machine of one CPU)."""
    return worker_counts(planned, cpus)


def threads(ex: Executor, chosen: Iterable[Solution]) -> pd.DataFrame:
    """Every strategy of the chapter at each thread count, for each chosen solution and case, under weak and
    strong scaling (ThreadPlan.scalings): one row each (data.tables.THREAD_COLUMNS, run.experiments.handoff's
    thread_row), with its median over the newest complete boot's repetitions and its interval.
    Measured, the counts the machine that runs the blocks has CPUs for (Executor.cpus: this one, or on a Dask
    cluster its smallest worker); a replay, every planned count (those the store lacks show as not measured). The
    blocks run one at a time, whatever the machine's CPU slots: a block of N threads needs N CPUs to itself."""
    plan = ex.profile.threads
    counts = plan.counts if ex.replay else thread_counts(plan.counts, ex.cpus())
    ex.progress.begin(f"several threads ({', '.join(map(str, counts))})")
    cases = plan.cases or ex.profile.cases
    rows = []
    for solution in chosen:
        for case in cases:
            for scaling in plan.scalings:  # weak, the comparison, first; strong, the case split
                block = thread_block(solution, case, ex.profile, counts, scaling)  # its cells name the rows
                runs = runs_of(ex, scaling_block(scaling), solution, case, counts)
                ex.progress.saw(runs.to_dict("records"))
                rows += block_rows(solution, block.cells, runs, ex.load)
    ex.progress.end(f"{len(rows)} thread cells")
    return pd.DataFrame(rows, columns=THREAD_COLUMNS)


def thread_probes(ex: Executor, chosen: Iterable[Solution]) -> pd.DataFrame:
    """Real time with one clock feeding N consumer threads, for the chosen solutions whose engine runs it
    (lists.THREAD_REALTIME_ENGINES): every strategy's probes at each count the machine that runs the blocks
    (Executor.cpus) has N + 1 CPUs for (a replay, every planned count), one row per solution, strategy, case and
    count (data.tables.THREAD_PROBE_COLUMNS), its interval the one each consumer sees."""
    plan = ex.profile.threads
    counts = plan.counts if ex.replay else consumer_counts(plan.counts, ex.cpus())
    ex.progress.begin(f"several consumers in real time ({', '.join(map(str, counts)) or 'none: one CPU'})")
    rows = []
    for solution in (s for s in chosen if s.engine in THREAD_REALTIME_ENGINES and counts):
        for case in plan.cases or ex.profile.cases:
            block = thread_probe_block(solution, case, ex.profile, counts)
            runs = runs_of(ex, thread_probe_block, solution, case, counts)
            records = runs.to_dict("records") if len(runs) else []
            for cell in block.cells:
                mine = [r for r in records if r["cell"] == cell.key and r["status"] != MISSING]
                ex.progress.saw(mine)
                rows.append(_probe_row(solution, cell.strategy, case, int(cell.threads or 1),
                                            int(cell.interval_ns or 0), float(cell.duration_s), mine, runs))
    ex.progress.end(f"{len(rows)} real-time thread cells")
    return pd.DataFrame(rows, columns=THREAD_PROBE_COLUMNS)


def _probe_row(solution: Solution, strategy: str, case: str, threads: int, clock_ns: int, duration_s: float,
               mine: list[dict[str, Any]], runs: pd.DataFrame) -> dict[str, Any]:
    figures, probes = probe_block_figures(mine, runs, clock_ns, duration_s)
    p99 = [p.latency_p99_ns for p in probes if p.status == "ok" and p.latency_p99_ns is not None]
    return {**labels(solution, "alloc", case), "strategy": strategy,
            "strategy_label": THREAD_STRATEGY_LABELS[strategy], "threads": threads,
            "interval_ns": clock_ns * threads, **figures,
            "latency_p99_ns": float(pd.Series(p99).median()) if p99 else None}
