"""The machine check: does this machine run now at the speed at which it measured the store?

A host name, CPU model and kernel do not make a speed. In one boot of a virtual machine (same host
name, CPU and kernel as the runs it was compared with) Java's case B batch runs took up to three times
as long as the committed runs of the same cells, JDK 11 G1 the most, while C++'s took the same, so a
cell run then would not be comparable with its neighbours in the tables.

Before a sweep runs its first cell it reruns REFERENCE_CELLS that the store holds (the same cells, not
stored again) and compares their time per packet with the stored runs'. Outside TOLERANCE against runs
of this machine's fingerprint (machine.MACHINE_FIELDS, by which the tables tell machines apart) the sweep
says so and runs them all the same: a sweep in a slow boot measures that boot, and the blocks (run.blocks)
record a calibration of it beside their figures. Against another machine's runs it says so too, and the
tables name both machines. MACHINE_CHECK_VARIABLE=off skips the check. Every check goes to the
store's machine_checks.parquet with the machine's fingerprint; one that refused nothing holds for
VALID_HOURS in this boot, so a sweep's chapters (a kernel each) check once.

Each check also times one dependent load over MEMORY_LATENCY_MIB of memory (cpp-lib's memory_latency),
so that a refusal says whether the cache or the memory answers later than at the last check that passed:
a guest may have the use of only a part of its CPU's last-level cache in a slow boot.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from allocorpool import machine, paths, settings
from allocorpool.data.store import Store, atomic_write
from allocorpool.settings import MACHINE_CHECK_VARIABLE

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
# A ratio of time per packet (now / stored) outside [1 / TOLERANCE, TOLERANCE] fails: above the references' own
# spread within one boot, below the drift between boots the check is for.
TOLERANCE = 1.25
VALID_HOURS = 6.0
MODES = ("record", "off")  # check, record and say what differs (never refusing a run), or do not check
CHECKS_FILE = "machine_checks.parquet"
# Working sets of the load chase: within the last-level cache of this machine's CPU (an EPYC's 16 MiB or more
# per core complex), and far beyond it, where the TLB misses too.
MEMORY_LATENCY_MIB = (16, 1024)
LATENCY_COLUMNS = [f"load_ns_{mib}mib" for mib in MEMORY_LATENCY_MIB]
LATENCY_TIMEOUT_S = 120
COLUMNS = ["checked_utc", "host", "boot_id", "kernel", "cpu_model", "commit", "key", "stored_utc", "stored_boot_id",
           "same_machine", "stored_ns_per_packet", "ns_per_packet", "ratio", "passed", *LATENCY_COLUMNS]


def mode() -> str:
    """MACHINE_CHECK_VARIABLE's value (record unless set); anything else is refused, naming the valid ones."""
    value = settings.machine_check_mode() or MODES[0]
    if value not in MODES:
        raise ValueError(f"{MACHINE_CHECK_VARIABLE}={value!r}: must be one of {', '.join(MODES)}")
    return value


def checks(root: Path) -> pd.DataFrame:
    """Every check recorded in the store at root, oldest first (empty with COLUMNS where none is)."""
    path = root / CHECKS_FILE
    return pd.read_parquet(path).reindex(columns=COLUMNS) if path.is_file() else pd.DataFrame(columns=COLUMNS)


def memory_latency() -> dict[str, float | None]:
    """The time of one dependent load over each of MEMORY_LATENCY_MIB (LATENCY_COLUMNS), from cpp-lib's
    memory_latency; None values where it is not built or did not finish: it explains a verdict, it is not one."""
    program = paths.memory_latency_program()
    measured = dict.fromkeys(LATENCY_COLUMNS)
    if not program.is_file():
        return measured
    try:
        done = subprocess.run([str(program), *map(str, MEMORY_LATENCY_MIB)], capture_output=True, text=True,
                              timeout=LATENCY_TIMEOUT_S, check=True)
    except (OSError, subprocess.SubprocessError):
        return measured
    for line in done.stdout.splitlines():
        row = json.loads(line)
        measured[f"load_ns_{row['mib']}mib"] = float(row["ns_per_load"])
    return measured


