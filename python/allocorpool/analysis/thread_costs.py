"""What a run of several threads cost beside its wall time: CPU time per packet, the process's and its own
threads' (the summary's measured_cpu_s and thread_cpu_s), each cell's median over its block's repetitions with
the same spread as its wall time (analysis.blocks.cell_figures), Netty's allocator metrics of the run that
stands for the cell (netty_metrics), and how much of its threads' time that run's collector held them
(collector_held).

Thread CPU time per packet is the CPU time of the run's own threads (the processing threads, a hand-off run's
producer too) per packet: it stays flat as threads are added where a strategy scales, as thread time per packet
does, and it leaves out what the threads spend waiting on a CPU they share. The process's CPU time adds the
collector's and the compiler's threads."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from allocorpool.analysis.blocks import cell_figures, spread_columns
from allocorpool.analysis.gctable import measured_window
from allocorpool.data import gclog
from allocorpool.data.records import CellResult
from allocorpool.data.tables import value

THREAD_CPU = "thread_cpu_ns_per_packet"
PROCESS_CPU = "cpu_ns_per_packet"
# A thread table row's CPU figures: the process's per packet (median), its own threads' (median, 95 % interval,
# the samples by boot that comparisons resample: cpu_boot_samples)
CPU_COLUMNS = [PROCESS_CPU, THREAD_CPU, "thread_cpu_low", "thread_cpu_high", "cpu_boot_samples"]
# The share of the run's own threads' time in its measured window the collector held them, in %; a cell held more
# than HELD_MUCH % of it says more of its collector and heap than of its strategy
HELD = "collector_held_pct"
HELD_MUCH = 25.0
# The engine's own threads, as java-lib names them (run.ThreadedRun's processing threads, run.HandoffRun's
# workers and producer): the threads whose time a stall takes
OWN_THREAD = re.compile(r"(processor|worker)-[0-9]+|producer")
# Netty's allocator metrics of the run that stands for a cell: buffers its arenas allocated and freed (what the
# thread caches did not serve), the share of the strategy's buffers a thread cache served, the mean usage of the
# arenas' chunks, the memory the allocator holds, and its thread caches
NETTY_COLUMNS = ["netty_allocations", "netty_deallocations", "netty_cache_share", "netty_chunk_usage_pct",
                 "netty_used_bytes", "netty_thread_caches"]


def _seconds(cpu: Any) -> float | None:
    """The sum of a run's thread CPU seconds (a list, or an array from the store); None where one is missing."""
    if cpu is None or isinstance(cpu, float) and math.isnan(cpu):
        return None
    each = [None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in list(cpu)]
    return None if not each or None in each else float(sum(each))  # type: ignore[arg-type]


def run_costs(row: Mapping[str, Any]) -> dict[str, float | None]:
    """One run's CPU time per packet, in ns: the process's and its own threads' (None where not recorded)."""
    packets = value(dict(row), "measured_packets")
    process = value(dict(row), "measured_cpu_s")
    threads = _seconds(row.get("thread_cpu_s"))
    ok = row.get("status") == "ok" and packets
    return {PROCESS_CPU: process * 1e9 / packets if ok and process is not None else None,
            THREAD_CPU: threads * 1e9 / packets if ok and threads is not None else None}


def with_costs(runs: pd.DataFrame) -> pd.DataFrame:
    """A block's runs with each run's CPU times per packet as columns."""
    if not len(runs):
        return runs.assign(**{PROCESS_CPU: pd.Series(dtype=float), THREAD_CPU: pd.Series(dtype=float)})
    costs = pd.DataFrame([run_costs(r) for r in runs.to_dict("records")], index=runs.index)
    return runs.assign(**{name: costs[name] for name in (PROCESS_CPU, THREAD_CPU)})


