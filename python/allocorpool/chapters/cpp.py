"""Chapter 08, C++ and flat C++: the designs and allocators, and what each allocates per packet."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters import display as show


def show_allocations(batch: pd.DataFrame) -> None:
    """Allocations per packet as the engine counted them, per solution, strategy and case."""
    counts = batch[batch["status"] == "ok"].pivot_table(index=["label", "strategy_label"], columns="case",
                                                         values="allocs_per_packet", sort=False)
    counts.index.names = ["solution", "strategy"]
    show.show_table(counts, caption="Allocations per packet", precision=2)
