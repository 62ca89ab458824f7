"""Runs the study's cells on a Dask cluster: one cell per worker machine at a time, every result
stored by the one client.

How a cell travels. The executor (run.executor) calls `Cluster.run(cell)` from one of its threads; it
submits `run_on_worker` with the cell to the scheduler under the worker resource `machine=1`.
Every worker has that resource once (`dask worker ADDRESS --nthreads 1 --resources machine=1`, one
worker per machine), so a cell takes a machine whole and no two cells share one: a real-time cell
pins the clock and the consumer to two cores, and any other load there would show up as loss. The
worker checks that its built engine is the one the cell names (Cell.build against
paths.engine_build; "" on both sides passes), runs the cell with the local runner (run_cell) and
sends back an `Attempt`: the CellResult (records, GC events, stderr tail, status) with its
machine's fingerprint. The client stores it (Store.put, the only writer of the store).

Failures. A worker that dies loses only its running cell: the scheduler runs it on another worker
(a cell that has killed more workers than the scheduler's allowed-failures is stored as failed). A
cell that fails (error or timeout) runs once more on another worker, and a second failure is stored
as the cell's failure with both stderr tails; a one-worker cluster stores the first, as a local run
does. A worker with other engine code refuses the cell, which goes to another worker; refused by
every worker, the cell is a failure that says why. A killed client loses nothing stored: the next
sweep reads the store and submits what is missing.

Concurrency is the executor's (Executor.each): independent cells and searches run from as many threads
as there are machines. Each thread prefers a worker of its own, loosely (the scheduler sends the
cell elsewhere when that worker is gone), so that a search's probes, which run one after the other,
run on one machine.

Blocks (run.blocks; Executor.measure). A block runs whole on one worker machine, a lane per worker taking one
block at a time: every run of it is pinned to that worker (`run_on`: workers=[its address], no other), and
so is its calibration (`calibrate_on`: the memory's latency and the reference cell, timed there), and its boot
is the boot of that machine (`hosts`: machine.host_fingerprint read on each worker, as a local block reads it
here). A refused or failed run is stored as it comes back, as a run made here would be: a block's runs never
move to another machine. A worker that dies mid-block ends the measurement (WorkerLost): the block's finished
runs are stored, and measured again later it resumes where it stopped on that machine in the same boot, or runs
again whole in another one. The several-threads experiments take their thread counts from the smallest
worker's CPUs (Executor.cpus).
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from allocorpool import machine, paths
from allocorpool.data.records import RecordReader
from allocorpool.data.store import atomic_write
from allocorpool.profiles import Profile
from allocorpool.run import calibration
from allocorpool.run.queue_bench import run_queue_bench
from allocorpool.run.runner import Cell, CellResult, CommandBuilder, default_timeout, engine_command, run_cell

MACHINE = "machine"  # the worker resource every cell takes whole: `dask worker --resources machine=1`
EVENTS = "allocorpool-cells"  # the topic on which workers say which cell they started
CONNECT_TIMEOUT_S = 30.0
WATCH_S = 5.0  # how often a second attempt checks that a worker it may run on is still there
QUEUE_BENCH_TIMEOUT_S = 1200.0


class ClusterError(RuntimeError):
    """The cluster cannot run the study's cells (no scheduler there, or workers set up otherwise)."""


class WorkerLost(ClusterError):
    """The worker a block runs on left the cluster (its machine or its process died) before a run came back."""


@dataclass
class Attempt:
    """What a worker sends back for a cell: the run's result, or why it refused the cell."""

    worker: str  # its address
    name: str  # its name (`dask worker --name`; the address by default)
    fingerprint: dict[str, Any]  # its machine (machine.fingerprint, from the run's header when there is one)
    result: CellResult | None = None
    refusal: str | None = None

    def label(self) -> str:
        host = self.fingerprint.get("host")
        return f"worker {self.name}" + (f" ({host})" if host and host not in self.name else "")


