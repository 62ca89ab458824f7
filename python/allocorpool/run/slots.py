"""Blocks side by side: the CPUs this process may use, cut into slots, and a local Dask cluster whose
workers each own one slot.

A slot is a set of CPUs that one block at a time runs on, whole (run.blocks: its interleaving, its boot,
its calibration stay as they are). A real-time run pins its clock and its consumer to two CPUs of their
own (runner.cpu_pins), and a batch run's JVM has its collector and compiler threads beside the program,
so a slot has two CPUs (cpu_slots). Below SIDE_BY_SIDE_FROM CPUs there is one slot, every CPU in it, and
blocks run one after the other in the sweep's process, as they always did. settings.SLOTS_VARIABLE
(make's SLOTS) or the executor's `slots=` forces a number of slots: of two CPUs each where there are
enough, else of one each (to measure what a neighbour costs on a small machine, `make interference`).

`Slots` starts one Dask worker per slot on this machine (a nanny each, one thread, the resources
`machine=1` and the slot's own name), so a run sent to a slot runs on that slot's worker and on no other.
The worker's threads, and every engine it starts, are held to the slot's CPUs (run_in_slot). The worker
sends the run's result back; the sweep's process stores it (Store.put, the one writer of the store).
A worker that dies mid-run is restarted by its nanny with the same name, and the scheduler runs the cell
again there: the block goes on in its slot. A cell that has killed its worker more often than the
scheduler's allowed-failures is stored as failed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType

from allocorpool import settings
from allocorpool.data.records import CellResult, RecordReader
from allocorpool.run.runner import Cell, CommandBuilder, default_timeout, engine_command, run_cell

SLOT_CPUS = 2  # a slot's CPUs: a real-time run's clock and consumer, each on its own
SIDE_BY_SIDE_FROM = 4  # CPUs: with fewer, one slot holds them all and blocks run one after the other
MACHINE = "machine"  # the resource a worker has once: one run at a time (as a fleet worker's, run.cluster)
START_TIMEOUT_S = 60.0


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity), in order."""
    return sorted(os.sched_getaffinity(0))


def cpu_slots(forced: int | None = None, cpus: Iterable[int] | None = None) -> list[tuple[int, ...]]:
    """The CPU slots blocks run in: pairs of the usable CPUs (an odd one left over), or one slot of them all
    below SIDE_BY_SIDE_FROM. forced (None: settings.SLOTS_VARIABLE's, else the rule) asks for that many: of
    SLOT_CPUS each where there are enough CPUs, else of one each; 1 is one slot of every CPU."""
    usable = sorted(cpus) if cpus is not None else usable_cpus()
    forced = forced if forced is not None else settings.slots()
    if forced is None:
        if len(usable) < SIDE_BY_SIDE_FROM:
            return [tuple(usable)]
        return [tuple(usable[i:i + SLOT_CPUS]) for i in range(0, len(usable) - SLOT_CPUS + 1, SLOT_CPUS)]
    if forced < 1 or forced > len(usable):
        raise ValueError(f"{forced} slots ({settings.SLOTS_VARIABLE}, make's SLOTS): 1 to {len(usable)}, the CPUs "
                         f"this process may use")
    if forced == 1:
        return [tuple(usable)]
    width = SLOT_CPUS if forced * SLOT_CPUS <= len(usable) else 1
    return [tuple(usable[i * width:(i + 1) * width]) for i in range(forced)]


def slot_name(slot: int) -> str:
    """A slot's worker's name, and the resource that only that worker has."""
    return f"slot{slot}"


def cpus_text(cpus: Sequence[int]) -> str:
    return f"CPU{'s' if len(cpus) > 1 else ''} {','.join(map(str, cpus))}"


def hold_process_to(cpus: Sequence[int]) -> None:
    """Holds every thread of this process to cpus; threads and processes started later inherit it (Linux
    sets a thread's affinity, not a whole process's: each thread is set)."""
    for thread in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(thread), cpus)
        except ProcessLookupError:  # the thread has ended meanwhile
            pass


def hold_thread_to(cpus: Sequence[int]) -> None:
    """Holds the calling thread alone to cpus (on Linux pid 0 names the calling thread); what it starts from
    then on inherits them."""
    os.sched_setaffinity(0, cpus)


def run_in_slot(cell: Cell, cpus: tuple[int, ...], workdir: str, command: CommandBuilder) -> CellResult:
    """On a slot's worker: holds the worker to the slot's CPUs (the engine inherits them), then runs the cell."""
    hold_process_to(cpus)
    return run_cell(cell, Path(workdir), timeout_s=default_timeout(cell), progress=False, build=command)


class Slots:
    """A local Dask cluster of one worker per CPU slot (see the module's doc); a context manager that stops it."""

    def __init__(self, cpus: Sequence[Sequence[int]], *, command: CommandBuilder = engine_command) -> None:
        from distributed import Client, Nanny, Scheduler, SpecCluster

        self.cpus = [tuple(slot) for slot in cpus]
        self.command = command
        quiet = {"host": "127.0.0.1", "dashboard": False, "dashboard_address": None}
        workers = {slot_name(i): {"cls": Nanny, "options": {
            **quiet, "nthreads": 1, "memory_limit": 0, "silence_logs": logging.ERROR,
            "resources": {MACHINE: 1, slot_name(i): 1}}} for i in range(len(self.cpus))}
        self.cluster = SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {**quiet, "port": 0}},
                                   silence_logs=logging.ERROR, name="allocorpool slots")
        try:
            self.client = Client(self.cluster, set_as_default=False)
            self.client.wait_for_workers(len(self.cpus), timeout=START_TIMEOUT_S)
        except BaseException:
            self.cluster.close()
            raise

    def __len__(self) -> int:
        return len(self.cpus)

    def run(self, cell: Cell, slot: int, workdir: Path) -> CellResult:
        """A cell's result, run on the slot's worker (its raw files to workdir)."""
        from distributed import KilledWorker

        name = slot_name(slot)
        future = self.client.submit(run_in_slot, cell, self.cpus[slot], str(workdir), self.command,
                                    resources={MACHINE: 1, name: 1}, pure=False)
        try:
            return future.result()
        except KilledWorker as error:
            why = (f"the worker of {name} ({cpus_text(self.cpus[slot])}) died while it ran {cell.key}, more often "
                   f"than the scheduler's allowed-failures ({error.allowed_failures})")
            return CellResult(cell, "error", None, why, 0.0, RecordReader().run())
        finally:
            future.release()

    def close(self) -> None:
        self.client.close()
        self.cluster.close()

    def __enter__(self) -> Slots:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