def _record(store: Store, rows: list[dict[str, Any]]) -> None:
    table = pd.concat([frame for frame in (checks(store.root), pd.DataFrame(rows, columns=COLUMNS)) if len(frame)],
                      ignore_index=True)
    atomic_write(store.root / CHECKS_FILE, lambda temporary: table.to_parquet(temporary, index=False))


def _refused(rows: pd.DataFrame) -> pd.Series:
    """The rows out of tolerance on the stored runs' machine (as the tables name it): this boot runs at
    another speed than the one that measured the store."""
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
          now: datetime | None = None, latency: Callable[[], dict[str, float | None]] | None = None) -> pd.DataFrame:
    """Reruns each of cells that the store holds a finished run of (cells it lacks are left out) into
    the store's runs folder, records the comparison with the memory's latency (`latency`, memory_latency by
    default) and returns it (no rows: nothing to compare)."""
    now = now or datetime.now(timezone.utc)
    host = machine.host_fingerprint()
    comparable = [(cell, stored) for cell, stored in ((cell, store.latest(cell.measurement)) for cell in cells)
                  if stored is not None and stored["status"] == "ok" and stored.get("ns_per_packet")]
    if not comparable:
        return pd.DataFrame(columns=COLUMNS)
    loads = (latency or memory_latency)()
    rows = []
    for cell, stored in comparable:
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
                     "passed": ratio is not None and 1 / TOLERANCE <= ratio <= TOLERANCE, "ratio": ratio,
                     **loads})
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
            + ("passed" if last["passed"].all() else "found this boot at another speed (recorded; the sweep ran)"
               if _refused(last).any() else "failed against another machine's runs")
            + f": {ratios}.")


def _loads_said(result: pd.DataFrame, passing: pd.DataFrame) -> str:
    """The memory's latency in this check, beside that of the last check that passed (`passing`: the store's
    checks before it), for people."""
    def loads(rows: pd.DataFrame) -> str | None:
        values = rows[LATENCY_COLUMNS].astype(float).iloc[0] if len(rows) else None
        if values is None or values.isna().any():
            return None
        return " and ".join(f"{value:.0f} ns over {_size(mib)}" for mib, value in zip(MEMORY_LATENCY_MIB, values))
    now = loads(result)
    if now is None:
        return "The memory's latency was not measured (build cpp-lib's memory_latency: make cpp)."
    refused_checks = set(passing.loc[_refused(passing), "checked_utc"])  # a check passed when no row of it refused
    passed = passing[~passing["checked_utc"].isin(refused_checks)].dropna(subset=LATENCY_COLUMNS)
    passed = passed[passed["checked_utc"] == passed["checked_utc"].max()] if len(passed) else passed
    then = loads(passed)
    return (f"A dependent load took {now} in this check, against "
            + (f"{then} in the last check that passed ({passed['checked_utc'].iloc[0][:16].replace('T', ' ')} UTC)."
               if then else "no check that passed with them measured."))


def _size(mib: int) -> str:
    return f"{mib // 1024} GiB" if mib % 1024 == 0 else f"{mib} MiB"


def verdict(result: pd.DataFrame, passing: pd.DataFrame | None = None) -> str | None:
    """None when the check found this boot at the store's speed (every cell passed, or failed against another
    machine's runs), else what differed and the memory's latency beside that of the last check that passed among `passing` (the
    store's earlier checks), for people."""
    failed = result[_refused(result)]
    if not len(failed):
        return None
    passing = pd.DataFrame(columns=COLUMNS) if passing is None else passing
    said = "; ".join(f"{row.key}: {row.ns_per_packet:.0f} ns per packet now against {row.stored_ns_per_packet:.0f}"
                     f" stored ({row.ratio:.2f} x)" if pd.notna(row.ratio) else f"{row.key}: did not finish"
                     for row in failed.itertuples())
    return (f"this machine does not run now at the speed at which it measured the store (the same CPU, memory "
            f"and kernel: the tables could not tell its runs apart; tolerance {TOLERANCE:g} x either way): "
            f"{said}. {_loads_said(result, passing)} The sweep runs on and measures this boot: compare its "
            f"blocks with another boot's through their calibrations (the check is recorded in {CHECKS_FILE})")