def run_on_worker(cell: Cell, task: str, runs_dir: str | None, store_name: str,
                  command: CommandBuilder = engine_command) -> Attempt:
    """On a worker: refuses the cell when the built engine is not the cell's, else runs it. Its raw
    files go to runs_dir, or to the worker's own checkout's data/runs/<store name>."""
    from distributed import get_worker

    worker = get_worker()
    name = str(worker.name)
    built = paths.engine_build(cell.engine)
    if built != cell.build:
        facts = machine.host_fingerprint()
        return Attempt(worker.address, name, facts, refusal=(
            f"worker {name} ({facts['host']}) refused {cell.key}: its {cell.engine} engine was built from sources "
            f"{built or '(no id)'}, the cell needs {cell.build or '(no id)'}; build that worker's checkout at the "
            f"cell's commit (make build)"))
    worker.log_event(EVENTS, {"task": task, "cell": cell.key, "name": name})  # the scheduler adds "worker", its address
    folder = Path(runs_dir) if runs_dir else paths.data_dir() / "runs" / store_name
    result = run_cell(cell, folder, timeout_s=default_timeout(cell), progress=False, build=command)
    return Attempt(worker.address, name, machine.fingerprint(result.run.header), result)


def calibrate_on_worker(prof: Profile, name: str, runs_dir: str | None, store_name: str,
                        command: CommandBuilder = engine_command) -> dict[str, Any]:
    """On a worker: the calibration of a block's start on its machine (run.calibration: the memory's latency and
    the reference cell), with the worker's own calibration folder (the reference run in a folder of its name)."""
    folder = (Path(runs_dir) if runs_dir else paths.data_dir() / "runs" / store_name) / "calibration"
    return calibration.calibrate(prof, lambda cell: run_cell(cell, folder / name, timeout_s=default_timeout(cell),
                                                             progress=False, build=command), folder=folder)


def queue_bench_on_worker(pair: str, lengths: list[str], runs_dir: str | None,
                          store_name: str) -> tuple[str | None, str | None, str | None]:
    """On a worker: one half of the queue benchmark (run.queue_bench), as (its JSON Lines, error, stderr tail)."""
    folder = Path(runs_dir) if runs_dir else paths.data_dir() / "runs" / store_name
    path = folder / "queue-bench" / f"{pair}.jsonl"
    path.unlink(missing_ok=True)
    error, stderr = run_queue_bench(pair, path, lengths)
    return (path.read_text(encoding="utf-8") if error is None else None), error, stderr


