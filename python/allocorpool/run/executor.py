"""The executor: the one way a measurement is got. Given a cell, it returns its stored row, or runs
it when the store lacks it and stores it as soon as it ends; the store only stores.

A cell already stored (finished, failed or timed out) is read back, never rerun, so a papermill
sweep and a JupyterLab session share results and a rerun goes on where the last one stopped. A
cell runs through one of three backends: the local runner (run.runner.run_cell), a probe series
(run.probe_series: a search's probes in one JVM) or a Dask cluster's workers (run.cluster), and
always under the store's lock (Store.lock_for_runs) after the machine check of this boot
(run.machine_check). Blocks (run.blocks) run through the same runner, with the calibration hook
(run.calibration) at each block's start in a boot, or side by side on a machine of several CPU slots
(run.slots), a block per slot at a time (measure_blocks).

Given a Dask scheduler's address (settings.SCHEDULER_VARIABLE, make's SCHEDULER), the cells run on
that cluster's workers, one per machine, and this process stores them: independent cells and
searches go from as many threads as there are machines (Executor._each), and every table keeps the
order of a local run. Without one, cells run here one at a time, and blocks one at a time or, on a
machine of several CPU slots, side by side.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from allocorpool import lists, machine, paths, settings
from allocorpool.analysis.min_heap import TOO_SMALL, heap_verdict
from allocorpool.data.records import MISSING
from allocorpool.data.records import CellResult, row_failure
from allocorpool.data.store import Store
from allocorpool.data.tables import value
from allocorpool.lists import Solution
from allocorpool.profiles import Profile, in_series, profile, solutions
from allocorpool.run import calibration, machine_check
from allocorpool.run.blocks import Block, BlockRunner, Lane
from allocorpool.run.cells import batch_cell
from allocorpool.run.probe_series import ProbeSeries
from allocorpool.run.progress import Status, fail_if_strict, show_cells_read
from allocorpool.run.runner import Cell, default_timeout, run_cell

if TYPE_CHECKING:
    from allocorpool.run.cluster import Cluster
    from allocorpool.run.slots import Slots

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


def run_missing(cells: Iterable[Cell], store: Store, run: Callable[[Cell], CellResult] | None = None,
                retry_failed: bool = False, progress: bool = True) -> pd.DataFrame:
    """Runs every cell the store does not have yet (nor, with retry_failed, has only as a failure),
    storing each as soon as it ends; returns the index rows of the given cells. The first run takes the
    store for this process (Store.lock_for_runs). A replay (settings.replaying) runs nothing: a cell the
    store lacks has no row. The other studies' sweeps (binary trees, the event echo) run through it."""
    runner = run or (lambda cell: run_cell(cell, store.runs_dir, progress=progress))
    replay = settings.replaying()
    keys = []
    for cell in cells:
        keys.append(cell.key)
        if replay or store.has(cell.key, ok_only=retry_failed):
            continue
        store.lock_for_runs()
        store.put(runner(cell))
    index = store.index
    if not len(index):  # an empty store has no columns yet
        return index
    return index[index["key"].isin(keys)].reset_index(drop=True)


