"""The rows the experiments build from a store's index rows: what a row measured, and a probe's verdict
(analysis.search.probe_verdict)."""

from __future__ import annotations

from typing import Any

from allocorpool.analysis.search import MISSING, Probe, probe_verdict  # noqa: F401 (the experiments' import)
from allocorpool.data.records import CellResult, Run
from allocorpool.data.tables import LATENCY_FIELDS
from allocorpool.lists import POOL_CHOICE_LABELS, STRATEGY_LABELS, Solution
from allocorpool.run.runner import Cell


def labels(solution: Solution, strategy: str, case: str) -> dict[str, Any]:
    """The data.tables.SOLUTION_COLUMNS of a row."""
    return {"solution": solution.name, "label": solution.label, "reference_name": solution.reference_name,
            "engine": solution.engine, "baseline": solution.baseline, "strategy": strategy,
            "strategy_label": STRATEGY_LABELS.get(strategy) or POOL_CHOICE_LABELS[strategy], "case": case}


def latency(probe: Probe) -> dict[str, int | None]:
    """A probe's metered latency fields."""
    return {name: getattr(probe, name) for name in LATENCY_FIELDS}


def not_measured(cell: Cell, row: dict[str, Any]) -> CellResult:
    """A cell a replay does not find in the store, as a result that says so (status MISSING)."""
    return CellResult(cell, MISSING, None, str(row["error"]), 0.0, Run(header=None, tables={}, summary=None))
