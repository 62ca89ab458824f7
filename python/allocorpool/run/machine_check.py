"""The machine check: does this machine run now at the speed at which it measured the store?

A host name, CPU model and kernel do not make a speed. On "vm" (2026-11-26; same host name, CPU and
kernel as the runs it was compared with) Java's case B batch runs took 1.1 to 3.0 times as long as the
committed runs of the same cells (JDK 11 G1's allocation 3.0, its pooling 2.3, JDK 25 G1 1.6-1.8, JDK 11
CMS and JDK 25 Parallel 1.4, ZGC and Shenandoah 1.2, JDK 11 Parallel 1.1), while C++ jemalloc's took
the same, so a cell run then would not be comparable with its neighbours in the tables.

Before a sweep runs its first cell it reruns REFERENCE_CELLS that the store holds (the same cells, not
stored again) and compares their time per packet with the stored runs'. Outside TOLERANCE against runs
of this machine's fingerprint (machine.MACHINE_FIELDS, by which the tables tell machines apart) the sweep
refuses to run cells (MACHINE_CHECK_VARIABLE=warn runs them anyway, saying so); against another
machine's runs it says so and runs them, and the tables name both machines. Every check goes to the
store's machine_checks.parquet with the machine's fingerprint; one that refused nothing holds for
VALID_HOURS in this boot, so a sweep's chapters (a kernel each) check once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from allocorpool.data.store import Store, atomic_write
from allocorpool.run import machine

if TYPE_CHECKING:
    from allocorpool.run.runner import Cell, CellResult

# (solution, strategy, case) batch cells, in the order they run: the runs that moved most between
# sessions of one machine first (JDK 11 G1, case B), then a collector that barely moved and C++, so
# that a failing check tells a slow machine (every ratio up) from a slow collector.
REFERENCE_CELLS: tuple[tuple[str, str, str], ...] = (
    ("g1", "alloc", "B"),
    ("parallel-11", "alloc", "B"),
    ("cpp-glibc", "alloc", "B"),
)
# A ratio of time per packet (now / stored) outside [1 / TOLERANCE, TOLERANCE] fails. The references' own spread
# within one boot was up to 1.2 x (JDK 11 Parallel 0.94 and 1.14 an hour apart, C++ glibc 1.23; "vm", 2026-11-26);
# the drift the check is for was 1.4 to 3 x.
TOLERANCE = 1.25
VALID_HOURS = 6.0
MACHINE_CHECK_VARIABLE = "ALLOC_OR_POOL_MACHINE_CHECK"
MODES = ("refuse", "warn", "off")  # on a failed check: refuse to run cells, run them saying so, or do not check
CHECKS_FILE = "machine_checks.parquet"
COLUMNS = ["checked_utc", "host", "boot_id", "kernel", "cpu_model", "commit", "key", "stored_utc", "stored_boot_id",
           "same_machine", "stored_ns_per_packet", "ns_per_packet", "ratio", "passed"]


class MachineCheckFailed(RuntimeError):
    """This machine does not run, now, at the speed of the one that measured the store."""


def mode() -> str:
    """MACHINE_CHECK_VARIABLE's value (refuse unless set); anything else is refused, naming the valid ones."""
    value = os.environ.get(MACHINE_CHECK_VARIABLE) or MODES[0]
    if value not in MODES:
        raise ValueError(f"{MACHINE_CHECK_VARIABLE}={value!r}: must be one of {', '.join(MODES)}")
    return value


def checks(root: Path) -> pd.DataFrame:
    """Every check recorded in the store at root, oldest first (empty with COLUMNS where none is)."""
    path = root / CHECKS_FILE
    return pd.read_parquet(path).reindex(columns=COLUMNS) if path.is_file() else pd.DataFrame(columns=COLUMNS)


def _record(store: Store, rows: list[dict[str, Any]]) -> None:
    table = pd.concat([frame for frame in (checks(store.root), pd.DataFrame(rows, columns=COLUMNS)) if len(frame)],
                      ignore_index=True)
    atomic_write(store.root / CHECKS_FILE, lambda temporary: table.to_parquet(temporary, index=False))


def _refused(rows: pd.DataFrame) -> pd.Series:
    """The rows that refuse a sweep: out of tolerance on the stored runs' machine (as the tables name it)."""
    return ~rows["passed"].astype(bool) & rows["same_machine"].astype(object).fillna(True).astype(bool)