class Executor:
    """The cells of one profile got through one store: a cell's stored row, or the row of its run."""

    def __init__(self, profile_name: str | Profile | None = None, data_dir: str | Path | None = None,
                 progress: bool = True, retry_failed: bool = False, replay: bool | None = None,
                 scheduler: str | Cluster | None = None, slots: int | Slots | None = None,
                 selection: str | None = None) -> None:
        self.profile = profile(profile_name or settings.profile_name())
        self.store = Store.chosen(self.profile.name, data_dir)
        self.retry_failed = retry_failed
        # the solutions shown (lists.SELECTIONS; None: the environment's, settings.SOLUTIONS_VARIABLE)
        self.selection_name = settings.selection_name() if selection is None else selection
        self.selection = lists.selection(self.selection_name)
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
        self._status = Status(False, "")
        # A Dask scheduler's address (or a Cluster): cells run on its workers; connected when a cell is to run.
        self._scheduler = scheduler if scheduler is not None else settings.scheduler()
        self._cluster: Cluster | None = None
        self._key_locks: dict[str, threading.Lock] = {}  # one cell is never run by two threads at once
        self._key_locks_guard = threading.Lock()
        self._machine_checked = False
        self._blocks: BlockRunner | None = None
        # How many blocks run side by side here (None: settings.SLOTS_VARIABLE's, else run.slots.cpu_slots's
        # rule), or the running slots themselves
        self._slots = slots

    # ---- the solutions shown ----------------------------------------------------------
    def solutions(self, chapter: str | None = None) -> list[Solution]:
        """The solutions of a chapter (lists.CHAPTERS; None: all) that the profile and the sweep's
        selection (settings.SOLUTIONS_VARIABLE) hold."""
        return solutions(None if chapter is None else lists.CHAPTERS[chapter], self.profile, self.selection)

    def left_out(self, chapter: str) -> list[tuple[Solution, str]]:
        """The chapter's solutions (lists.CHAPTERS) this sweep does not show, each with what leaves it out:
        the sweep's selection or the profile."""
        shown = {s.name for s in self.solutions(chapter)}
        return [(s, f"the selection {self.selection_name}" if self.profile.selects(s)
                 else f"the profile {self.profile.name}")
                for s in solutions(lists.CHAPTERS[chapter]) if s.name not in shown]

    def solutions_named(self, names: Iterable[str]) -> list[Solution]:
        """Named solutions (a chapter's comparison baseline, say) that the profile and selection hold."""
        return solutions(tuple(names), self.profile, self.selection)

    # ---- a cell's row ------------------------------------------------------------------
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
        if cell.stop_when_heap_full:
            self._note_heap_too_small(cell.key, row)  # Epsilon filled its heap: the cell's answer, not a failed run
        return row

    def _note_heap_too_small(self, key: str, row: dict[str, Any]) -> str | None:
        """The heap verdict of a run's row (analysis.min_heap); one that ran out of heap is a measurement's
        answer (a bisection's step, a continuum line's end), not a failure of the chapter."""
        found = heap_verdict(row["status"], row_failure(row), value(row, "stderr_tail"))
        if found == TOO_SMALL:
            self._heap_too_small.add(key)
        return found

    def _run_if_missing(self, cell: Cell, retry_failure: bool, series: ProbeSeries | None = None) -> dict[str, Any]:
        with self._key_locks_guard:  # a thread that asks for a cell another one runs waits for its row
            key_lock = self._key_locks.setdefault(cell.key, threading.Lock())
        with key_lock:
            row = self._rows.get(cell.key) or self._same_measurement(cell)
            failed = row is not None and row["status"] != "ok"
            retry = failed and ((self.retry_failed and cell.key not in self._run_here)
                                or (retry_failure and (value(row, "attempts") or 1) < 2))
            if row is None or retry:
                self.store.lock_for_runs()
                self._check_machine()
                self._run_here.add(cell.key)
                stored = self.store.row(cell.key)  # another sweep of this process may have stored it since
                if stored is None or (retry and stored["status"] != "ok"):
                    self.store.put(self._run(cell, series))
                    stored = self.store.row(cell.key)
                assert stored is not None, "a cell just stored"
                row = self._rows[cell.key] = stored
        return row

    def _same_measurement(self, cell: Cell) -> dict[str, Any] | None:
        """A cell of this measurement made by a build lists.SAME_MEASUREMENT_BUILDS lists as this one's
        equal, finished or failed (a listed build measures the same: its failures, an out-of-memory in a
        minimum-heap bisection above all, are this build's too, run again only when failures are retried);
        the latest of them, None when there is none."""
        if not getattr(cell, "build", ""):
            return None
        rows = [self._rows.get(key) for key in self._same_as(cell)]
        found = [row for row in rows if row is not None]
        return max(found, key=lambda row: str(value(row, "stored_utc") or "")) if found else None

    @staticmethod
    def _same_as(cell: Cell) -> list[str]:
        """The keys of the cell's runs by the builds that measure the same (lists.SAME_MEASUREMENT_BUILDS)."""
        builds = lists.SAME_MEASUREMENT_BUILDS.get(getattr(cell, "engine", ""), {})
        return [f"{cell.measurement}_b{build}" for build in builds]

    # ---- the backends ------------------------------------------------------------------
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

    @contextmanager
    def _series(self, solution: Solution) -> Iterator[ProbeSeries | None]:
        """One series for a search's probes where the profile runs them in series (profiles.in_series), on
        this machine (a Dask cluster's workers run one cell each). None elsewhere. A replay's series runs
        nothing: it marks the probes to read as series cells."""
        if not in_series(solution, self.profile.search) or self._scheduler is not None:
            yield None
            return
        series = ProbeSeries(self.store.runs_dir)
        try:
            yield series
        finally:
            series.close()

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
                    cell, self.store.runs_dir / "calibration", timeout_s=default_timeout(cell), progress=False),
                    folder=self.store.runs_dir / "calibration")
            self._blocks = BlockRunner(self.store, run, calibrate=calibrate, replay=self.replay,
                                       retry_failed=self.retry_failed, show=lambda text: self._status.show(text),
                                       same_as=self._same_as)
        return self._blocks

    def measure_blocks(self, blocks: Sequence[Block]) -> list[pd.DataFrame]:
        """Each block's runs (BlockRunner.measure), in the blocks' order. Where this machine has several CPU
        slots (run.slots) and more than one block has runs to make, they run side by side, a block per slot
        at a time, on a local Dask cluster started for them and stopped after; else one after the other
        here. Not with a Dask scheduler (settings.SCHEDULER_VARIABLE), whose blocks run here, as always."""
        pending = (block for block in blocks if self.blocks.pending(block))
        if self._scheduler is not None or next(pending, None) is None or next(pending, None) is None:
            return [self.blocks.measure(block) for block in blocks]
        from allocorpool.run import slots

        if self._slots is not None and not isinstance(self._slots, int):  # slots already running (a test's)
            return self.blocks.measure_all(blocks, self._lanes(self._slots))
        cpus = slots.cpu_slots(self._slots)
        if len(cpus) < 2:
            return [self.blocks.measure(block) for block in blocks]
        self._status.show(f"starting {len(cpus)} CPU slots: {'; '.join(map(slots.cpus_text, cpus))}")
        with slots.Slots(cpus) as running:
            return self.blocks.measure_all(blocks, self._lanes(running))

    def _lanes(self, running: Slots) -> list[Lane]:
        """A lane per slot: its runs go to the slot's worker; its calibration's reference cell too, and the
        memory's latency is timed from the lane's thread held to the slot's CPUs."""
        from allocorpool.run.slots import cpus_text, hold_thread_to

        def lane(slot: int) -> Lane:
            def run(cell: Cell) -> CellResult:
                self._status.show(f"running {cell.key} on {cpus_text(running.cpus[slot])}")
                result = running.run(cell, slot, self.store.runs_dir)
                with self._key_locks_guard:
                    self._ran += 1
                return result

            def calibrate() -> dict[str, Any]:  # each lane's reference run in its own folder: they run at once
                hold_thread_to(running.cpus[slot])
                return calibration.calibrate(self.profile, lambda cell: running.run(
                    cell, slot, self.store.runs_dir / "calibration" / f"slot-{slot}"),
                    folder=self.store.runs_dir / "calibration")
            return Lane(cpus_text(running.cpus[slot]), run, calibrate)
        return [lane(slot) for slot in range(len(running))]

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
        cells = [batch_cell(lists.SOLUTIONS_BY_NAME[name], strategy, case, self.profile)
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

    # ---- what this session read ----------------------------------------------------------
    def _saw(self, rows: Iterable[dict[str, Any]]) -> None:
        """Notes the stored rows of runs a block read (those the store lacks left out)."""
        for row in rows:
            if row["status"] != MISSING:
                self._seen[row["key"]] = row

    def load(self, key: str) -> CellResult:
        """A stored cell with its records and parsed GC log (kept for this session)."""
        if key not in self._loaded:
            self._loaded[key] = self.store.load(key)
        return self._loaded[key]

    def failures(self) -> pd.DataFrame:
        """The cells this session ran or read whose latest run failed or timed out."""
        rows = [{"key": key, "status": row["status"], "error": value(row, "error"),
                 "stderr_tail": value(row, "stderr_tail")} for key, row in self._seen.items()
                if row["status"] != "ok" and key not in self._heap_too_small]
        return pd.DataFrame(rows, columns=["key", "status", "error", "stderr_tail"])

    def cells_read(self) -> list[str]:
        """The keys of the stored cells this session ran or read (a replay's older build of a measurement
        included: the cell it showed), those the store lacks left out."""
        return sorted({row["key"] for row in self._seen.values() if row["status"] != MISSING})

    def finish(self, *results: pd.DataFrame) -> None:
        """A chapter's last step. It records the stored cells the chapter read (progress.READ_CELLS_MIMETYPE).
        Under a strict profile (ci) it fails when any run the chapter read or ran failed, or when one of
        its result tables has no finished row. Other profiles keep what finished and show the failures."""
        read = self.cells_read()
        engine_s = sum(value(self._rows.get(key, {}), "elapsed_s") or 0 for key in read)
        show_cells_read(self.profile.name, self.selection_name, read, engine_s)
        fail_if_strict(self.profile.name, self.profile.strict, self.failures(), results)

    def _begin(self, what: str) -> None:
        self._status = Status(self._progress, f"{self.profile.name} {what}")

    def _end(self, what: str) -> None:
        self._status.show(f"done: {what}; {self._ran} cell(s) run in this session, the rest read from "
                          f"{paths.shown(self.store.root)}")