class Progress:
    """A cluster sweep's progress line: what a phase has done, the cell each worker runs, the time left."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self.show = show
        self._lock = threading.Lock()
        self._local = threading.local()  # the cell runs of this thread
        self._running: dict[str, tuple[str, float]] = {}  # worker name -> (cell key, since)
        self._finished: set[str] = set()  # tasks whose result came back (a late start event is ignored)
        self._unit = "cells"
        self._total = self._done = self._ran = self._runs = self._failed = 0
        self._started = time.monotonic()

    def begin(self, total: int, unit: str) -> None:
        """A phase of the sweep: total items (cells, searches) to go through."""
        with self._lock:
            self._unit, self._total = unit, total
            self._done = self._ran = 0
            self._started = time.monotonic()

    def track(self, work: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """work, counted as one item of the phase when it returns (as one that ran when it ran a cell)."""
        def tracked(item: Any) -> Any:
            before = getattr(self._local, "runs", 0)
            result = work(item)
            with self._lock:
                self._done += 1
                self._ran += getattr(self._local, "runs", 0) > before
                self.show(self._line())
            return result
        return tracked

    def started(self, event: tuple[float, dict[str, Any]]) -> None:
        """A worker's start event (the client's handler of EVENTS)."""
        message = event[1]
        with self._lock:
            if message["task"] in self._finished:
                return
            self._running[message["name"]] = (message["cell"], time.monotonic())
            self.show(f"{message['name']} started {message['cell']}; " + self._line())

    def finished(self, task: str, cell: str, worker: str | None, status: str) -> None:
        """A task's result came back: the cell's status on that worker (None: not known). A failure is shown
        at once; the rest when the item it belongs to is done."""
        self._local.runs = getattr(self._local, "runs", 0) + 1
        with self._lock:
            self._finished.add(task)
            self._runs += 1
            self._failed += status != "ok"
            if worker is not None and self._running.get(worker, ("",))[0] == cell:
                del self._running[worker]
            if status != "ok":
                self.show(f"{cell}: {status}" + (f" on {worker}" if worker else "") + "; " + self._line())

    def _line(self) -> str:
        now = time.monotonic()
        running = ", ".join(f"{worker}: {key} ({now - since:.0f} s)" for worker, (key, since) in sorted(
            self._running.items())) or "nothing"
        left = self._total - self._done
        if not left:
            estimate = "nothing left"
        elif self._ran:
            estimate = f"about {(now - self._started) / self._ran * left / 60:.1f} min left"
        else:
            estimate = "time left not known yet"
        return (f"{self._done}/{self._total} {self._unit} done; {self._runs} cell runs ({self._failed} failed or "
                f"refused); running: {running}; {estimate}")


class Cluster:
    """A Dask scheduler's workers, each a machine that runs one cell at a time (see the module's doc)."""

    def __init__(self, address: str, *, store_name: str = "cluster", runs_dir: str | None = None,
                 command: CommandBuilder = engine_command, show: Callable[[str], None] | None = None,
                 connect_timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        from distributed import Client

        self.address = address
        self.store_name = store_name
        self.runs_dir = runs_dir
        self.command = command
        self.progress = Progress(show or (lambda text: None))
        try:
            self.client = Client(address, set_as_default=False, timeout=connect_timeout_s)
        except OSError as error:
            raise ClusterError(f"no Dask scheduler answers at {address} (ALLOC_OR_POOL_SCHEDULER, make's "
                               f"SCHEDULER): {error}") from None
        self._held: dict[int, str] = {}  # thread id -> the worker it prefers
        self._held_lock = threading.Lock()
        workers = self.workers()
        if not workers:
            raise ClusterError(f"the scheduler at {address} has no worker with the resource {MACHINE}: start one per "
                               f"machine with `dask worker {address} --nthreads 1 --resources {MACHINE}=1`")
        hosts: dict[str, list[str]] = {}
        for info in workers.values():
            hosts.setdefault(info["host"], []).append(str(info["name"]))
        self.shared_hosts = {host: sorted(names) for host, names in hosts.items() if len(names) > 1}
        for host, names in self.shared_hosts.items():
            self.progress.show(f"warning: workers {', '.join(sorted(names))} share the machine {host}: cells that "
                                f"run there at once load each other (start one worker per machine)")
        self.client.subscribe_topic(EVENTS, self.progress.started)

    def workers(self) -> dict[str, dict[str, Any]]:
        """The scheduler's workers by address; refuses a cluster where some lack the machine resource (a cell
        sent there when its preferred worker is gone would never start)."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        lacking = [str(info.get("name", address)) for address, info in workers.items()
                   if (info.get("resources") or {}).get(MACHINE, 0) < 1]
        if lacking:
            raise ClusterError(f"workers {', '.join(sorted(lacking))} of {self.address} lack the resource {MACHINE}=1: "
                               f"start every worker with `--nthreads 1 --resources {MACHINE}=1`, one per machine")
        return dict(workers)

    @property
    def machines(self) -> int:
        return len(self.workers())

    def close(self) -> None:
        self.client.close()

    # ---- one cell --------------------------------------------------------------------------
    def run(self, cell: Cell) -> CellResult:
        """A cell's result from the cluster, as run_cell returns it, with its machine's fingerprint."""
        failed: list[Attempt] = []
        refused: list[Attempt] = []
        for number in itertools.count(1):
            tried = {attempt.worker for attempt in failed + refused}
            fresh = [address for address in self.workers() if address not in tried]
            if tried and not fresh:
                break
            task = f"{cell.key} attempt {number}"
            attempt = self._submit(cell, task, fresh if tried else None)
            if attempt is None:  # the fresh workers went while it waited for them
                break
            if isinstance(attempt, str):  # the workers that ran it died
                return _killed(cell, failed, refused, attempt)
            if attempt.refusal is not None:
                refused.append(attempt)
                self.progress.finished(task, cell.key, attempt.name, "refused")
            else:
                assert attempt.result is not None
                self.progress.finished(task, cell.key, attempt.name, attempt.result.status)
                if attempt.result.status == "ok":  # the attempts before it, if any, stay in its stderr tail
                    return replace(attempt.result, fingerprint=attempt.fingerprint,
                                   stderr_tail=_tails(failed + [attempt], refused) if failed or refused
                                   else attempt.result.stderr_tail)
                failed.append(attempt)
            if len(failed) == 2:
                break
        return _failure(cell, failed, refused)

    def _submit(self, cell: Cell, task: str, among: list[str] | None) -> Attempt | str | None:
        """The answer of a worker (of one among the given ones, when given); when the scheduler gave up on the
        cell after its workers died, why; None when the given workers are gone before one ran it."""
        from distributed import KilledWorker

        prefer = self._preferred(among)
        # the thread's own worker first, elsewhere when it is busy or gone; a second attempt only where it has not
        # been tried (the scheduler would otherwise move it to an idle worker, the one it failed on)
        placement: dict[str, Any] = {"workers": prefer, "allow_other_workers": among is None} if prefer else {}
        future = self.client.submit(run_on_worker, cell, task, self.runs_dir, self.store_name, self.command,
                                    key=task, resources={MACHINE: 1}, pure=False, **placement)
        try:
            while True:
                try:
                    return future.result(timeout=WATCH_S)
                except TimeoutError:
                    if among is not None and not set(among) & set(self.workers()):
                        return None  # a task bound to workers that are gone waits for ever
        except KilledWorker as error:
            self.progress.finished(task, cell.key, None, "killed its workers")
            return (f"the workers that ran {cell.key} died while it ran, more often than the scheduler's "
                    f"allowed-failures ({error.allowed_failures}); the last one was {error.last_worker.address}")
        finally:
            future.release()

    def _preferred(self, among: list[str] | None) -> list[str] | None:
        """Where this thread's next cell should run: the worker the thread holds (one no other thread holds,
        where there is one); for a second attempt, the given workers, the thread's first if among them."""
        alive = list(self.workers())
        ident = threading.get_ident()
        with self._held_lock:
            mine = self._held.get(ident)
            if mine not in alive:  # a new thread, or its worker is gone
                taken = {worker for thread, worker in self._held.items() if thread != ident}
                mine = next((worker for worker in alive if worker not in taken), alive[0] if alive else None)
                self._held[ident] = mine
        if among is None:
            return [mine] if mine is not None else None
        return sorted(among, key=lambda worker: worker != mine) or None

    def release_thread(self) -> None:
        """Frees the calling thread's worker for another thread."""
        with self._held_lock:
            self._held.pop(threading.get_ident(), None)

    # ---- a block's runs, on one worker ------------------------------------------------------------
    def hosts(self) -> dict[str, dict[str, Any]]:
        """Each worker's machine by address: machine.host_fingerprint read on it (its CPUs, its boot)."""
        return dict(self.client.run(machine.host_fingerprint, workers=list(self.workers())))

    def run_on(self, cell: Cell, address: str) -> CellResult:
        """A cell's result, run on that worker and on no other (a block's run), with its machine's fingerprint. A
        refusal or a failure is the cell's stored failure, as a run made here would be; WorkerLost when the worker
        leaves before the result comes back."""
        name = str(self.workers().get(address, {}).get("name", address))
        task = f"{cell.key} on {name} {uuid.uuid4().hex[:8]}"
        attempt = self.on_worker(address, run_on_worker, cell, task, self.runs_dir, self.store_name, self.command,
                                 key=task)
        if attempt.refusal is not None:
            self.progress.finished(task, cell.key, attempt.name, "refused")
            return _failure(cell, [], [attempt])
        assert attempt.result is not None
        self.progress.finished(task, cell.key, attempt.name, attempt.result.status)
        return replace(attempt.result, fingerprint=attempt.fingerprint)

    def calibrate_on(self, address: str, prof: Profile) -> dict[str, Any]:
        """The calibration of a block's start on that worker's machine (calibrate_on_worker)."""
        name = str(self.workers().get(address, {}).get("name", address))
        return self.on_worker(address, calibrate_on_worker, prof, name, self.runs_dir, self.store_name, self.command,
                              key=f"calibration on {name} {uuid.uuid4().hex[:8]}")

    def on_worker(self, address: str, function: Callable[..., Any], *args: Any, key: str) -> Any:
        """function(*args) on that worker alone, taking its machine whole; WorkerLost when the worker leaves first
        (a task bound to a worker that is gone would wait for ever)."""
        from distributed import KilledWorker

        future = self.client.submit(function, *args, key=key, resources={MACHINE: 1}, pure=False,
                                    workers=[address], allow_other_workers=False)
        lost = (f"the worker {address} left the cluster while it ran {key}. What came back before is stored: "
                f"measured again, a block resumes where it stopped on that machine in the same boot (a worker "
                f"started there again), else it runs again whole")
        try:
            while True:
                try:
                    return future.result(timeout=WATCH_S)
                except TimeoutError:
                    if address not in self.workers():
                        raise WorkerLost(lost) from None
        except KilledWorker:
            raise WorkerLost(lost) from None
        finally:
            future.release()

    # ---- the queue benchmark -----------------------------------------------------------------
    def queue_bench(self, pair: str, path: Path, lengths: list[str]) -> tuple[str | None, str | None]:
        """One half of the queue benchmark on a worker (it takes the machine like a cell), written to path."""
        future = self.client.submit(queue_bench_on_worker, pair, lengths, self.runs_dir, self.store_name,
                                    key=f"queue-bench {pair}", resources={MACHINE: 1}, pure=False)
        from distributed import KilledWorker

        try:
            text, error, stderr = future.result(timeout=QUEUE_BENCH_TIMEOUT_S)
        except (KilledWorker, TimeoutError) as failure:
            return f"the {pair} queue benchmark did not end on the cluster: {failure!r}", None
        finally:
            future.release()
        if text is not None:
            atomic_write(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))
        return error, stderr


