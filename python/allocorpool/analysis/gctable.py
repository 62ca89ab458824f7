"""The article's GC table for any set of runs, with the columns a concurrent collector needs.

One row per run, over its measured window on the run's own clock (measured_window). From
the run's GC log, put on the run's clock exactly (gclog.align: the log's `timenanos` against
the header's clock_origin_nanotime); an event belongs to the window when it starts in it.

The article's columns, as it defined them:
- max_pause_ms, avg_pause_ms: the longest and the average stop-the-world pause the log
  reports (`Pause ...` lines; CMS's Full GC logged inside its Young pause counts once,
  gclog.outer_pauses).
- gcs_per_s ("GC count / sec", "the average number of GC invocations per second"):
  collections per second, a collection being one GC id (`GC(n)`) with a pause or a
  concurrent phase in the log. A ZGC or Shenandoah collection makes three or four pauses,
  G1's concurrent cycle makes Remark and Cleanup under its own id: each is one invocation.
- gc_fraction_pct ("the percentage of execution time spent in GC"): the pauses' total over
  the window.
- live_objects_mil: the live objects after a full collection at the end of the run (the
  summary's live_objects; the article read them from JVisualVM).
- gc_ns_per_live_object: the average pause over the live objects.

Ours beside them:
- pauses_per_s: pauses per second (ZGC's collections each make three, so this is not
  gcs_per_s).
- stops, stops_per_s, max_stop_ms: stops of the world (gclog.stops): the pauses of one
  safepoint are one stop, timed by the safepoint's total (reaching it included), as the
  application sees it; Parallel's young collection and the full one it turned into are
  one stop.
- stalls, stall_total_ms, max_stall_ms: ZGC's allocation and relocation stalls of
  threads outside the collector (gclog.stalls): one thread waited, the others ran; never
  counted as pauses.

A run whose log cannot be aligned (an engine older than clock_origin_nanotime, or a log
without `timenanos`) gets no log figure: `clock` says why. A Java run without a GC log gets
its pause figures from its `gc` records of kind `pause` (source `records`; collections, stops
and stalls need the log); a C++ run has none.
"""

from __future__ import annotations

import math

import pandas as pd

from allocorpool.data import gclog
from allocorpool.data.records import Run

LABELS = ["engine", "jdk_version", "collector", "heap_max_bytes", "case", "strategy", "mode", "interval_ns"]
FIGURES = ["max_pause_ms", "avg_pause_ms", "gcs_per_s", "gc_fraction_pct", "live_objects_mil",
           "gc_ns_per_live_object", "pauses_per_s", "stops", "stops_per_s", "max_stop_ms", "stalls",
           "stall_total_ms", "max_stall_ms"]
COLUMNS = LABELS + ["source", "clock", "window_s", "collections", "pauses"] + FIGURES


def measured_window(run: Run) -> tuple[float, float]:
    """The run's measured span on its own clock: the window's opening (the summary's
    window_start_s, else the end of warm-up) to the run's end (window_start_s + measured_s,
    else the summary's t_s)."""
    header = run.header or {}
    summary = run.summary or {}
    if summary.get("window_start_s") is not None and summary.get("measured_s") is not None:
        start = float(summary["window_start_s"])
        return start, start + float(summary["measured_s"])
    start = float(header.get("warmup_s") or 0.0)
    if summary.get("t_s") is not None:
        end = float(summary["t_s"])
    elif len(run.periodic):
        end = float(run.periodic["t_s"].max())
    else:
        end = float(header.get("duration_s") or start)
    return start, end


def _in_window(events: pd.DataFrame, start: float, end: float) -> pd.DataFrame:
    return events[(events["t_s"] >= start) & (events["t_s"] <= end)]


def _collections(events: pd.DataFrame, start: float, end: float) -> int:
    """GC ids whose first pause or concurrent phase starts in the window."""
    work = events[events["kind"].isin(["pause", "concurrent"]) & events["gc_id"].notna()]
    first = work.groupby("gc_id")["t_s"].min()
    return int(((first >= start) & (first <= end)).sum())


def gc_stats(run: Run, gc_events: pd.DataFrame | None = None) -> dict[str, object]:
    """One row of the GC table (COLUMNS)."""
    header = run.header or {}
    row: dict[str, object] = {name: header.get(name) for name in LABELS}
    row.update({name: math.nan for name in FIGURES + ["collections", "pauses"]})
    start, end = measured_window(run)
    window = max(end - start, 0.0)
    live = (run.summary or {}).get("live_objects")
    row.update(source=None, clock=None, window_s=window, live_objects_mil=live / 1e6 if live else math.nan)
    per_s = (lambda count: count / window) if window > 0 else (lambda count: math.nan)
    if gc_events is not None:
        alignment = gclog.align(gc_events, run.header)
        row.update(source="log", clock=alignment.problem or gclog.ALIGNED)
        if alignment.events is None:
            return row
        events = alignment.events
        durations = _in_window(gclog.outer_pauses(events), start, end)["duration_ms"].astype(float)
        stops = _in_window(gclog.stops(events), start, end)["duration_ms"].astype(float)
        stalls = _in_window(gclog.stalls(events), start, end)["duration_ms"].astype(float)
        collections = _collections(events, start, end)
        row.update(collections=collections, gcs_per_s=per_s(collections),
                   stops=len(stops), stops_per_s=per_s(len(stops)),
                   max_stop_ms=float(stops.max()) if len(stops) else math.nan,
                   stalls=len(stalls), stall_total_ms=float(stalls.sum()),
                   max_stall_ms=float(stalls.max()) if len(stalls) else math.nan)
    elif header.get("engine") == "java":
        gc = run.gc
        durations = gc[(gc["kind"] == "pause") & (gc["t_s"] >= start) & (gc["t_s"] <= end)]["duration_ms"].astype(float)
        row.update(source="records")
    else:
        return row
    count = len(durations)
    average = float(durations.mean()) if count else math.nan
    row.update(pauses=count, pauses_per_s=per_s(count),
               max_pause_ms=float(durations.max()) if count else math.nan, avg_pause_ms=average,
               gc_fraction_pct=float(durations.sum()) / 1000 / window * 100 if window > 0 else math.nan,
               gc_ns_per_live_object=average * 1e6 / live if live and count else math.nan)
    return row