def cpu_figures(runs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Each cell's CPU columns (CPU_COLUMNS) over its block's runs, as cell_figures counts wall time: the newest
    complete boot's medians, the thread CPU time's interval and every complete boot's samples."""
    runs = with_costs(runs)
    threads = cell_figures(runs, THREAD_CPU) if len(runs) else {}
    process = cell_figures(runs, PROCESS_CPU) if len(runs) else {}
    out = {}
    for cell, found in threads.items():
        spread = spread_columns(found)
        out[cell] = {THREAD_CPU: _median(found["spread"].median), "thread_cpu_low": spread["ns_low"],
                     "thread_cpu_high": spread["ns_high"], "cpu_boot_samples": spread["boot_samples"],
                     PROCESS_CPU: _median(process[cell]["spread"].median) if cell in process else None}
    return out


def _median(median: float) -> float | None:
    return None if median is None or math.isnan(median) else float(median)


def netty_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """NETTY_COLUMNS of a run (None for a strategy without Netty's allocator). The cache share is 1 - arena
    allocations / buffers the strategy allocated (pool_capacity): an arena counts only what no thread cache
    served."""
    metrics = row.get("netty_metrics")
    if not isinstance(metrics, Mapping):
        return {name: None for name in NETTY_COLUMNS}
    allocations, allocated = metrics.get("allocations"), value(dict(row), "pool_capacity")
    share = (1 - float(allocations) / float(allocated)
             if allocations is not None and allocated and not pd.isna(allocations) else None)
    used = [metrics.get(name) for name in ("used_heap_memory", "used_direct_memory")]
    return {"netty_allocations": metrics.get("allocations"), "netty_deallocations": metrics.get("deallocations"),
            "netty_cache_share": None if share is None else max(0.0, share),
            "netty_chunk_usage_pct": metrics.get("chunk_usage_pct"),
            "netty_used_bytes": sum(int(v) for v in used if v is not None and not pd.isna(v)),
            "netty_thread_caches": metrics.get("num_thread_local_caches")}


def collector_held(result: CellResult) -> float | None:
    """The share of the run's own threads' time in its measured window (analysis.gctable.measured_window) that
    its collector held them, in %: every stop of the world holds each thread, and a stall (ZGC's allocation or
    relocation stall) the thread that stalled. Per thread, the union of those spans within the window; summed
    over the threads (the summary's thread_cpu_s counts them) over the window times their number. None for a run
    without a GC log lined up with its clock (a C++ run, a failed one)."""
    if result.gc_events is None or result.run.header is None or result.run.summary is None:
        return None
    events = gclog.align(result.gc_events, result.run.header).events
    cpu = result.run.summary.get("thread_cpu_s")
    threads = len(list(cpu)) if cpu is not None and not isinstance(cpu, float) else 0
    if events is None or not threads:
        return None
    start, end = measured_window(result.run)
    if end <= start:
        return None
    stopped = gclog.stops(events)
    stops = list(zip(stopped["t_s"], stopped["t_end_s"]))
    stalled = gclog.stalls(events)
    stalled = stalled.loc[np.array([isinstance(name, str) and OWN_THREAD.fullmatch(name) is not None
                                    for name in stalled["thread"]], dtype=bool)]
    held = _union(stops, start, end) * (threads - stalled["thread"].nunique())
    for _, spans in stalled.groupby("thread"):
        held += _union(stops + list(zip(spans["t_s"], spans["t_end_s"])), start, end)
    return 100 * held / (threads * (end - start))


def _union(spans: list[tuple[float, float]], start: float, end: float) -> float:
    """The length of the union of the spans (start, end pairs), clipped to [start, end]."""
    total, reach = 0.0, start
    for low, high in sorted((max(float(a), start), min(float(b), end)) for a, b in spans):
        if high > max(low, reach):
            total += high - max(low, reach)
            reach = high
    return total


def live_set_per_thread(row: Mapping[str, Any], threads: int) -> float | None:
    """The packets each processing thread held at the end (the summary's thread_held, Java's), their mean;
    else the live set the run's sizes give each thread (the FIFO less one and the store, the case's under weak
    scaling, a share under strong)."""
    held = row.get("thread_held")
    if held is not None and not (isinstance(held, float) and math.isnan(held)) and len(list(held)):
        return float(np.mean([float(v) for v in held]))
    queue, stored = value(dict(row), "params_internal_queue_size"), value(dict(row), "params_stored_count")
    if queue is None or stored is None or not threads:
        return None
    split = threads if row.get("scaling") == "strong" else 1
    return (queue + stored) / split - 1


def cpu_view(table: pd.DataFrame) -> pd.DataFrame:
    """A thread table with its threads' CPU time per packet where its wall time per packet was (median, interval
    and samples), so that every figure, table and comparison of wall time reads CPU time the same way; a row
    without a CPU figure reads as not measured."""
    if not len(table) or THREAD_CPU not in table:
        return table.iloc[0:0]
    rows = []
    for row in table.to_dict("records"):
        cpu = row.get(THREAD_CPU)
        measured = row.get("status") == "ok" and cpu is not None and not pd.isna(cpu)
        samples = row.get("cpu_boot_samples") if measured else None
        samples = samples if isinstance(samples, Mapping) else {}
        rows.append({**row, "ns_per_packet": cpu if measured else None,
                     "ns_low": row.get("thread_cpu_low") if measured else None,
                     "ns_high": row.get("thread_cpu_high") if measured else None,
                     "boot_samples": samples, "samples": list(samples.get(row.get("boot"), [])) if measured else [],
                     "status": row.get("status") if measured or row.get("status") != "ok" else "no CPU time"})
    return pd.DataFrame(rows, columns=table.columns)
