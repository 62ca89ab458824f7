"""The block: the unit of measurement. The cells one comparison rests on, run in one boot, interleaved.

A Block names the cells a comparison needs (one solution and case: dummy, allocation, mix and pooling,
say) and how many repetitions it takes. In a boot it runs as rounds: each round every cell once, in an
order shuffled per round (seeded by the block, the boot and the round, so that a resumed block keeps
its order), each run a fresh process (Cell.repetition numbers the rounds). Drift within the boot falls
on every cell alike.

A block never mixes boots: its runs carry the boot they ran in (Cell.boot, in their keys), so a block
interrupted and resumed in another boot runs again whole there, and the first boot's runs stay as they
are, a replicate at the boot level (complete or not). In the boot it started in, a block resumes where
it stopped. Each block's start in a boot is registered in the store's `blocks` table with the machine's
calibration (BlockRunner's calibrate hook: the memory's latency and a reference cell): it explains a
block's figures beside another boot's, it never stops a block.

Blocks run one after the other, or side by side in lanes (BlockRunner.measure_all; a lane is a CPU slot
of run.slots): each lane runs one block at a time, whole, its runs and its calibration in that lane, and
every result is stored as soon as it comes back. The rules above hold for each block as they do alone.
"""

from __future__ import annotations

import hashlib
import math
import queue
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from allocorpool import machine
from allocorpool.data.records import MISSING
from allocorpool.data.store import Store
from allocorpool.run.runner import Cell, CellResult

BLOCKS_TABLE = "blocks"
# The register's columns: the block, the boot it ran in, when, and the calibration at its start
REGISTER_COLUMNS = ["block", "name", "boot", "boot_id", "kernel", "host", "cpu_model", "cpus", "commit",
                    "repetitions", "cells", "started_utc", "finished_utc"]


@dataclass(frozen=True)
class Block:
    """The cells of one comparison and the repetitions each takes in a boot."""

    name: str  # what it compares, for people: "batch, Parallel 11, case A"
    cells: tuple[Cell, ...]
    repetitions: int

    def __post_init__(self) -> None:
        if self.repetitions < 1:
            raise ValueError(f"repetitions {self.repetitions!r}: 1 or more")
        if not self.cells:
            raise ValueError("a block needs at least one cell")
        if any(c.repetition or c.boot for c in self.cells):
            raise ValueError("a block's cells are its first repetition outside any boot (repetition 0, boot '')")
        object.__setattr__(self, "cells", tuple(self.cells))

    @property
    def id(self) -> str:
        """What the block measures (its cells' measurements, whichever engine build runs them), not how often:
        more repetitions extend the same block."""
        text = "|".join(sorted(cell.measurement for cell in self.cells))
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    def runs(self, boot: str) -> list[Cell]:
        """Every run of the block in a boot, in the order they run: round by round, each round shuffled."""
        order: list[Cell] = []
        for repetition in range(self.repetitions):
            round_ = [replace(cell, repetition=repetition, boot=boot) for cell in self.cells]
            random.Random(f"{self.id}:{boot}:{repetition}").shuffle(round_)
            order += round_
        return order


Calibrate = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class Lane:
    """Where one block at a time runs beside other lanes' (a CPU slot, run.slots): how a run goes there and
    how a block's start there is calibrated."""

    name: str  # for the progress line: "CPUs 2,3"
    run: Callable[[Cell], CellResult]
    calibrate: Calibrate | None = None


