"""The real-time search: the smallest source interval with no loss after warm-up.

Bisection (geometric, as intervals span 20 ns to 10 us) between a lossy and a loss-free
interval, each probe one real-time run; the interval found is probed again `confirmations`
times and the search goes on above it if any of them loses. Every probe is recorded. The
article also gives the loss at 1000 ns where no interval is loss-free: the search measures
it too (reusing a probe already made there), or only where no interval is loss-free when
asked. A shorter search may stop at a relative tolerance, and may start from a low bound
already known to lose (an interval below the batch time per packet cannot keep up), which
saves its probe, and from a first guess (twice that time, say). `probe` is any callable interval_ns -> Probe, so the search runs without an
engine in tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

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
    loss_pct_at_reference: float | None  # None: not measured, or the probe there failed
    probes: pd.DataFrame  # every probe in order, with its purpose

    @property
    def lost_everywhere(self) -> bool:
        return self.good_interval_ns is None


def find_interval(probe: ProbeFn, low_ns: int = 20, high_ns: int = 10_000, tolerance_ns: int = 10,
                  confirmations: int = 1, reference_ns: int = REFERENCE_NS, *, relative_tolerance: float = 0.0,
                  low_known_lossy: bool = False, reference_only_if_lost: bool = False,
                  start_ns: int | None = None) -> SearchResult:
    """Smallest loss-free interval in [low_ns, high_ns], to within tolerance_ns or
    relative_tolerance x the lossy side, whichever is wider. start_ns, a guess inside the
    range, is probed first: loss-free, it bounds the search from above and high_ns is not
    probed; lossy, it bounds it from below."""
    if not 0 < low_ns < high_ns or tolerance_ns < 1 or relative_tolerance < 0 or confirmations < 0:
        raise ValueError("need 0 < low_ns < high_ns, tolerance_ns >= 1, relative_tolerance >= 0, confirmations >= 0")
    log: list[dict[str, Any]] = []

    def run(interval: int, purpose: str) -> Probe:
        result = probe(interval)
        log.append({**asdict(result), "purpose": purpose})
        return result

    good: int | None = None
    lo, hi = low_ns, high_ns
    lossy_low = low_known_lossy
    if start_ns is not None and low_ns < start_ns < high_ns:
        if run(start_ns, "start").ok:
            hi = start_ns
        else:
            lo, lossy_low = start_ns, True
    if hi < high_ns or run(high_ns, "bound").ok:
        if not lossy_low:
            lossy_low = not run(low_ns, "bound").ok
            if not lossy_low:
                hi = low_ns
        while good is None:
            while lossy_low and hi - lo > max(tolerance_ns, relative_tolerance * lo):
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
    if at_reference:
        loss_at_reference = at_reference[0]["lost_pct"]
    elif good is None or not reference_only_if_lost:
        loss_at_reference = run(reference_ns, "reference").lost_pct
    else:
        loss_at_reference = None
    return SearchResult(good, reference_ns, loss_at_reference,
                        pd.DataFrame(log, columns=["interval_ns", "ok", "lost", "lost_pct", "status", "purpose"]))


def measured_loss(summary: Mapping[str, Any]) -> tuple[int | None, float | None]:
    """Ticks lost after warm-up and their share of the ticks, as the engine counted them
    (`lost_measured` includes the drops after the last tick the consumer received: a
    consumer far behind the clock never reaches the gap they leave)."""
    lost = summary.get("lost_measured")
    if lost is None:
        return None, None
    seen = int(lost) + int(summary.get("measured_packets") or 0)
    return int(lost), (int(lost) * 100 / seen if seen else None)
