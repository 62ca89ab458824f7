"""The batch chapter's experiments (chapters 2, 5-9): every strategy of a solution and case as a block,
the real-time blocks of every strategy at one interval, and the C++ chapter's choice of pool."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool.analysis.blocks import cell_figures, spread_columns
from allocorpool.data.records import MISSING
from allocorpool.data.tables import (BATCH_COLUMNS, BATCH_FIELDS, PROBE_BLOCK_COLUMNS, batch_costs, machine_name, recorded,
                                     value)
from allocorpool.lists import POOL_CHOICE_STRATEGIES, REALTIME_STRATEGIES, REFERENCE_NS, Solution
from allocorpool.run.blocks import Block
from allocorpool.run.cells import batch_block, batch_cell, batch_strategies, pool_choice_block, probe_block
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import labels, probe_block_figures


def batch(ex: Executor, chosen: Iterable[Solution], source: str = "counter") -> pd.DataFrame:
    """Every batch cell of the chosen solutions, measured as blocks (one per solution and case: every
    strategy, interleaved, repeated; run.blocks): one row per solution, strategy and case, with the
    median over the newest complete boot's repetitions, its interval (data.tables.SPREAD_COLUMNS),
    and the status, error and other figures of the repetition nearest the median. A replay of a store
    that holds no block of a cell shows its single run, with too few runs to compare. The packet source
    is the published code's `counter` unless asked otherwise."""
    ex.progress.begin("batch" if source == "counter" else f"batch, {source} source")
    chosen = list(chosen)
    figures: dict[str, dict[str, Any]] = {}
    if ex.profile.blocks.repetitions == 0 or ex.cluster() is not None:
        # A block needs one machine in one boot: on a Dask scheduler's cluster (or a profile without blocks)
        # each cell runs once, wherever the cluster sends it, and the chapters show it as one run
        if ex.cluster() is not None:
            ex.rows([batch_cell(solution, strategy, case, ex.profile, source)
                     for solution in chosen for strategy in batch_strategies(ex.profile)
                     for case in ex.profile.cases], unit="batch cells")
        chosen, singles = [], chosen
    else:
        singles = []
    blocks = [batch_block(solution, case, ex.profile, source)
              for solution in chosen for case in ex.profile.cases]
    for runs in ex.measure(blocks):  # side by side where this machine has CPU slots for them
        rows = runs.to_dict("records")
        ex.progress.saw(rows)
        for row in rows:
            if row.get("stop_when_heap_full"):
                ex.progress.heap_verdict(row["key"], row)  # Epsilon filled its heap: the cell's answer
        figures.update(with_cpu(runs, cell_figures(runs)))
    table = [batch_row(ex, solution, strategy, case, figures, source)
             for solution in [*chosen, *singles] for strategy in batch_strategies(ex.profile)
             for case in ex.profile.cases]
    ex.progress.end(f"{len(table)} batch cells")
    return pd.DataFrame(table, columns=BATCH_COLUMNS)


def pool_choice(ex: Executor, chosen: Iterable[Solution]) -> pd.DataFrame:
    """The C++ choice of pool (run.cells.pool_choice_block) for the chosen solutions and the profile's cases:
    one row per solution, strategy and case, as batch's (data.tables.BATCH_COLUMNS); a cell no boot completed
    shows as not measured."""
    ex.progress.begin("choice of pool")
    jobs = [(solution, case, pool_choice_block(solution, case, ex.profile))
            for solution in chosen for case in ex.profile.cases]
    figures: dict[str, dict[str, Any]] = {}
    for runs in ex.measure([block for *_, block in jobs]):
        ex.progress.saw(runs.to_dict("records"))
        figures.update(cell_figures(runs))
    table = [batch_row(ex, solution, strategy, case, figures, block=block)
             for solution, case, block in jobs for strategy in POOL_CHOICE_STRATEGIES]
    ex.progress.end(f"{len(table)} pool-choice cells")
    return pd.DataFrame(table, columns=BATCH_COLUMNS)


