"""The tables a sweep hands the chapters, their columns defined once, and the reading of a store's
index rows they are made from.

Every chapter's table starts with SOLUTION_COLUMNS (what was measured: solution, strategy, case),
then its own columns below. A figure a table cannot give (a run that failed, a cell not measured)
is None, never NaN from a half-read row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from allocorpool import machine

# A real-time run's metered latency (docs/records.md): how late its sampled packets were made, from when due.
LATENCY_FIELDS = ("latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns")
# What a batch cell's row adds to a single run's: its spread over the newest complete boot's repetitions,
# and every complete boot's repetitions (boot_samples: boot -> figures) for comparisons boot by boot;
# committed_boots: how many of those boots ran it from a committed build
SPREAD_COLUMNS = ["ns_low", "ns_high", "runs", "failed_runs", "boots", "committed_boots", "boot", "samples",
                  "boot_samples"]

SOLUTION_COLUMNS = ["solution", "label", "reference_name", "engine", "baseline", "strategy", "strategy_label", "case"]
# latency_*: the metered latency of the probe that proved the interval (search) or of the probe (continuum, JDKs)
# big_heap: the big heap, MB (where the search lost); big_heap_*: the big-heap probe whose figure stands (a search's): its status, length, loss and the collections
# its window saw (0: its loss says nothing of the heap); big_heap_keys: every big-heap probe, that one last
SEARCH_COLUMNS = SOLUTION_COLUMNS + ["outcome", "interval_ns", "loss_pct", "big_heap", "big_heap_status",
                                    "big_heap_s", "big_heap_loss_pct", "big_heap_collections", "probes", "error",
                                    "stderr_tail", "reference_key", "big_heap_keys", *LATENCY_FIELDS, "machine"]
# A sentinel search's long run at 1000 ns (where it kept up there); loses: over the long run, or the search's own loss
# A real-time block's row per strategy: its probes at one interval (every boot), how many lost or failed, the
# losses of those that finished, and whether it keeps up there (analysis.blocks.keeps_up), over all boots and
# in each (boot_keeps_up: {boot: outcome}; boot_losses: {boot: losses}, oldest boot first)
PROBE_BLOCK_COLUMNS = SOLUTION_COLUMNS + ["interval_ns", "probes", "lossy", "failed", "loss_pct", "loss_max_pct",
                                         "losses", "keeps_up", "boot_keeps_up", "boot_losses", "boots", "keys"]
LONG_RUN_COLUMNS = SOLUTION_COLUMNS + ["search_loses", "long_run_s", "status", "lost_pct", "gc_pause_max_ms", "error",
                                       "key", "machine", "loses"]
# keeps_up: every probe of the size kept up (a size next to a change in its line's verdict is probed
# twice: probe_* is the first, repeat_* the second); loss_pct and the latency: the first probe's
CONTINUUM_COLUMNS = SOLUTION_COLUMNS + [
    "size", "live_packets", "batch_status", "ns_per_packet", *SPREAD_COLUMNS, "probe_status", "interval_ns", "keeps_up",
    "probe_keeps_up", "loss_pct", *LATENCY_FIELDS, "repeat_status", "repeat_keeps_up", "repeat_loss_pct", "error",
    "batch_key", "probe_key", "repeat_key", "machine"]
POOL_SIZE_COLUMNS = SOLUTION_COLUMNS + ["pool_size", "status", "error", "ns_per_packet", "key", "machine"]
JDK_COLUMNS = SOLUTION_COLUMNS + [
    "jdk", "collector", "batch_status", "ns_per_packet", "cpu_ns_per_packet", "gc_pause_max_ms", "gc_pause_total_ms",
    *SPREAD_COLUMNS, "probe_status", "interval_ns", "keeps_up", "loss_pct", *LATENCY_FIELDS, "error", "stderr_tail", "batch_key",
    "probe_key", "machine"]
MIN_HEAP_COLUMNS = SOLUTION_COLUMNS + ["outcome", "min_heap_mb", "solution_heap_mb", "runs", "error", "machine"]
MULTIPLE_COLUMNS = SOLUTION_COLUMNS + ["factor", "heap_mb", "repetition", "status", "error", "ns_per_packet",
                                       "cpu_ns_per_packet", "gc_pause_total_ms", "gc_pause_max_ms", "key", "machine"]
WHAT_IF_COLUMNS = SOLUTION_COLUMNS + ["queue_ms", "duration_s", "status", "keeps_up", "loss_pct", "key", "machine"]
BATCH_FIELDS = ["ns_per_packet", "alloc_bytes_per_packet", "allocs_per_packet", "gc_pause_count",
                "gc_pause_total_ms", "gc_pause_max_ms", "live_objects", "peak_rss_bytes", "store_fill_at_window",
                "jdk_build"]
# cpu_ns_per_packet: the process's CPU time per packet (every thread's, the collector's too), the median over the
# same repetitions as ns_per_packet's
BATCH_COLUMNS = SOLUTION_COLUMNS + ["source", "key", "status", "error", "stderr_tail", *BATCH_FIELDS,
                                    "cpu_ns_per_packet", *SPREAD_COLUMNS, "machine"]

# The several-threads chapter's rows: one per solution, strategy, case and thread count; ns_per_packet is thread
# time per packet (elapsed x threads: flat where a strategy scales perfectly), thread_share_min the slowest
# thread's share of the packets x threads (1: an even split), cpus the machine's
THREAD_FIELDS = ["ns_per_packet", "alloc_bytes_per_packet", "gc_pause_count", "gc_pause_total_ms", "gc_pause_max_ms",
                 "peak_rss_bytes", "thread_share_min", "cpus"]
# scaling: "weak" (every thread the case's live set) or "strong" (the case split); handoff: one producer feeding the
# threads; live_set_per_thread: packets each thread held; the CPU, Netty and collector columns: analysis.thread_costs'
THREAD_COST_COLUMNS = ["live_set_per_thread", "cpu_ns_per_packet", "thread_cpu_ns_per_packet", "thread_cpu_low",
                       "thread_cpu_high", "cpu_boot_samples", "netty_allocations", "netty_deallocations",
                       "netty_cache_share", "netty_chunk_usage_pct", "netty_used_bytes", "netty_thread_caches",
                       "collector_held_pct"]
THREAD_COLUMNS = SOLUTION_COLUMNS + ["threads", "scaling", "handoff", "key", "status", "error", *THREAD_FIELDS,
                                     *SPREAD_COLUMNS, *THREAD_COST_COLUMNS, "machine"]
# The several-threads chapter's real-time blocks: a probe block's row at each count of consumer threads, the
# interval being what each consumer sees (the clock's times the count), with the probes' median metered latency.
THREAD_PROBE_COLUMNS = PROBE_BLOCK_COLUMNS + ["threads", "latency_p99_ns"]


@dataclass
class Searches:
    """The real-time searches of some solutions: one row each (SEARCH_COLUMNS), and every probe they made."""

    table: pd.DataFrame
    probes: pd.DataFrame


@dataclass
class HeapMultiples:
    """The minimum-heap chapter's cells: one row per (solution, strategy, case) with its minimum heap
    (MIN_HEAP_COLUMNS), one per run at a multiple of it (MULTIPLE_COLUMNS), with its lower-bound overheads
    (analysis.min_heap), and every run of the bisections."""

    minimum: pd.DataFrame
    multiples: pd.DataFrame
    bisections: pd.DataFrame


@dataclass
class Continuum:
    """The continuum chapter's cells: a row per (solution, strategy, live-set size) with its batch
    figure and its real-time probe's loss (CONTINUUM_COLUMNS), and a row per pool size of the pool-size
    what-if (POOL_SIZE_COLUMNS)."""

    curves: pd.DataFrame
    pool_sizes: pd.DataFrame


def value(row: dict[str, Any], name: str) -> Any:
    """A field of an index row; None where absent or NaN."""
    found = row.get(name)
    if found is None or (isinstance(found, float) and math.isnan(found)):
        return None
    return found


PAUSE_FIELDS = ("gc_pause_count", "gc_pause_total_ms", "gc_pause_max_ms")


def recorded(row: dict[str, Any], name: str) -> Any:
    """A field of an index row as value() gives it, except the pause figures of a run whose collector told
    the engine of collections but of no pause (JDK 11's ZGC has one bean, of cycles): its pauses are only in
    its GC log, so the records' zero pauses are None (not seen), never a measured zero."""
    if name in PAUSE_FIELDS and value(row, "gc_pause_count") == 0 and (value(row, "gc_cycle_count") or 0) > 0:
        return None
    return value(row, name)


def window_collections(row: dict[str, Any]) -> int | None:
    """The collections a Java run's measured window saw, as the engine was notified of them (pauses and
    concurrent cycles); None where the row does not say (C++, a failed run)."""
    counts = [value(row, name) for name in ("gc_pause_count", "gc_cycle_count")]
    return None if None in counts else int(sum(counts))


def machine_name(row: dict[str, Any]) -> str | None:
    """The machine a cell ran on, as the tables name it: CPU model and count (None: not run)."""
    model, cpus = value(row, "cpu_model"), value(row, "cpus")
    return None if model is None or cpus is None else f"{machine.cpu_name(model)}, {int(cpus)} CPUs"


def machine_names(rows: Iterable[dict[str, Any]]) -> str | None:
    """The machines of some cells (a search's probes): one, or all of them joined by " + " when they differ."""
    found = sorted({name for name in map(machine_name, rows) if name is not None})
    return " + ".join(found) if found else None


def batch_costs(row: dict[str, Any]) -> dict[str, Any]:
    """A batch cell's wall and CPU time per packet (the whole process's CPU: a concurrent collector's
    threads too) and its GC pauses; None for a run that did not finish."""
    ok = row["status"] == "ok"
    packets, cpu = value(row, "measured_packets"), value(row, "measured_cpu_s")
    return {"ns_per_packet": value(row, "ns_per_packet") if ok else None,
            "cpu_ns_per_packet": cpu * 1e9 / packets if ok and cpu is not None and packets else None,
            **{name: recorded(row, name) if ok else None for name in ("gc_pause_total_ms", "gc_pause_max_ms")}}
