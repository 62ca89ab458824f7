"""Chapter 02, the batch test: ns per packet of every strategy and case."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters import tables


def show_fastest(batch: pd.DataFrame) -> None:
    """Which strategy was fastest, per solution and case (the dummy strategy left out)."""
    fastest = tables.best(batch[batch["strategy"] != "dummy"], "ns_per_packet", ["label", "case"])
    show.note("\n".join(f"- {label}: " + ", ".join(f"case {r.case} **{r.strategy_label}** ({r.ns_per_packet:.0f} ns)"
                                                   for r in rows.itertuples())
                        for label, rows in fastest.groupby("label", sort=False)))
