"""The JDKs chapter's experiments (chapter 15): the decisive case on each JDK with every collector it
ships, its strategies' batch runs as one block per JDK, collector and case, and a real-time probe per cell."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pandas as pd

from allocorpool.analysis.blocks import cell_figures, spread_columns
from allocorpool.data.tables import JDK_COLUMNS, batch_costs, machine_names, value
from allocorpool.lists import Solution
from allocorpool.profiles import jdk_solutions
from allocorpool.run.blocks import Block
from allocorpool.run.cells import batch_block, batch_cell, jdk_block, probe_cell
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import Probe, labels, latency, probe_verdict


def across_jdks(ex: Executor, selection: Collection[str] | None = None) -> pd.DataFrame:
    """For each JDK of the profile's plan and each collector it has (profiles.jdk_solutions; those a
    selection holds, under one, and in a replay those the store holds too), each case: the strategies'
    batch runs as a block (run.cells.jdk_block: the median of its newest complete boot with its
    interval), and each strategy's real-time probe at the
    plan's interval, in the article's heap at the profile's scale. On a cluster, or under a profile without
    blocks, each batch cell runs once."""
    ex.progress.begin("collectors across the JDKs")
    plan = ex.profile.jdks
    cases = [case for case in (plan.cases or ex.profile.cases) if case in ex.profile.cases]
    chosen = [s for s in jdk_solutions(plan)
              if selection is None or s.name in selection or (ex.replay and _held(ex, s, cases))]
    blocks, figures = jdk_blocks(ex, chosen, cases)
    jobs = [(solution, strategy, case) for solution in chosen for strategy in plan.strategies for case in cases]

    def measure(job: tuple[Solution, str, str]) -> dict[str, Any]:
        solution, strategy, case = job
        batch, spread = _jdk_batch(ex, solution, strategy, case, blocks, figures)
        probe, judged = jdk_probe(ex, solution, strategy, case)
        failed = [row for row in (batch, probe) if row["status"] != "ok"]
        return {**labels(solution, strategy, case), "jdk": solution.jdk, "collector": solution.collector,
                "batch_status": batch["status"], **batch_costs(batch), **spread,
                "probe_status": probe["status"], "interval_ns": plan.interval_ns,
                "keeps_up": judged.ok if probe["status"] == "ok" else None, "loss_pct": judged.lost_pct,
                **latency(judged),
                "error": "; ".join(f"{row['key']}: {value(row, 'error') or row['status']}" for row in failed) or None,
                "stderr_tail": next((value(row, "stderr_tail") for row in failed), None),
                "batch_key": batch["key"], "probe_key": probe["key"], "machine": machine_names([batch, probe])}
    rows = ex.each(measure, jobs, "cells across the JDKs")
    ex.progress.end(f"{len(rows)} (JDK, collector, strategy, case) cells")
    return pd.DataFrame(rows, columns=JDK_COLUMNS)


def _held(ex: Executor, solution: Solution, cases: list[str]) -> bool:
    """Whether the store holds any measurement of a JDK and collector of the plan: a replay shows those
    outside its selection too, since no selection of the article's solutions holds the JDKs this
    chapter is about (the article ran none of them), while a sweep measures only those it selects."""
    cells = [probe_cell(solution, strategy, case, ex.profile, ex.profile.jdks.interval_ns)
             for strategy in ex.profile.jdks.strategies for case in cases]
    cells += [cell for case in cases for cell in jdk_block(solution, case, ex.profile).cells]
    return any(ex.stored(cell) is not None for cell in cells)


def jdk_probe(ex: Executor, solution: Solution, strategy: str, case: str) -> tuple[dict[str, Any], Probe]:
    """A strategy's real-time probe at the plan's interval: its row (run if missing, read in a replay) and
    its verdict."""
    interval_ns = ex.profile.jdks.interval_ns
    probed = probe_cell(solution, strategy, case, ex.profile, interval_ns)
    row = ex.row(probed)
    return row, probe_verdict(row, interval_ns, probed.duration_s)


def jdk_blocks(ex: Executor, chosen: list[Solution], cases: list[str]
               ) -> tuple[dict[tuple[str, str], Block], dict[str, dict[str, Any]]]:
    """The chosen solutions' blocks of the chapter (run.cells.jdk_block) by (solution name, case), measured,
    with their cells' figures (analysis.blocks.cell_figures); none on a cluster or under a profile without
    blocks, whose batch cells run once."""
    if ex.profile.blocks.repetitions == 0 or ex.cluster() is not None:
        return {}, {}
    blocks = {(solution.name, case): jdk_block(solution, case, ex.profile)
              for solution in chosen for case in cases}
    figures: dict[str, dict[str, Any]] = {}
    for runs in ex.measure(list(blocks.values())):
        ex.progress.saw(runs.to_dict("records"))
        figures.update(cell_figures(runs))
    for solution in chosen:
        for case in cases:
            figures.update(_from_batch_block(ex, solution, case, blocks[(solution.name, case)], figures))
    return blocks, figures


def _from_batch_block(ex: Executor, solution: Solution, case: str, block: Block,
                      figures: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Where no boot completed the chapter's block but the solution's batch block holds the same cells (an
    article's solution, in a store measured before the chapter had blocks), that block's figures of them."""
    wanted = {cell.key for cell in block.cells} - set(figures)
    batch = batch_block(solution, case, ex.profile)
    if not wanted or not wanted <= {cell.key for cell in batch.cells}:
        return {}
    runs = ex.read(batch)
    return {key: found for key, found in cell_figures(runs).items() if key in wanted} if len(runs) else {}


def _jdk_batch(ex: Executor, solution: Solution, strategy: str, case: str, blocks: dict[tuple[str, str], Block],
               figures: dict[str, dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A cell's batch row and spread: its block's run nearest the median, with the median itself, where a
    boot completed the block; else its single run of the profile's length (run if missing, read in a
    replay), which compares with nothing."""
    block = blocks.get((solution.name, case))
    found = None
    if block is not None:
        cell = next(c for c in block.cells if c.strategy == solution.engine_strategy(strategy))
        found = figures.get(cell.key)
    if found is None:  # no block, or none completed: the single run (a replay reads it, with one run)
        row = ex.row(batch_cell(solution, strategy, case, ex.profile))
        return row, {"runs": 1 if row["status"] == "ok" else 0, "boots": 0}
    row = dict(found["standing"])
    if row.get("status") == "ok":
        row["ns_per_packet"] = found["spread"].median
    return row, spread_columns(found)
