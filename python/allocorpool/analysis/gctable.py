"""The article's GC table for any set of runs: pauses, their rate and cost per live object.

Per run, over the measured window (after warm-up): max and average pause (ms), GCs per
second (pauses per second), fraction of time in GC pauses (%), live objects (millions, the
summary's live_objects) and GC time per live object (average pause / live objects, ns).
Pauses come from the run's parsed GC log when there is one (each stop once: gclog.outer_pauses;
lined up with the run's clock by
gclog.estimate_offset; a log that cannot be lined up is taken as starting with the run, which
counts up to the JVM's start-up time of warm-up pauses in), else from its `gc` records of
kind `pause`.
"""

from __future__ import annotations

import math

import pandas as pd

from allocorpool.data import gclog
from allocorpool.data.records import Run

LABELS = ["engine", "jdk_version", "collector", "heap_max_bytes", "case", "strategy", "mode", "interval_ns"]
COLUMNS = LABELS + ["source", "window_s", "pauses", "max_pause_ms", "avg_pause_ms", "gcs_per_s",
                    "gc_fraction_pct", "live_objects_mil", "gc_ns_per_live_object"]


def measured_window(run: Run) -> tuple[float, float]:
    """The run's measured span on its own clock: warm-up end to run end."""
    header = run.header or {}
    start = float(header.get("warmup_s") or 0.0)
    if run.summary is not None and run.summary.get("t_s") is not None:
        end = float(run.summary["t_s"])
    elif len(run.periodic):
        end = float(run.periodic["t_s"].max())
    else:
        end = float(header.get("duration_s") or start)
    return start, end


def pause_durations(run: Run, gc_events: pd.DataFrame | None) -> tuple[str | None, pd.Series]:
    """The durations (ms) of the pauses inside the measured window, and where they came from."""
    start, end = measured_window(run)
    if gc_events is not None:
        offset = gclog.estimate_offset(gc_events, run.gc) or 0.0
        log = gclog.outer_pauses(gc_events)
        t = log["start_s"] - offset
        return "log", log.loc[(t >= start) & (t <= end), "duration_ms"].astype(float)
    gc = run.gc
    if len(gc) == 0:
        return None, pd.Series(dtype=float)
    rec = gc[(gc["kind"] == "pause") & (gc["t_s"] >= start) & (gc["t_s"] <= end)]
    return "records", rec["duration_ms"].astype(float)


def gc_stats(run: Run, gc_events: pd.DataFrame | None = None) -> dict[str, object]:
    """One row of the GC table."""
    header = run.header or {}
    row: dict[str, object] = {name: header.get(name) for name in LABELS}
    source, durations = pause_durations(run, gc_events)
    start, end = measured_window(run)
    window = max(end - start, 0.0)
    live = (run.summary or {}).get("live_objects")
    count = len(durations)
    average = float(durations.mean()) if count else math.nan
    row.update(
        source=source, window_s=window, pauses=count,
        max_pause_ms=float(durations.max()) if count else math.nan,
        avg_pause_ms=average,
        gcs_per_s=count / window if window > 0 and source else math.nan,
        gc_fraction_pct=float(durations.sum()) / 1000 / window * 100 if window > 0 and source else math.nan,
        live_objects_mil=live / 1e6 if live else math.nan,
        gc_ns_per_live_object=average * 1e6 / live if live and count else math.nan,
    )
    return row