def probe_blocks(ex: Executor, chosen: Iterable[Solution], interval_ns: int = REFERENCE_NS) -> pd.DataFrame:
    """Every real strategy's probes at one interval, for the chosen solutions and the profile's cases, as
    blocks (run.cells.probe_block): one row per solution, strategy and case with its probes (all boots), how
    many lost, their median and largest loss, and whether the cell keeps up there (analysis.blocks.keeps_up:
    one lossy probe is enough to say it does not)."""
    ex.progress.begin(f"real-time blocks at {interval_ns} ns")
    rows = []
    jobs = [(solution, case, probe_block(solution, case, ex.profile, interval_ns))
            for solution in list(chosen) for case in ex.profile.cases]
    # side by side where this machine has CPU slots for them (each slot's clock and consumer on its own CPUs)
    for (solution, case, block), runs in zip(jobs, ex.measure([block for *_, block in jobs])):
        for strategy, cell in zip(REALTIME_STRATEGIES, block.cells):
            mine = [r for r in runs.to_dict("records") if r["cell"] == cell.key and r["status"] != MISSING]
            ex.progress.saw(mine)
            figures, _ = probe_block_figures(mine, runs, interval_ns, cell.duration_s)
            rows.append({**labels(solution, strategy, case), "interval_ns": interval_ns, **figures})
    ex.progress.end(f"{len(rows)} real-time block cells")
    return pd.DataFrame(rows, columns=PROBE_BLOCK_COLUMNS)


def batch_row(ex: Executor, solution: Solution, strategy: str, case: str,
               figures: dict[str, dict[str, Any]] | None = None, source: str = "counter",
               block: Block | None = None) -> dict[str, Any]:
    """A batch cell's row: from its block's figures where given (batch's block unless told), else, for a
    cell of batch's blocks, its single run of the profile's length (run if missing; a replay of a store
    without the cell's block shows it so), and for another block's, not measured."""
    found, cell = None, None
    if figures or block is not None:
        cells = (block or batch_block(solution, case, ex.profile, source)).cells
        cell = next(c for c in cells if c.strategy == solution.engine_strategy(strategy))
        found = figures.get(cell.key) if figures else None
    if found is None and cell is not None and block is not None:
        return {**labels(solution, strategy, case), "source": source, "key": cell.key, "status": MISSING,
                "error": "not measured: no boot completed its block", "runs": 0, "failed_runs": 0, "boots": 0}
    if found is None:
        row = ex.row(batch_cell(solution, strategy, case, ex.profile, source))
        spread = {"runs": 1 if row["status"] == "ok" else 0, "failed_runs": int(row["status"] not in ("ok", MISSING)),
                  "boots": 0, "samples": None, "boot_samples": None}
    else:
        row, spread = found["standing"], spread_columns(found)
    ok = row["status"] == "ok"
    return {**labels(solution, strategy, case), "source": source, "key": row["key"], "status": row["status"],
            "error": value(row, "error"), "stderr_tail": value(row, "stderr_tail"),
            **{name: recorded(row, name) if ok else None for name in BATCH_FIELDS},
            **({"ns_per_packet": found["spread"].median} if found is not None and ok else {}),
            "cpu_ns_per_packet": (found.get("cpu_ns_per_packet") if found is not None else
                                  batch_costs(row)["cpu_ns_per_packet"]) if ok else None,
            **spread, "machine": machine_name(row)}


def with_cpu(runs: pd.DataFrame, figures: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """figures (analysis.blocks.cell_figures of a block's runs) with each cell's median process CPU time per
    packet over the same boot's repetitions (cpu_ns_per_packet; None where no run recorded it)."""
    if runs.empty:
        return figures
    cpu = [batch_costs(row)["cpu_ns_per_packet"] if row.get("status") == "ok" else None
           for row in runs.to_dict("records")]
    medians = cell_figures(runs.assign(cpu_ns_per_packet=cpu), "cpu_ns_per_packet")
    return {key: {**found, "cpu_ns_per_packet": _median(medians.get(key))} for key, found in figures.items()}


def _median(found: dict[str, Any] | None) -> float | None:
    median = found["spread"].median if found else math.nan
    return None if math.isnan(median) else float(median)
