"""The article's own figures (data/reference/article_reference.csv), ready to sit beside ours.

They come from another machine and another year: every table and figure shows them in a
column or series labelled REFERENCE, never in place of this machine's results.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from allocorpool import paths

REFERENCE = "article (2019)"
OURS = "this machine"
GC_METRICS = {  # the article's GC table metric -> gctable's column
    "max_gc_pause_ms": "max_pause_ms",
    "avg_gc_pause_ms": "avg_pause_ms",
    "gc_count_per_s": "gcs_per_s",
    "gc_fraction_pct": "gc_fraction_pct",
    "live_objects_million": "live_objects_mil",
    "gc_ns_per_object": "gc_ns_per_live_object",
}


def path() -> Path:
    return paths.data_dir() / "reference" / "article_reference.csv"


def load(source: Path | None = None) -> pd.DataFrame:
    return pd.read_csv(source or path())


def format_pct(value: float) -> str:
    """A loss percentage as the article writes it: 75, 4.4, 0.8, 0.0025."""
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def batch(reference: pd.DataFrame) -> pd.Series:
    """The article's batch ns/packet by (solution, strategy label, case)."""
    rows = reference[(reference["test"] == "batch") & (reference["metric"] == "ns_per_packet")]
    return rows.set_index(["solution", "strategy", "case"])["value"]


def realtime(reference: pd.DataFrame, with_extras: bool = True) -> pd.DataFrame:
    """The article's real-time result by (solution, strategy label, case): `interval_ns` (NaN where no
    interval is loss-free) and `text` as the article printed it; with_extras adds the 10 GB loss in
    parentheses and the "almost" interval, as its chapters do (its summary leaves them out)."""
    rows = reference[reference["test"] == "realtime"]
    out = []
    for (solution, strategy, case), group in rows.groupby(["solution", "strategy", "case"], sort=False):
        metric = dict(zip(group["metric"] + "@" + group["heap_gb"].fillna(0).astype(int).astype(str), group["value"]))
        interval = metric.get("min_interval_ns@0", math.nan)
        if not math.isnan(interval):
            text = f"{interval:,.0f}"
        else:
            lost = next(v for k, v in metric.items() if k.startswith("lost_pct_at_1000ns@") and not k.endswith("@10"))
            text = f"lost: {format_pct(lost)}%"
            if with_extras:
                if "lost_pct_at_1000ns@10" in metric:
                    text += f" ({format_pct(metric['lost_pct_at_1000ns@10'])}%)"
                if "almost_interval_ns@0" in metric:
                    text = f"{metric['almost_interval_ns@0']:,.0f}; {text}"
        out.append({"solution": solution, "strategy": strategy, "case": case, "interval_ns": interval, "text": text})
    return pd.DataFrame(out).set_index(["solution", "strategy", "case"])


def gc_table(reference: pd.DataFrame) -> pd.DataFrame:
    """The article's GC table, one row per (solution, strategy label, case), with gctable's column names."""
    rows = reference[reference["test"] == "batch-gclog"]
    table = rows.pivot_table(index=["solution", "strategy", "case"], columns="metric", values="value")
    return table.rename(columns=GC_METRICS)[list(GC_METRICS.values())]
