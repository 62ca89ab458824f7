"""The real-time chapter's experiments (chapters 4-9): each cell's search for its smallest loss-free
interval, replayed from its stored probes where the store has them (the bisection is deterministic given
their outcomes, so a finished search costs no run and an interrupted one resumes at its next probe); the
article's what-if of a longer input queue; and its printed runs as timelines."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import pandas as pd

from allocorpool.analysis import gctable
from allocorpool.analysis.search import MISSING, Probe, ProbeFn, find_interval, slowest_collection_period_s
from allocorpool.data import gclog
from allocorpool.data.records import CellResult
from allocorpool.data.tables import (
    SEARCH_COLUMNS,
    WHAT_IF_COLUMNS,
    Searches,
    machine_name,
    machine_names,
    value,
    window_collections,
)
from allocorpool.lists import REALTIME_STRATEGIES, REFERENCE_NS, TIMELINES, Solution
from allocorpool.run.cells import batch_cell, probe_cell
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import labels, not_measured, probe_verdict
from allocorpool.run.probe_series import ProbeSeries

WHAT_IF_QUEUE_MS = 1000  # the article's what-if: "if our source queue could contain one second worth of packets"


def realtime(ex: Executor, chosen: Iterable[Solution]) -> Searches:
    """Every real-time search of the chosen solutions (probes run where missing)."""
    ex.progress.begin("real-time")
    jobs = [(solution, strategy, case) for solution in chosen for strategy in REALTIME_STRATEGIES
            for case in ex.profile.cases]
    found = searches(ex, jobs)
    ex.progress.end(f"{len(found.table)} searches")
    return found


def searches(ex: Executor, jobs: list[tuple[Solution, str, str]]) -> Searches:
    """The searches of some (solution, strategy, case) cells, on a cluster from a thread per machine."""
    rows, probes = [], []
    for row, probed in ex.each(lambda job: search(ex, *job), jobs, "searches"):
        rows.append(row)
        probes.append(probed)
    return Searches(pd.DataFrame(rows, columns=SEARCH_COLUMNS),
                    pd.concat(probes, ignore_index=True) if probes else pd.DataFrame())


def search(ex: Executor, solution: Solution, strategy: str, case: str) -> tuple[dict[str, Any], pd.DataFrame]:
    """One real-time search (and, where it finds no interval, the big-heap probe at 1000 ns)."""
    plan = ex.profile.search
    batch = ex.row(batch_cell(solution, strategy, case, ex.profile))
    batch_ns = value(batch, "ns_per_packet") if batch["status"] == "ok" else None
    probed: list[dict[str, Any]] = []
    confirm_s = confirmation_s(ex, solution, strategy, case)
    with ex.series(solution) as series:
        result = find_interval(_probe(ex, solution, strategy, case, probed, series=series),
                               probe_s=ex.profile.probe_s, high_ns=plan.high_ns, batch_ns=batch_ns,
                               low_ns=plan.low_ns, start_factor=plan.start_factor, confirm_s=confirm_s,
                               reference_ns=REFERENCE_NS, digits=plan.digits, resolution=plan.resolution)
    probes = result.probes.assign(key=[r["key"] for r in probed], machine=[machine_name(r) for r in probed],
                                  **labels(solution, strategy, case))
    # the probe whose loss the row reports (search.find_interval): the longest at 1000 ns, its repeat where
    # there is one
    at_reference = probes[(probes["interval_ns"] == REFERENCE_NS) & (probes["status"] == "ok")]
    reference = at_reference[at_reference["duration_s"] == at_reference["duration_s"].max()].tail(1)
    row: dict[str, Any] = {**labels(solution, strategy, case), "outcome": result.outcome,
                           "interval_ns": result.good_interval_ns, "loss_pct": result.loss_pct_at_reference,
                           "probes": len(probes), "big_heap": None, "big_heap_status": None, "big_heap_s": None,
                           "big_heap_loss_pct": None, "big_heap_collections": None, "big_heap_keys": [],
                           "error": result.error, "stderr_tail": None,
                           "reference_key": reference["key"].iloc[0] if len(reference) else None,
                           **result.latency_at_interval(), "machine": machine_names(probed)}
    if result.outcome == "failed":
        failed = [r for r in probed if r["status"] != "ok"]
        row["stderr_tail"] = value(failed[-1], "stderr_tail") if failed else None
    big = solution.big_heap_mb(ex.profile.scale)
    if result.outcome == "lost" and big is not None:
        row.update(_big_heap(ex, solution, strategy, case, big, probed))
    return row, probes


def _big_heap(ex: Executor, solution: Solution, strategy: str, case: str, big: int,
              probed: list[dict[str, Any]]) -> dict[str, Any]:
    """The big-heap probe at 1000 ns of a search that found no interval: its columns of the search's row."""
    big_probed: list[dict[str, Any]] = []
    probe_big = _probe(ex, solution, strategy, case, big_probed, heap_mb=big)
    big_probe = probe_big(REFERENCE_NS, ex.profile.probe_s)
    longest = ex.profile.search.longest_probe_s
    if big_probe.status == "ok" and window_collections(big_probed[-1]) == 0 and longest > ex.profile.probe_s:
        # a window without a collection measured nothing of the big heap, which collects about five
        # times less often than the heap: once more, as long as a confirmation may be
        big_probe = probe_big(REFERENCE_NS, longest)
    return dict(big_heap=big, big_heap_status=big_probe.status, big_heap_s=big_probe.duration_s,
                big_heap_loss_pct=big_probe.lost_pct,
                big_heap_collections=window_collections(big_probed[-1]) if big_probe.status == "ok" else None,
                big_heap_keys=[r["key"] for r in big_probed], machine=machine_names(probed + big_probed))


