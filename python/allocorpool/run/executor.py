"""The executor: the one way a measurement is got, through one door for cells (rows) and one for blocks
(measure). Given a cell, it returns its stored row, or runs it when the store lacks it and stores it as
soon as it ends; the store only stores.

One lookup says what the store holds of a cell (Executor.stored): its own key's row; in a replay
(settings.replaying: the article of a committed store renders anywhere, running nothing) else the newest
row of its measurement, whichever engine build made it; else the newest row of a build that
lists.SAME_MEASUREMENT_BUILDS lists as this one's equal. A cell it finds (finished, failed or timed
out) is read back, never rerun, so a papermill sweep and a JupyterLab session share results and a rerun
goes on where the last one stopped; a failure runs again once per executor when it retries failures, or
when a search asks for a probe's second attempt (the store counts the attempts). The same lookup and
the same retry serve the cells of rows and the runs of measure's blocks.

A cell runs through one of three backends: the run hook (here: run.runner.run_cell, or the side
studies' own command line), a probe series (run.probe_series: a search's probes in one JVM) or a Dask
cluster's workers (run.cluster), always under the store's lock (Store.lock_for_runs) and after the
machine check of this boot (run.machine_check). A block (run.blocks) runs what this boot lacks of it,
its start registered with the machine's calibration (the calibrate hook, run.calibration), here one at
a time or, on a machine of several CPU slots (run.slots), side by side, a block per slot at a time; on a
Dask cluster, a block per worker machine at a time, each whole on its worker, in that machine's boot.

Given a Dask scheduler's address (settings.SCHEDULER_VARIABLE, make's SCHEDULER), cells run on that
cluster's workers, one per machine, and this process stores them: independent cells and jobs go from as
many threads as there are machines (each; rows with a unit), and every table keeps the order of a local
run. What the session shows and notes is its Progress (run.progress). The machine that runs the blocks
(cpus: on a cluster, the smallest worker) says how many threads the several-threads experiments may ask for.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from allocorpool import lists, machine
from allocorpool.data.records import MISSING, CellResult
from allocorpool.data.store import Store
from allocorpool.data.tables import value
from allocorpool.lists import Solution
from allocorpool.profiles import Profile, in_series
from allocorpool.run import blocks as block_register
from allocorpool.run import calibration, machine_check
from allocorpool.run.blocks import Block, Lane
from allocorpool.run.cells import batch_cell
from allocorpool.run.probe_series import ProbeSeries
from allocorpool.run.progress import Progress
from allocorpool.run.runner import Cell, default_timeout, run_cell

if TYPE_CHECKING:
    from allocorpool.run.cluster import Cluster
    from allocorpool.run.slots import Slots

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")
Run = Callable[[Any], CellResult]


class Executor:
    """The cells and blocks of one profile got through one store: a stored row, or the row of a run made here."""

    def __init__(self, store: Store, profile: Profile, *, progress: Progress | None = None, replay: bool = False,
                 retry_failed: bool = False, scheduler: str | Cluster | None = None, slots: int | Slots | None = None,
                 run: Run | None = None, calibrate: Callable[[], dict[str, Any]] | None = None,
                 boot_id: Callable[[], str | None] | None = None) -> None:
        self.store = store
        self.profile = profile
        self.progress = progress or Progress(False, profile.name)
        self.replay = replay
        self.retry_failed = retry_failed
        # hooks: how a cell runs here, how a block's start is calibrated (None: the memory's latency and the
        # reference cell, run.calibration), this boot's id (machine.boot_id; a test's fixed one)
        self._run_here = run
        self.calibrate = calibrate if calibrate is not None else self._calibrate
        self.boot_id = boot_id or machine.boot_id
        self._retried: set[str] = set()  # keys run in this session: a failure is retried once at most
        self._loaded: dict[str, CellResult] = {}
        self._scheduler = scheduler  # a Dask scheduler's address (or a Cluster): connected when a cell is to run
        self._cluster: Cluster | None = None
        self._slots = slots  # blocks side by side: how many here (None: run.slots's rule), or the running slots
        self._key_locks: dict[str, threading.Lock] = {}  # one cell is never run by two threads at once
        self._guard = threading.Lock()
        self._machine_checked = False

    # ---- what the store holds --------------------------------------------------------------
    def stored(self, cell: Any) -> dict[str, Any] | None:
        """The stored row that stands for a cell (None: none): its own key's; in a replay else the newest of
        its measurement by any build; else the newest by a build that measures the same (lists.SAME_MEASUREMENT_BUILDS:
        its failures, an out-of-memory of a minimum-heap bisection above all, are this build's too)."""
        rows = self.store.index_rows()
        row = rows.get(cell.key)
        if row is None and self.replay:
            row = self.store.latest(getattr(cell, "measurement", cell.key))
        if row is None:
            same = [rows[key] for key in _same_as(cell) if key in rows]
            row = max(same, key=lambda r: str(value(r, "stored_utc") or "")) if same else None
        return dict(row) if row is not None else None

    def _to_run(self, cell: Any, row: dict[str, Any] | None, retry_failure: bool = False) -> bool:
        """Whether a cell runs: the store lacks it, or holds it as failed and failures are retried (once per
        executor) or the caller asks for the second attempt (retry_failure: once per key, the store counts)."""
        if self.replay:
            return False
        if row is None:
            return True
        return row["status"] != "ok" and ((self.retry_failed and cell.key not in self._retried)
                                          or (retry_failure and (value(row, "attempts") or 1) < 2))

    # ---- the door for cells -----------------------------------------------------------------
    def rows(self, cells: Sequence[Any], *, unit: str | None = None, series: ProbeSeries | None = None,
             retry_failure: bool = False) -> list[dict[str, Any]]:
        """The index row of each cell, in their order, each run first where the store lacks it (see stored and
        _to_run; a series cell in the series). With a unit (the cells are independent), on a cluster from a thread
        per machine; else one after the other. A replay runs nothing: a cell the store lacks has a row of status
        MISSING."""
        def one(cell: Any) -> dict[str, Any]:
            return self._row(cell, retry_failure, series)
        return self.each(one, cells, unit) if unit is not None else [one(cell) for cell in cells]

    def row(self, cell: Any, *, series: ProbeSeries | None = None, retry_failure: bool = False) -> dict[str, Any]:
        """rows of one cell."""
        return self.rows([cell], series=series, retry_failure=retry_failure)[0]

    def _row(self, cell: Any, retry_failure: bool, series: ProbeSeries | None) -> dict[str, Any]:
        with self._guard:  # a thread that asks for a cell another one runs waits for its row
            key_lock = self._key_locks.setdefault(cell.key, threading.Lock())
        with key_lock:
            row = self.stored(cell)
            if self._to_run(cell, row, retry_failure):
                self._retried.add(cell.key)
                self.store.lock_for_runs()
                self._check_machine()
                self.store.put(self._run(cell, series))
                row = self.store.row(cell.key)
                assert row is not None, "a cell just stored"
        if row is None:
            row = {"key": cell.key, "status": MISSING, "error": "not measured: the store has no such cell"}
        self.progress.note(cell.key, row)
        if getattr(cell, "stop_when_heap_full", False):
            self.progress.heap_verdict(cell.key, row)  # Epsilon filled its heap: the cell's answer, not a failed run
        return row

    def _run(self, cell: Any, series: ProbeSeries | None = None) -> CellResult:
        cluster = self.cluster() if series is None else None
        if cluster is not None:
            result = cluster.run(cell)
            self.progress.counted()
            return result
        self.progress.show(f"running {cell.key}")
        result = series.run(cell) if series is not None else self._local(cell)
        ran = self.progress.counted()
        self.progress.show(f"{cell.key}: {result.status} in {result.elapsed_s:.1f} s ({ran} run so far)")
        return result

    def _local(self, cell: Any) -> CellResult:
        """A cell run here: through the run hook, else the engine (run_cell) into the store's runs folder."""
        if self._run_here is not None:
            return self._run_here(cell)
        return run_cell(cell, self.store.runs_dir, timeout_s=default_timeout(cell), progress=False)

    def load(self, key: str) -> CellResult:
        """A stored cell with its records and parsed GC log (kept for this session)."""
        if key not in self._loaded:
            self._loaded[key] = self.store.load(key)
        return self._loaded[key]

    # ---- where cells run ---------------------------------------------------------------------
    def cluster(self) -> Cluster | None:
        """The cluster the cells run on (None: they run here), connected on first use."""
        if self._scheduler is None or self.replay:
            return None
        if self._cluster is None:
            from allocorpool.run.cluster import Cluster

            show = self.progress.show
            self._cluster = self._scheduler if isinstance(self._scheduler, Cluster) else Cluster(
                self._scheduler, store_name=self.store.root.name, show=show)
            self._cluster.progress.show = show
        return self._cluster

    def each(self, work: Callable[[_Item], _Result], items: Sequence[_Item], unit: str) -> list[_Result]:
        """work on every item, results in the items' order: one after the other here; on a cluster, from one
        thread per machine (the items must be independent)."""
        cluster = self.cluster()
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
    def series(self, solution: Solution) -> Iterator[ProbeSeries | None]:
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

    # ---- the door for blocks ------------------------------------------------------------------
    def measure(self, blocks: Sequence[Block], lanes: Sequence[Lane] | None = None) -> list[pd.DataFrame]:
        """Each block's runs in every boot the store holds (read), in the blocks' order, after running what this
        boot lacks of each (nothing in a replay). In the given lanes side by side; else, with a Dask scheduler
        (settings.SCHEDULER_VARIABLE), each whole on one worker machine, in its boot, a block per worker at a
        time (_on_cluster); else, where this machine has several CPU slots (run.slots) and more than one block
        has runs to make, a block per slot at a time on a local Dask cluster started for them and stopped after;
        else one after the other here."""
        cluster = self.cluster() if not self.replay and not lanes else None
        if not self.replay and lanes:
            block_register.side_by_side(blocks, lanes, self._complete)
        elif cluster is not None:
            self._on_cluster(blocks, cluster)
        elif not self.replay:
            self._here(blocks)
        return [self.read(block) for block in blocks]

    def _here(self, blocks: Sequence[Block]) -> None:
        """Runs what this boot lacks of the blocks on this machine: side by side on its CPU slots where it has
        several and more than one block has runs to make; else one after the other."""
        pending = (block for block in blocks if self.pending(block))
        if next(pending, None) is None or next(pending, None) is None:
            for block in blocks:
                self._complete(block)
            return
        from allocorpool.run import slots

        if self._slots is not None and not isinstance(self._slots, int):  # slots already running (a test's)
            block_register.side_by_side(blocks, self._lanes(self._slots), self._complete)
            return
        cpus = slots.cpu_slots(self._slots)
        if len(cpus) < 2:
            for block in blocks:
                self._complete(block)
            return
        self.progress.show(f"starting {len(cpus)} CPU slots: {'; '.join(map(slots.cpus_text, cpus))}")
        with slots.Slots(cpus) as running:
            block_register.side_by_side(blocks, self._lanes(running), self._complete)

    def read(self, block: Block) -> pd.DataFrame:
        """The block's runs in every boot it was registered in (run.blocks.read), each found as stored finds it."""
        return block_register.read(self.store, block, self.stored)

    def pending(self, block: Block, boot: str | None = None) -> bool:
        """Whether measuring the block would run anything in this boot (or the given one: a short boot), or finish
        its registration (never in a replay)."""
        if self.replay:
            return False
        boot = boot or machine.short_boot(self.boot_id())
        registered = block_register.registered(self.store, block).get(boot)
        return not block_register.finished(registered) or any(
            self._to_run(cell, self.stored(cell)) for cell in block.runs(boot))

    def _complete(self, block: Block, lane: Lane | None = None, stop: threading.Event | None = None) -> None:
        """Runs what this boot lacks of the block (in the lane, when given) and registers it; a set stop ends
        it before its next run, unfinished."""
        where = f" ({lane.name})" if lane is not None else ""
        host = lane.host if lane is not None else None  # another machine's: its boot is the block's
        boot_id = host.get("boot_id") if host is not None else self.boot_id()
        boot = machine.short_boot(boot_id)
        runs = block.runs(boot)
        missing = [cell for cell in runs if self._to_run(cell, self.stored(cell))]
        self._retried.update(cell.key for cell in missing)
        registered = block_register.registered(self.store, block).get(boot)
        if not missing and block_register.finished(registered):
            return
        self.store.lock_for_runs()
        if registered is None:
            self.progress.show(f"{block.name}{where}: calibrating {'its' if host else 'this'} boot ({boot})")
            calibrate = lane.calibrate if lane is not None else self.calibrate
            registered = block_register.register_start(self.store, block, boot, boot_id,
                                                       calibrate() if calibrate else {}, host)
        for done, cell in enumerate(missing, 1):
            if stop is not None and stop.is_set():
                return
            self.progress.show(f"{block.name}{where}: run {len(runs) - len(missing) + done} of {len(runs)} "
                               f"({cell.strategy}, repetition {cell.repetition + 1})")
            self.store.put(lane.run(cell) if lane is not None else self._local(cell))
            self.progress.counted()
        block_register.register_end(self.store, block, registered)

    def _lanes(self, running: Slots) -> list[Lane]:
        """A lane per slot: its runs go to the slot's worker; its calibration's reference cell too, and the
        memory's latency is timed from the lane's thread held to the slot's CPUs."""
        from allocorpool.run.slots import cpus_text, hold_thread_to

        def lane(slot: int) -> Lane:
            def run(cell: Cell) -> CellResult:
                self.progress.show(f"running {cell.key} on {cpus_text(running.cpus[slot])}")
                return running.run(cell, slot, self.store.runs_dir)

            def calibrate() -> dict[str, Any]:  # each lane's reference run in its own folder: they run at once
                hold_thread_to(running.cpus[slot])
                return calibration.calibrate(self.profile, lambda cell: running.run(
                    cell, slot, self.store.runs_dir / "calibration" / f"slot-{slot}"),
                    folder=self.store.runs_dir / "calibration")
            return Lane(cpus_text(running.cpus[slot]), run, calibrate)
        return [lane(slot) for slot in range(len(running))]

    def _on_cluster(self, blocks: Sequence[Block], cluster: Cluster) -> None:
        """Runs what the workers' boots lack of the blocks, a lane per worker machine (run.cluster: its runs and its
        calibration pinned to that worker, its boot that machine's): a block finished in a worker's boot is not run
        again; one started there goes back to that worker where it can (it resumes), else it runs whole elsewhere."""
        hosts = cluster.hosts()
        if not hosts:
            from allocorpool.run.cluster import ClusterError

            raise ClusterError(f"the scheduler at {cluster.address} has no worker left to run blocks on")
        names = {address: str(info.get("name", address)) for address, info in cluster.workers().items()}
        boots = {address: machine.short_boot(facts.get("boot_id")) for address, facts in hosts.items()}
        todo = [block for block in blocks if all(self.pending(block, boot) for boot in boots.values())]
        if not todo:
            return

        def lane(address: str) -> Lane:
            def run(cell: Cell) -> CellResult:
                self.progress.show(f"running {cell.key} on {names.get(address, address)}")
                return cluster.run_on(cell, address)
            return Lane(f"worker {names.get(address, address)}", run,
                        lambda: cluster.calibrate_on(address, self.profile), host=hosts[address])

        def pick(lane: Lane, waiting: Sequence[Block]) -> int:  # begun in the lane's boot first, then a fresh one
            mine = machine.short_boot((lane.host or {}).get("boot_id"))

            def begun(block: Block) -> set[str]:
                return {boot for boot, row in block_register.registered(self.store, block).items()
                        if not block_register.finished(row) and boot in boots.values()}
            return min(range(len(waiting)), key=lambda i: (mine not in begun(waiting[i]), bool(begun(waiting[i]))))
        self.progress.show(f"blocks on {len(hosts)} worker machine{'s' if len(hosts) > 1 else ''}: " + "; ".join(
            f"{names.get(a, a)} ({facts.get('cpus')} CPUs, boot {boots[a]})" for a, facts in hosts.items()))
        block_register.side_by_side(todo, [lane(address) for address in hosts], self._complete, pick)

    def cpus(self) -> int:
        """The CPUs of the machine the blocks run on, which the several-threads experiments choose their thread
        counts from (run.experiments.threads, handoff): this process's (machine.cpus); with a Dask scheduler, the
        smallest worker machine's, read on each worker (a block may go to any of them)."""
        cluster = self.cluster()
        if cluster is None:
            return machine.cpus()
        return min(int(facts.get("cpus") or 1) for facts in cluster.hosts().values())

    # ---- the hooks' defaults --------------------------------------------------------------------
    def _calibrate(self) -> dict[str, Any]:
        """The calibration of a block's start here (run.calibration): the memory's latency and the reference cell."""
        folder = self.store.runs_dir / "calibration"
        return calibration.calibrate(self.profile, lambda cell: run_cell(
            cell, folder, timeout_s=default_timeout(cell), progress=False), folder=folder)

    def _check_machine(self) -> None:
        """The machine check (run.machine_check) before this executor's first run: it records how fast this boot
        runs against the stored runs and says where it differs; it never stops a run. Not on a cluster, whose
        workers run the cells (each would need its own check)."""
        with self._guard:
            if self._machine_checked:
                return
            self._machine_checked = True
        if machine_check.mode() == "off" or not self.profile.machine_check or self.cluster() is not None:
            return
        if machine_check.recent_pass(self.store.root, datetime.now(timezone.utc), machine.boot_id()):
            return
        cells = [batch_cell(lists.SOLUTIONS_BY_NAME[name], strategy, case, self.profile)
                 for name, strategy, case in machine_check.REFERENCE_CELLS]
        self.progress.show(f"machine check: {len(cells)} stored cells run again")
        earlier = machine_check.checks(self.store.root)
        result = machine_check.check(self.store, cells, lambda cell, workdir: run_cell(
            cell, workdir, timeout_s=default_timeout(cell), progress=False))
        differs = machine_check.verdict(result, earlier)
        if differs is None:
            self.progress.show(f"machine check: {machine_check.last_check(self.store.root)}")
        else:
            print(f"note: {differs}", file=sys.stderr)


def _same_as(cell: Any) -> list[str]:
    """The keys of the cell's runs by the builds that measure the same (lists.SAME_MEASUREMENT_BUILDS)."""
    builds = lists.SAME_MEASUREMENT_BUILDS.get(getattr(cell, "engine", ""), {})
    return [f"{cell.measurement}_b{build}" for build in builds] if getattr(cell, "build", "") else []

