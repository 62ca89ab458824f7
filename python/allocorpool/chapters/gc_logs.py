"""Chapter 03, GC logs: the GC table, how pauses spread, and the log against the engine's records."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.data import gclog


def cross_check_table(gc_runs: Iterable[tuple[dict[str, Any], Any]]) -> pd.DataFrame:
    """Per run with a GC log: its pauses paired with the engine's pause records (gclog.cross_check)."""
    checks = []
    for row, result in gc_runs:
        if result.gc_events is None:
            continue
        check = gclog.cross_check(result.gc_events, result.run.header, result.run.gc)
        checks.append({"solution": row["label"], "strategy": row["strategy_label"], "case": row["case"],
                       "clock": check.problem or gclog.ALIGNED,
                       "pause records": len(check.pairs) + len(check.unmatched_records),
                       "paired with the log": len(check.pairs),
                       "log pauses without a record": len(check.unmatched_log),
                       "nested in another pause": len(check.nested_log),
                       "records' total, ms": check.record_total_ms, "log's total, ms": check.log_total_ms,
                       "agree": check.ok})
    frame = pd.DataFrame(checks)
    return frame.set_index(["solution", "strategy", "case"]) if len(frame) else frame


def show_cross_check(gc_runs: Iterable[tuple[dict[str, Any], Any]]) -> None:
    """Each run's GC log pauses paired with the engine's pause records."""
    table = cross_check_table(gc_runs)
    if len(table):
        show.show_table(table, caption="GC log against the engine's GC records")