def recent_pass(root: Path, now: datetime, boot_id: str | None) -> bool:
    """Whether the last check of this boot within VALID_HOURS of now, in the store at root, refused nothing."""
    done = checks(root)
    if boot_id is None or not len(done):
        return False
    done = done[(done["boot_id"] == boot_id)
                & (pd.to_datetime(done["checked_utc"], utc=True) >= now - timedelta(hours=VALID_HOURS))]
    return bool(len(done)) and not _refused(done[done["checked_utc"] == done["checked_utc"].max()]).any()


def check(store: Store, cells: Sequence[Cell], run: Callable[[Cell, Path], CellResult],
          now: datetime | None = None) -> pd.DataFrame:
    """Reruns each of cells that the store holds a finished run of (cells it lacks are left out) into
    the store's runs folder, records the comparison and returns it (no rows: nothing to compare)."""
    now = now or datetime.now(timezone.utc)
    host = machine.host_fingerprint()
    rows = []
    for cell in cells:
        stored = store.latest(cell.measurement)
        if stored is None or stored["status"] != "ok" or not stored.get("ns_per_packet"):
            continue
        result = run(cell, store.runs_dir / "machine-check")
        summary = (result.run.summary or {}) if result.status == "ok" else {}
        ns = summary.get("ns_per_packet")
        ratio = ns / stored["ns_per_packet"] if ns else None
        same = all(stored.get(name) == host[name] for name in machine.MACHINE_FIELDS)
        rows.append({"checked_utc": now.isoformat(timespec="seconds"), "host": host["host"],
                     "boot_id": host["boot_id"], "kernel": host["kernel"], "cpu_model": host["cpu_model"],
                     "commit": host["commit"], "key": cell.key, "stored_utc": stored.get("stored_utc"),
                     "stored_boot_id": stored.get("boot_id"), "same_machine": same,
                     "stored_ns_per_packet": stored["ns_per_packet"],
                     "ns_per_packet": ns,
                     "passed": ratio is not None and 1 / TOLERANCE <= ratio <= TOLERANCE, "ratio": ratio})
    if rows:
        _record(store, rows)
    return pd.DataFrame(rows, columns=COLUMNS)


def last_check(root: Path) -> str:
    """The store's machine checks for people: how many, and the last one's verdict with its ratios."""
    done = checks(root)
    if not len(done):
        return f"No machine check is recorded in the store ({CHECKS_FILE})."
    last = done[done["checked_utc"] == done["checked_utc"].iloc[-1]]
    ratios = ", ".join(f"{row.key} {row.ratio:.2f} x" if pd.notna(row.ratio) else f"{row.key} did not finish"
                       for row in last.itertuples())
    count = done["checked_utc"].nunique()
    return (f"{count} machine check{'s are' if count > 1 else ' is'} recorded in the store (a sweep reruns stored "
            f"cells before it runs new ones: time per packet now / stored, within {TOLERANCE:g} x either way); the "
            f"last, {last['checked_utc'].iloc[0][:16].replace('T', ' ')} UTC, "
            f"{'passed' if last['passed'].all() else 'failed'}"
            + ("" if last["same_machine"].astype(object).fillna(True).all()
               else " (against another machine's runs: not refused)")
            + f": {ratios}.")


def verdict(result: pd.DataFrame) -> str | None:
    """None when the check refuses nothing (every cell passed, or failed against another machine's runs), else
    what failed, for people."""
    failed = result[_refused(result)]
    if not len(failed):
        return None
    said = "; ".join(f"{row.key}: {row.ns_per_packet:.0f} ns per packet now against {row.stored_ns_per_packet:.0f}"
                     f" stored ({row.ratio:.2f} x)" if pd.notna(row.ratio) else f"{row.key}: did not finish"
                     for row in failed.itertuples())
    return (f"this machine does not run now at the speed at which it measured the store (the same CPU, memory "
            f"and kernel: the tables could not tell its runs apart; tolerance {TOLERANCE:g} x either way): "
            f"{said}. Cells run now would not be comparable with the stored ones; run the sweep when the "
            f"machine is quiet, or set {MACHINE_CHECK_VARIABLE}=warn to run them anyway (the check is recorded "
            f"in {CHECKS_FILE})")
