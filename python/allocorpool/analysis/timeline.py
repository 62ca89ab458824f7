"""Lines up GC stops with the seconds of a real-time run that lost packets.

For each periodic record with lost > 0, the stops that overlap that period or the one before
it, each with its estimated cost in ticks: duration_ms / interval_ns * 1e6 (the ticks that
arrive while the consumer is stopped) and, given the input queue's capacity, the excess
(duration_ms - capacity_ms) / interval_ns * 1e6 that cannot have fit in the queue.

The stops come from the run's GC log put on the run's clock exactly (gclog.align): each stop
of the world once, timed by its safepoint's total (gclog.stops), and the stalls of threads
outside the collector (gclog.stalls). A log that cannot be aligned is not guessed into place:
the engine's pause records are used instead (source `records`), and `clock` says why.
"""

from __future__ import annotations

import math

import pandas as pd

from allocorpool.data import gclog
from allocorpool.data.records import Run

PAUSE_COLUMNS = ["start_s", "duration_ms", "name", "source"]
COLUMNS = ["t_s", "period_s", "lost", "pause_start_s", "pause_ms", "pause_name", "pause_source",
           "est_ticks", "est_excess_ticks"]


def pauses_from_records(gc: pd.DataFrame) -> pd.DataFrame:
    """The engine's pause records on the run's clock."""
    rec = gc[gc["kind"] == "pause"] if len(gc) else gc
    return pd.DataFrame({"start_s": rec["t_s"].astype(float), "duration_ms": rec["duration_ms"].astype(float),
                         "name": rec["bean"].astype(str) + " (" + rec["cause"].astype(str) + ")",
                         "source": "records"}, columns=PAUSE_COLUMNS)


CONSUMER_THREAD = "main"  # the Java engine processes packets on its main thread


def pauses_from_log(aligned: pd.DataFrame) -> pd.DataFrame:
    """An aligned GC log's stops, and the consumer's stalls (gclog.align's events), on the run's clock:
    a stall of another thread (a compiler or service thread) stops no packet."""
    stops = gclog.stops(aligned)
    stalls = gclog.stalls(aligned)
    stalls = stalls[stalls["thread"] == CONSUMER_THREAD]
    both = pd.concat([stops.assign(label="stop: " + stops["name"]),
                      stalls.assign(label="stall: " + stalls["name"] + " (" + stalls["thread"].astype(str) + ")")],
                     ignore_index=True)
    return pd.DataFrame({"start_s": both["t_s"].astype(float), "duration_ms": both["duration_ms"].astype(float),
                         "name": both["label"], "source": "log"}, columns=PAUSE_COLUMNS)


def run_pauses(run: Run, gc_events: pd.DataFrame | None) -> tuple[pd.DataFrame, str | None]:
    """A run's stops on its clock: from its GC log when it can be aligned, else from its
    records; with why the log was not used (None when it was, or when there is none)."""
    if gc_events is None:
        return pauses_from_records(run.gc), None
    alignment = gclog.align(gc_events, run.header)
    if alignment.events is None:
        return pauses_from_records(run.gc), alignment.problem
    return pauses_from_log(alignment.events), None


def loss_timeline(periodic: pd.DataFrame, pauses: pd.DataFrame, interval_ns: int,
                  capacity_ms: float | None = None) -> pd.DataFrame:
    """One row per (lossy period, overlapping pause); a lossy period no pause explains has one
    row with empty pause fields."""
    rows: list[dict[str, object]] = []
    ordered = periodic.sort_values("t_s").reset_index(drop=True)
    starts = pauses["start_s"].to_numpy(dtype=float)
    ends = starts + pauses["duration_ms"].to_numpy(dtype=float) / 1000
    for i, period in ordered.iterrows():
        if not period["lost"] > 0:
            continue
        end = float(period["t_s"])
        begin = end - float(period["period_s"])
        if i > 0:
            begin -= float(ordered.at[i - 1, "period_s"])
        base = {"t_s": end, "period_s": float(period["period_s"]), "lost": int(period["lost"])}
        overlapping = pauses[(starts < end) & (ends > begin)]
        if overlapping.empty:
            rows.append({**base, "pause_start_s": math.nan, "pause_ms": math.nan, "pause_name": None,
                         "pause_source": None, "est_ticks": math.nan, "est_excess_ticks": math.nan})
        for _, pause in overlapping.iterrows():
            ms = float(pause["duration_ms"])
            excess = math.nan if capacity_ms is None else max(0.0, ms - capacity_ms) / interval_ns * 1e6
            rows.append({**base, "pause_start_s": float(pause["start_s"]), "pause_ms": ms,
                         "pause_name": pause["name"], "pause_source": pause["source"],
                         "est_ticks": ms / interval_ns * 1e6, "est_excess_ticks": excess})
    return pd.DataFrame(rows, columns=COLUMNS)


def run_timeline(run: Run, gc_events: pd.DataFrame | None = None) -> pd.DataFrame:
    """loss_timeline for a real-time run: its interval and queue capacity from the header, its
    stops from run_pauses; `attrs["clock"]` says why the log was not used, if it was not."""
    header = run.header or {}
    if header.get("interval_ns") is None:
        raise ValueError("not a real-time run: the header has no interval_ns")
    pauses, problem = run_pauses(run, gc_events)
    capacity = (header.get("params") or {}).get("max_capturing_delay_ms")
    table = loss_timeline(run.periodic, pauses, int(header["interval_ns"]), capacity)
    table.attrs["clock"] = problem
    return table