def _probe(ex: Executor, solution: Solution, strategy: str, case: str, rows: list[dict[str, Any]],
           heap_mb: int | None = None, series: ProbeSeries | None = None) -> ProbeFn:
    """Probes of one cell: a real-time run at (interval, duration, repetition), judged by search.verdict, its
    index row appended to rows. A failed run is run again once when the search asks again (its
    second attempt). With a series, its cells are series cells (Cell.series), run in it where the store
    lacks them: a probe measured in a JVM of its own opened on a younger heap, and is not read instead."""
    asked: set[str] = set()

    def probe(interval_ns: int, duration_s: float, repetition: int = 0) -> Probe:
        cell = probe_cell(solution, strategy, case, ex.profile, interval_ns, heap_mb=heap_mb,
                          duration_s=duration_s, repetition=repetition)
        cell = replace(cell, series=True) if series is not None else cell
        row = ex.row(cell, retry_failure=cell.key in asked, series=series)
        asked.add(cell.key)
        rows.append(row)
        return probe_verdict(row, interval_ns, duration_s)
    return probe


def confirmation_s(ex: Executor, solution: Solution, strategy: str, case: str) -> Callable[[int], float] | None:
    """How long the probe that confirms an interval runs: long enough for its window to hold the
    slowest collection of the cell's batch run's window twice, that collection's period stretched by the
    real-time run's lower allocation rate (interval / batch ns per packet); the profile's longest
    probe where the batch run saw it less than twice. None where nothing is confirmed (C++: no
    collector; or the profile does not confirm)."""
    plan = ex.profile.search
    if not plan.confirm or solution.engine != "java":
        return None
    cell = batch_cell(solution, strategy, case, ex.profile)
    row = ex.row(cell)
    warmup, shortest, longest = ex.profile.probe_warmup_s, ex.profile.probe_s, plan.longest_probe_s
    batch_ns = value(row, "ns_per_packet") if row["status"] == "ok" else None
    period = None  # unknown where the GC log cannot be lined up with the run's window
    result = ex.load(row["key"]) if batch_ns else None
    if result is not None and result.gc_events is not None:
        aligned = gclog.align(result.gc_events, result.run.header).events
        if aligned is not None:
            period = slowest_collection_period_s(aligned, *gctable.measured_window(result.run))

    def duration(interval_ns: int) -> float:
        if period is None or not batch_ns:
            return longest
        return min(longest, max(shortest, warmup + 2 * period * interval_ns / batch_ns))
    return duration


def what_if_queue(ex: Executor, chosen: Iterable[Solution], strategies: Iterable[str] = ("pool",)) -> pd.DataFrame:
    """The article's what-if: an input queue of WHAT_IF_QUEUE_MS (scaled like the profile's queue)
    instead of 100 ms, probed at 1000 ns for the named solutions' strategies in every case, each probe
    long enough to hold the cell's slowest collection twice where the profile confirms."""
    ex.progress.begin("what-if queue")
    delay = ex.profile.queue_ms(WHAT_IF_QUEUE_MS)
    jobs = [(solution, strategy, case) for solution in chosen for strategy in strategies
            for case in ex.profile.cases]

    def what_if(job: tuple[Solution, str, str]) -> dict[str, Any]:
        solution, strategy, case = job
        confirm = confirmation_s(ex, solution, strategy, case)
        duration = max(ex.profile.probe_s, confirm(REFERENCE_NS)) if confirm else ex.profile.probe_s
        cell = probe_cell(solution, strategy, case, ex.profile, REFERENCE_NS, duration_s=duration,
                          capture_delay_ms=delay)
        row = ex.row(cell)
        result = probe_verdict(row, REFERENCE_NS, duration)
        return {**labels(solution, strategy, case), "queue_ms": delay, "duration_s": duration,
                "status": row["status"], "keeps_up": result.ok if row["status"] == "ok" else None,
                "loss_pct": result.lost_pct, "key": row["key"], "machine": machine_name(row)}
    rows = ex.each(what_if, jobs, "what-if probes")
    ex.progress.end(f"{len(rows)} what-if probes")
    return pd.DataFrame(rows, columns=WHAT_IF_COLUMNS)


def timelines(ex: Executor, chosen: Iterable[Solution]) -> list[tuple[Solution, str, str, CellResult]]:
    """The article's printed runs (lists.TIMELINES) among the chosen solutions: one long real-time
    run each at 1000 ns, with its GC log."""
    ex.progress.begin("timelines")
    by_name = {s.name: s for s in chosen}
    found = []
    cells = [(by_name[name], strategy, case, probe_cell(by_name[name], strategy, case, ex.profile, REFERENCE_NS,
                                                         duration_s=ex.profile.timeline_s))
             for name, strategy, case in TIMELINES if name in by_name and case in ex.profile.cases]
    rows = ex.rows([cell for *_, cell in cells], unit="timeline runs")
    for (solution, strategy, case, cell), row in zip(cells, rows):
        found.append((solution, strategy, case,
                      not_measured(cell, row) if row["status"] == MISSING else ex.load(row["key"])))
    ex.progress.end(f"{len(found)} timeline runs")
    return found