def _tails(ran: list[Attempt], refused: list[Attempt]) -> str:
    """The refusals, then the stderr tail of each run with where it ran and how it ended (the last run last)."""
    sections = [attempt.refusal or "" for attempt in refused]
    for number, attempt in enumerate(ran, 1):
        assert attempt.result is not None
        sections.append(f"== attempt {number} on {attempt.label()}: {attempt.result.error or 'ok'}\n"
                        f"{attempt.result.stderr_tail.rstrip()}")
    return "\n".join(sections)


def _killed(cell: Cell, failed: list[Attempt], refused: list[Attempt], why: str) -> CellResult:
    """The stored failure of a cell whose workers died running it: what is known of the machine is the
    last worker's address."""
    unknown = dict.fromkeys(machine.FINGERPRINT_FIELDS) | {"host": why.rsplit(" ", 1)[-1]}
    tails = "\n".join(filter(None, [_tails(failed, refused), why]))
    return CellResult(cell, "error", None, tails, 0.0, RecordReader().run(), fingerprint=unknown,
                      attempts=len(failed) + 1)


def _failure(cell: Cell, failed: list[Attempt], refused: list[Attempt]) -> CellResult:
    """The stored failure of a cell: the last failed run with every attempt's stderr tail; refused by every
    worker, a failure that gives the refusals."""
    if failed:
        last = failed[-1]
        assert last.result is not None
        return replace(last.result, stderr_tail=_tails(failed, refused), fingerprint=last.fingerprint,
                       attempts=len(failed))
    return CellResult(cell, "error", None, _tails([], refused), 0.0, RecordReader().run(),
                      refusal=refused[-1].refusal, fingerprint=refused[-1].fingerprint)
