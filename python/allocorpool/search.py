"""The real-time search: the smallest source interval with no loss after warm-up.

Bisection (geometric, as intervals span 20 ns to 10 us) between a lossy and a loss-free
interval, each probe one real-time run; the interval found is probed again `confirmations`
times and the search goes on above it if any of them loses. Every probe is recorded. The
article also gives the loss at 1000 ns where no interval is loss-free: the search measures
it too (reusing a probe already made there). `probe` is any callable interval_ns -> Probe,
so the search runs without an engine in tests; `cell_probe` makes one from a runner.Cell.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from .runner import Cell, CellResult, CommandBuilder, engine_command, run_cell

REFERENCE_NS = 1000


@dataclass(frozen=True)
class Probe:
    """One real-time run at one interval."""

    interval_ns: int
    ok: bool  # ran to the end and lost nothing after warm-up
    lost: int | None = None  # ticks lost after warm-up
    lost_pct: float | None = None
    status: str = "ok"  # the run's status (runner.CellResult.status)


ProbeFn = Callable[[int], Probe]


@dataclass
class SearchResult:
    good_interval_ns: int | None  # None: packets are lost even at the largest interval
    reference_ns: int
    loss_pct_at_reference: float | None
    probes: pd.DataFrame  # every probe in order, with its purpose

    @property
    def lost_everywhere(self) -> bool:
        return self.good_interval_ns is None


def find_interval(probe: ProbeFn, low_ns: int = 20, high_ns: int = 10_000, tolerance_ns: int = 10,
                  confirmations: int = 1, reference_ns: int = REFERENCE_NS) -> SearchResult:
    """Smallest loss-free interval in [low_ns, high_ns], to within tolerance_ns."""
    if not 0 < low_ns < high_ns or tolerance_ns < 1:
        raise ValueError("need 0 < low_ns < high_ns and tolerance_ns >= 1")
    log: list[dict[str, Any]] = []

    def run(interval: int, purpose: str) -> Probe:
        result = probe(interval)
        log.append({**asdict(result), "purpose": purpose})
        return result

    good: int | None = None
    if run(high_ns, "bound").ok:
        lo, hi = low_ns, high_ns
        lossy_low = not run(low_ns, "bound").ok
        if not lossy_low:
            hi = low_ns
        while good is None:
            while lossy_low and hi - lo > tolerance_ns:
                mid = min(max(round(math.sqrt(lo * hi)), lo + 1), hi - 1)
                if run(mid, "bisect").ok:
                    hi = mid
                else:
                    lo = mid
            if all(run(hi, "confirm").ok for _ in range(confirmations)):
                good = hi
            elif hi == high_ns:
                break  # the largest interval lost on a second look
            else:
                lossy_low = True
                lo = hi
                above = [int(p["interval_ns"]) for p in log if p["ok"] and int(p["interval_ns"]) > hi]
                hi = min(above) if above else high_ns
    at_reference = [p for p in log if p["interval_ns"] == reference_ns]
    reference = at_reference[0] if at_reference else asdict(run(reference_ns, "reference"))
    return SearchResult(good, reference_ns, reference["lost_pct"],
                        pd.DataFrame(log, columns=["interval_ns", "ok", "lost", "lost_pct", "status", "purpose"]))


def probe_from_result(result: CellResult) -> Probe:
    """A probe's verdict on a finished real-time run."""
    summary = result.run.summary or {}
    lost = summary.get("lost_measured")
    assert result.cell.interval_ns is not None
    return Probe(interval_ns=result.cell.interval_ns, ok=result.status == "ok" and lost == 0,
                 lost=lost, lost_pct=summary.get("lost_pct_measured"), status=result.status)


def cell_probe(cell: Cell, workdir: Path, duration_s: float | None = None,
               keep: Callable[[CellResult], None] | None = None, progress: bool = True,
               build: CommandBuilder = engine_command) -> ProbeFn:
    """Probes that run `cell` in real-time mode at the asked interval (and hand each result to keep)."""
    def probe(interval_ns: int) -> Probe:
        probe_cell = replace(cell, mode="realtime", interval_ns=interval_ns,
                             duration_s=duration_s if duration_s is not None else cell.duration_s)
        result = run_cell(probe_cell, workdir, progress=progress, build=build)
        if keep is not None:
            keep(result)
        return probe_from_result(result)
    return probe
