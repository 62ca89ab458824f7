"""Chapter 09, the summary: both summary tables and the best figure of each column."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters import tables


def show_best(batch: pd.DataFrame, searches: pd.DataFrame, cases: tuple[str, ...]) -> None:
    """The best figure of each column of both tests, and the best Java one."""
    lines = []
    for test, frame, column in (("batch", batch[batch["strategy"] != "dummy"], "ns_per_packet"),
                                ("real-time", searches[searches["outcome"] == "found"], "interval_ns")):
        ranked = frame[~frame["baseline"]]
        for case in cases:
            in_case = ranked[ranked["case"] == case]
            overall = tables.best(in_case, column, ["case"])
            java = tables.best(in_case[in_case["engine"] == "java"], column, ["case"])
            parts = [f"{r.label} {r.strategy_label} ({getattr(r, column):.0f} ns)" for r in overall.itertuples()]
            parts += [f"best Java: {r.label} {r.strategy_label} ({getattr(r, column):.0f} ns)"
                      for r in java.itertuples()]
            lines.append(f"- {test}, case {case}: " + ("; ".join(parts) if parts else "no solution"))
    unsolved = searches[(searches["outcome"] != "found") & ~searches["baseline"]]
    lines.append(f"- real-time cells with no loss-free interval: {len(unsolved)} of {int((~searches['baseline']).sum())}")
    show.note("\n".join(lines))
