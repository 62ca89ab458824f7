"""The rows the experiments build from a store's index rows: what a row measured, and a probe's verdict
(analysis.search.probe_verdict)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from allocorpool.analysis.blocks import complete_boots, keeps_up
from allocorpool.analysis.search import MISSING, Probe, probe_verdict  # noqa: F401 (the experiments' import)
from allocorpool.data.records import CellResult, Run
from allocorpool.data.tables import LATENCY_FIELDS
from allocorpool.lists import POOL_CHOICE_LABELS, STRATEGY_LABELS, Solution
from allocorpool.profiles import Profile
from allocorpool.run.blocks import Block
from allocorpool.run.runner import Cell

if TYPE_CHECKING:
    from allocorpool.run.executor import Executor


def labels(solution: Solution, strategy: str, case: str) -> dict[str, Any]:
    """The data.tables.SOLUTION_COLUMNS of a row."""
    return {"solution": solution.name, "label": solution.label, "reference_name": solution.reference_name,
            "engine": solution.engine, "baseline": solution.baseline, "strategy": strategy,
            "strategy_label": STRATEGY_LABELS.get(strategy) or POOL_CHOICE_LABELS[strategy], "case": case}


def latency(probe: Probe) -> dict[str, int | None]:
    """A probe's metered latency fields."""
    return {name: getattr(probe, name) for name in LATENCY_FIELDS}


def probe_block_figures(mine: list[dict[str, Any]], runs: pd.DataFrame, interval_ns: int,
                        duration_s: float) -> tuple[dict[str, Any], list[Probe]]:
    """A real-time block cell's figures (data.tables.PROBE_BLOCK_COLUMNS) from its probes' index rows (every
    boot's): how many lost or failed, their median and largest loss, every finished probe's loss, and whether it
    keeps up (analysis.blocks.keeps_up: one lossy probe is enough to say it does not), over all boots and in
    each boot apart. runs: the block's runs."""
    probes = [probe_verdict(r, interval_ns, duration_s) for r in mine]

    def judged(part: list[Probe]) -> str:
        return keeps_up([{"ok": p.ok if p.status == "ok" else None} for p in part])

    def finished(part: list[Probe]) -> list[float]:
        return [p.lost_pct or 0.0 for p in part if p.status == "ok"]

    complete = complete_boots(runs)  # oldest first; a boot that did not finish the block is not one of them
    by_boot: dict[str, list[Probe]] = {boot: [] for boot in complete}
    for record, probe in zip(mine, probes):
        boot = record.get("boot")
        boot = "" if boot is None or pd.isna(boot) else str(boot)
        if boot in by_boot or not complete:
            by_boot.setdefault(boot, []).append(probe)
    by_boot = {boot: part for boot, part in by_boot.items() if part}
    losses = [p.lost_pct for p in probes if p.lost_pct is not None]
    return {"probes": len(probes),
            "lossy": sum(1 for p in probes if p.status == "ok" and not p.ok),
            "failed": sum(1 for p in probes if p.status != "ok"),
            "loss_pct": float(pd.Series(losses).median()) if losses else None,
            "loss_max_pct": max(losses) if losses else None,
            "losses": finished(probes), "keeps_up": judged(probes),
            "boot_keeps_up": {boot: judged(part) for boot, part in by_boot.items()},
            "boot_losses": {boot: finished(part) for boot, part in by_boot.items()},
            "boots": len(complete),
            "keys": [r["key"] for r in mine]}, probes


def not_measured(cell: Cell, row: dict[str, Any]) -> CellResult:
    """A cell a replay does not find in the store, as a result that says so (status MISSING)."""
    return CellResult(cell, MISSING, None, str(row["error"]), 0.0, Run(header=None, tables={}, summary=None))


def runs_of(ex: Executor, make: Callable[[Solution, str, Profile, tuple[int, ...]], Block], solution: Solution, case: str,
          counts: tuple[int, ...]) -> pd.DataFrame:
    """The runs of the solution and case's block (made by `make`) at these counts. A replay reads, besides,
    the blocks of every smaller machine, which ran the first counts only (a block's identity is its cells,
    so a 2-CPU machine's block of 1 and 2 threads is another block than a 16-CPU machine's of 1 to 8): each
    run once."""
    if not ex.replay:
        return ex.measure([make(solution, case, ex.profile, counts)])[0]
    parts = [ex.read(make(solution, case, ex.profile, counts[:n])) for n in range(1, len(counts) + 1)]
    parts = [part for part in parts if len(part)]
    return pd.concat(parts).drop_duplicates(["boot", "cell", "repetition"]) if parts else pd.DataFrame()
