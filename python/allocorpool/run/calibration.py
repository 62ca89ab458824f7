"""The calibration a block records at its start: how fast this boot runs, to explain, never to refuse.

Two figures: one dependent load over 16 MiB and over 1 GiB of memory (cpp-lib's memory_latency, the
machine check's), and one short batch run of a reference cell (REFERENCE: JDK 11 G1's allocation in case
B, the cell that moved most between boots of one machine). Blocks measured in two boots can then be set
beside the two boots' calibrations: a block that ran 2 x slower in a boot whose reference also ran 2 x
slower measured the boot, not the code.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from allocorpool import machine
from allocorpool.data.store import atomic_write
from allocorpool.lists import SOLUTIONS_BY_NAME
from allocorpool.profiles import Profile
from allocorpool.run import machine_check
from allocorpool.run.cells import batch_cell
from allocorpool.run.runner import Cell, CellResult

REFERENCE = ("g1", "alloc", "B")
# The memory's latency takes some 20 s to time: it is timed once per LATENCY_VALID_S in a boot, and every
# block started within that time records the same figures (the reference cell runs for each block). A store
# keeps the last timing in LATENCY_FILE of its calibration folder, so that the processes of one sweep (a
# notebook each) share it; a process without a folder keeps it in memory.
LATENCY_VALID_S = 1800.0
LATENCY_FILE = "memory-latency.json"
REFERENCE_FILE = "reference.json"  # the last reference run's figure, where the profile lets it stand a while
_latency_cache: dict[str, tuple[float, dict[str, float | None]]] = {}
REFERENCE_MAX_S = 5.0  # the reference run's length: the block's batch runs', at most this
COLUMNS = [*machine_check.LATENCY_COLUMNS, "reference_key", "reference_status", "reference_ns_per_packet"]


def reference_cell(prof: Profile) -> Cell:
    name, strategy, case = REFERENCE
    length = min(prof.blocks.batch_s or prof.batch_s, REFERENCE_MAX_S)
    warmup = min(prof.blocks.batch_warmup_s or prof.batch_warmup_s, length / 2)
    return batch_cell(SOLUTIONS_BY_NAME[name], strategy, case, prof, duration_s=length, warmup_s=warmup)


def calibrate(prof: Profile, run: Callable[[Cell], CellResult],
              latency: Callable[[], dict[str, float | None]] | None = None, folder: Path | None = None) -> dict[str, Any]:
    """This boot's calibration now (COLUMNS): the memory's latency (machine_check.memory_latency unless told;
    shared through `folder` when given) and the reference cell's time per packet, run by `run` and not stored
    as a cell (None where a figure could not be measured: the reference's status says why). Where the profile's
    blocks let a reference stand for a while (BlockPlan.reference_valid_s), a block started within that time of
    an ok reference run in this boot and `folder` records that run's figure."""
    loads = _recent_latency(latency or machine_check.memory_latency, folder)
    cell = reference_cell(prof)
    kept = _recent_reference(cell.key, folder, prof.blocks.reference_valid_s)
    if kept is not None:
        return {**loads, "reference_key": cell.key, "reference_status": "ok", "reference_ns_per_packet": kept}
    result = run(cell)
    summary = (result.run.summary or {}) if result.status == "ok" else {}
    ns = summary.get("ns_per_packet")
    if folder is not None and ns is not None and prof.blocks.reference_valid_s > 0:
        _write(folder, REFERENCE_FILE, {"boot_id": machine.boot_id() or "", "timed_at": time.time(), "key": cell.key,
                                        "ns_per_packet": ns})
    return {**loads, "reference_key": cell.key, "reference_status": result.status, "reference_ns_per_packet": ns}


def _recent_reference(key: str, folder: Path | None, valid_s: float) -> float | None:
    """The time per packet of this boot's last ok reference run of `key` kept in `folder`, when it ran less
    than valid_s ago (else None: it runs again)."""
    if folder is None or valid_s <= 0:
        return None
    kept = _this_boots(folder / REFERENCE_FILE, machine.boot_id() or "")
    if kept is None or kept.get("key") != key:
        return None
    fresh = 0 <= time.time() - float(kept.get("timed_at", -1e18)) <= valid_s
    return float(kept["ns_per_packet"]) if fresh and kept.get("ns_per_packet") is not None else None


def _this_boots(path: Path, boot: str) -> dict[str, Any] | None:
    """What a store's folder keeps in `path`, when this boot wrote it (else None)."""
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and kept.get("boot_id") == boot else None


def _write(folder: Path, name: str, content: dict[str, Any]) -> None:
    atomic_write(folder / name, lambda temporary: temporary.write_text(json.dumps(content)))


def _recent_latency(latency: Callable[[], dict[str, float | None]], folder: Path | None) -> dict[str, float | None]:
    boot = machine.boot_id() or ""
    now = time.time()
    kept = [c for c in (_latency_cache.get(boot), _read_latency(folder / LATENCY_FILE, boot) if folder else None) if c]
    cached = max(kept, key=lambda c: c[0]) if kept else None
    if cached is None or not 0 <= now - cached[0] <= LATENCY_VALID_S:
        cached = (now, latency())
        if folder is not None and any(value is not None for value in cached[1].values()):
            _write(folder, LATENCY_FILE, {"boot_id": boot, "timed_at": now, "figures": cached[1]})
    _latency_cache[boot] = cached
    return dict(cached[1])


def _read_latency(path: Path, boot: str) -> tuple[float, dict[str, float | None]] | None:
    """The timing a store's folder keeps, when it is this boot's (else None: timed again)."""
    kept = _this_boots(path, boot)
    if kept is None or not isinstance(kept.get("figures"), dict):
        return None
    return float(kept["timed_at"]), {column: kept["figures"].get(column) for column in machine_check.LATENCY_COLUMNS}