class BlockRunner:
    """Measures blocks into a store: runs the runs of this boot that the store lacks (one at a time,
    through `run`, or a block per lane at once: measure_all), registers the block with its calibration, and
    reads back every boot's runs. Its store is written from the calling thread, or from the lanes' threads."""

    def __init__(self, store: Store, run: Callable[[Cell], CellResult], *, calibrate: Calibrate | None = None,
                 boot_id: Callable[[], str | None] | None = None, replay: bool = False,
                 retry_failed: bool = False, show: Callable[[str], None] | None = None,
                 same_as: Callable[[Cell], list[str]] | None = None) -> None:
        self.store = store
        self.run = run
        self.calibrate = calibrate
        self.boot_id = boot_id or (lambda: machine.boot_id())
        self.replay = replay
        self.retry_failed = retry_failed  # a failed run of this boot runs again, once per runner
        self._retried: set[str] = set()
        self.show = show or (lambda text: None)
        # the keys of other engine builds whose runs measure the same as a run's (lists.SAME_MEASUREMENT_BUILDS)
        self.same_as = same_as or (lambda cell: [])

    def measure(self, block: Block) -> pd.DataFrame:
        """The block's runs in every boot the store holds (see read), after running what this boot lacks
        (nothing in a replay)."""
        if not self.replay:
            self._complete_here(block)
        return self.read(block)

    def measure_all(self, blocks: Sequence[Block], lanes: Sequence[Lane] = ()) -> list[pd.DataFrame]:
        """Every block's runs (see measure), in the blocks' order. Without lanes they run one after the other;
        with lanes, side by side: a thread per lane takes the next block no lane has taken and runs what this
        boot lacks of it, whole, in its lane. Interrupted, the runs under way end and are stored, and no other
        starts: the blocks resume where they stopped."""
        if self.replay or not lanes:
            return [self.measure(block) for block in blocks]
        waiting: queue.SimpleQueue[Block] = queue.SimpleQueue()
        for block in blocks:
            waiting.put(block)
        stop = threading.Event()
        errors: list[BaseException] = []

        def work(lane: Lane) -> None:
            try:
                while not stop.is_set():
                    try:
                        block = waiting.get_nowait()
                    except queue.Empty:
                        return
                    self._complete_here(block, lane, stop)
            except BaseException as error:  # noqa: BLE001 - raised by the calling thread
                errors.append(error)
                stop.set()
        threads = [threading.Thread(target=work, args=(lane,), name=f"blocks on {lane.name}", daemon=True)
                   for lane in lanes]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        if errors:
            raise errors[0]
        return [self.read(block) for block in blocks]

    def _complete_here(self, block: Block, lane: Lane | None = None, stop: threading.Event | None = None) -> None:
        """Runs what this boot lacks of the block (in the lane, when given) and registers it; a set stop ends
        it before its next run, unfinished."""
        run, calibrate = (lane.run, lane.calibrate) if lane is not None else (self.run, self.calibrate)
        where = f" ({lane.name})" if lane is not None else ""
        boot_id = self.boot_id()
        boot = machine.short_boot(boot_id)
        runs = block.runs(boot)
        stored = self._stored()
        missing = [cell for cell in runs if self._to_run(cell, stored)]
        self._retried.update(cell.key for cell in missing)
        registered = self._register(block).get(boot)
        if not missing and registered is not None and _given(registered.get("finished_utc")):
            return
        self.store.lock_for_runs()
        if registered is None:
            self.show(f"{block.name}{where}: calibrating this boot ({boot})")
            registered = {**_boot_row(block, boot, boot_id), **(calibrate() if calibrate else {})}
            self.store.upsert(BLOCKS_TABLE, registered, ("block", "boot"))
        for done, cell in enumerate(missing, 1):
            if stop is not None and stop.is_set():
                return
            self.show(f"{block.name}{where}: run {len(runs) - len(missing) + done} of {len(runs)} ({cell.strategy}, "
                      f"repetition {cell.repetition + 1})")
            self.store.put(run(cell))
        registered = {**registered, "repetitions": max(block.repetitions, int(registered.get("repetitions") or 0)),
                      "finished_utc": _now()}
        self.store.upsert(BLOCKS_TABLE, registered, ("block", "boot"))

    def pending(self, block: Block) -> bool:
        """Whether measuring the block would run anything in this boot, or finish its registration (never in a
        replay)."""
        if self.replay:
            return False
        boot = machine.short_boot(self.boot_id())
        stored = self._stored()
        registered = self._register(block).get(boot)
        return registered is None or not _given(registered.get("finished_utc")) or any(
            self._to_run(cell, stored) for cell in block.runs(boot))

    def _to_run(self, cell: Cell, stored: dict[str, dict[str, Any]]) -> bool:
        """A run of this boot the store lacks, or (retrying failures) holds as failed and this runner has not
        retried yet."""
        row = self._row(cell, stored)
        return row is None or (self.retry_failed and cell.key not in self._retried and row["status"] != "ok")

    def _stored(self) -> dict[str, dict[str, Any]]:
        return self.store.index_rows()

    def _row(self, cell: Cell, stored: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
        """The stored run of a cell: its own key's, else one of a build that measures the same, else (in a
        replay, which shows what the store holds) the newest of its measurement by any build."""
        for key in (cell.key, *self.same_as(cell)):
            if key in stored:
                return stored[key]
        if self.replay:
            return self.store.latest(cell.measurement)
        return None

    def _register(self, block: Block) -> dict[str, dict[str, Any]]:
        """The block's rows in the store's register, by boot."""
        table = self.store.table(BLOCKS_TABLE)
        if not len(table):
            return {}
        mine = table[table["block"] == block.id]
        return {str(row["boot"]): row for row in mine.to_dict("records")}

    def read(self, block: Block) -> pd.DataFrame:
        """One row per run the block asks for in each boot it was registered in: the run's index row (status
        MISSING where the store lacks it) with block, boot, cell (the block cell's key), repetition, and
        complete (every run of that boot is stored, finished or failed). A boot's runs beyond the block's
        repetitions (an earlier, longer block) are read too."""
        stored = self._stored()
        rows = []
        for boot, registered in self._register(block).items():
            wanted = replace(block, repetitions=max(block.repetitions, int(registered.get("repetitions") or 1)))
            boot_rows = []
            for cell in wanted.runs(boot):
                row = self._row(cell, stored) or {"key": cell.key, "status": MISSING}
                boot_rows.append({**row, "block": block.id, "block_name": block.name, "boot": boot,
                                  "boot_id_registered": registered.get("boot_id"),
                                  "cell": replace(cell, repetition=0, boot="").key, "repetition": cell.repetition})
            complete = all(r["status"] != MISSING for r in boot_rows)
            rows += [{**r, "complete": complete, "started_utc": registered.get("started_utc")} for r in boot_rows]
        return pd.DataFrame(rows)


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _boot_row(block: Block, boot: str, boot_id: str | None) -> dict[str, Any]:
    host = machine.host_fingerprint()
    return {"block": block.id, "name": block.name, "boot": boot, "boot_id": boot_id, "kernel": host["kernel"],
            "host": host["host"], "cpu_model": host["cpu_model"], "cpus": host["cpus"], "commit": host["commit"],
            "repetitions": block.repetitions, "cells": ",".join(cell.key for cell in block.cells),
            "started_utc": _now(), "finished_utc": None}

