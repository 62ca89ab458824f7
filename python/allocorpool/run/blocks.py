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
calibration (the executor's calibrate hook: the memory's latency and a reference cell): it explains a
block's figures beside another boot's, it never stops a block.

The executor (run.executor.Executor.measure) runs blocks, one after the other, or side by side in lanes
(side_by_side; a lane is a CPU slot of run.slots, or a worker machine of a Dask cluster, run.cluster): each lane
runs one block at a time, whole, its runs and its calibration in that lane, and every result is stored as soon
as it comes back. A worker machine's lane registers the block under that machine's boot and host. The rules
above hold for each block as they do alone. This module holds what a block is, its register in the store and
how its runs are read back.
"""

from __future__ import annotations

import hashlib
import math
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
    """Where one block at a time runs beside other lanes' (a CPU slot, run.slots; a worker machine, run.cluster):
    how a run goes there, how a block's start there is calibrated, and the machine it is when not this one."""

    name: str  # for the progress line: "CPUs 2,3", "worker big-1"
    run: Callable[[Cell], CellResult]
    calibrate: Calibrate | None = None
    # another machine's fingerprint (machine.host_fingerprint, its boot_id among them), read on it: its boot is
    # the boot of the blocks it runs, and the register names it. None: this machine, this boot.
    host: dict[str, Any] | None = None


def registered(store: Store, block: Block) -> dict[str, dict[str, Any]]:
    """The block's rows in the store's register, by boot."""
    table = store.table(BLOCKS_TABLE)
    if not len(table):
        return {}
    mine = table[table["block"] == block.id]
    return {str(row["boot"]): row for row in mine.to_dict("records")}


def register_start(store: Store, block: Block, boot: str, boot_id: str | None,
                   calibration: dict[str, Any], host: dict[str, Any] | None = None) -> dict[str, Any]:
    """Registers a block's start in a boot, with the calibration at its start and the machine it runs on (host:
    its fingerprint; None: this machine); the row registered."""
    row = {**_boot_row(block, boot, boot_id, host), **calibration}
    store.upsert(BLOCKS_TABLE, row, ("block", "boot"))
    return row


def register_end(store: Store, block: Block, row: dict[str, Any]) -> None:
    """Registers that a boot holds every run of the block (at its repetitions, or an earlier boot's more)."""
    row = {**row, "repetitions": max(block.repetitions, int(row.get("repetitions") or 0)), "finished_utc": _now()}
    store.upsert(BLOCKS_TABLE, row, ("block", "boot"))


def finished(row: dict[str, Any] | None) -> bool:
    """Whether a register row says its boot holds every run of its block."""
    return row is not None and _given(row.get("finished_utc"))


def read(store: Store, block: Block, stored: Callable[[Cell], dict[str, Any] | None]) -> pd.DataFrame:
    """One row per run the block asks for in each boot it was registered in: the run's index row (stored(cell):
    the executor's lookup; status MISSING where the store lacks it) with block, boot, cell (the block cell's key),
    repetition, and complete (every run of that boot is stored, finished or failed). A boot's runs beyond the
    block's repetitions (an earlier, longer block) are read too."""
    rows = []
    for boot, row in registered(store, block).items():
        wanted = replace(block, repetitions=max(block.repetitions, int(row.get("repetitions") or 1)))
        boot_rows = []
        for cell in wanted.runs(boot):
            found = stored(cell) or {"key": cell.key, "status": MISSING}
            boot_rows.append({**found, "block": block.id, "block_name": block.name, "boot": boot,
                              "boot_id_registered": row.get("boot_id"),
                              "cell": replace(cell, repetition=0, boot="").key, "repetition": cell.repetition})
        complete = all(r["status"] != MISSING for r in boot_rows)
        rows += [{**r, "complete": complete, "started_utc": row.get("started_utc")} for r in boot_rows]
    return pd.DataFrame(rows)


def side_by_side(blocks: Sequence[Block], lanes: Sequence[Lane],
                 complete: Callable[[Block, Lane, threading.Event], None],
                 pick: Callable[[Lane, Sequence[Block]], int] | None = None) -> None:
    """complete(block, lane, stop) for every block, a thread per lane taking the next block no lane has taken
    (pick: the index of the waiting block a lane takes; None: the first). An error or an interrupt sets stop: the
    runs under way end and are stored, and no other starts."""
    waiting = list(blocks)
    taking = threading.Lock()
    stop = threading.Event()
    errors: list[BaseException] = []

    def work(lane: Lane) -> None:
        try:
            while not stop.is_set():
                with taking:
                    if not waiting:
                        return
                    block = waiting.pop(pick(lane, waiting) if pick is not None else 0)
                complete(block, lane, stop)
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


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _boot_row(block: Block, boot: str, boot_id: str | None, host: dict[str, Any] | None) -> dict[str, Any]:
    host = host or machine.host_fingerprint()
    return {"block": block.id, "name": block.name, "boot": boot, "boot_id": boot_id, "kernel": host["kernel"],
            "host": host["host"], "cpu_model": host["cpu_model"], "cpus": host["cpus"], "commit": host["commit"],
            "repetitions": block.repetitions, "cells": ",".join(cell.key for cell in block.cells),
            "started_utc": _now(), "finished_utc": None}

