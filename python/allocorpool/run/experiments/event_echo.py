"""The event echo's experiments (chapter 11): every echo and allocation-loop cell of a profile, run through the
executor (run.executor: the store's lock, its one lookup, replay and retry; a failed or timed-out run is stored
as such) and read back as one row each, a collector a JDK lacks as a row that says so (status "unsupported"),
never a run. What a cell is and how it runs is run.event_echo's. The cells run on this machine: a cluster's
workers run the engines' cells only (run.cluster refuses a cell whose engine build is not theirs).

EchoSweep is what the chapter holds, as Sweep is for the others: a profile's executor over its store, whose own
runner runs the echo's cells; the chapter calls the functions here with sweep.executor.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from allocorpool import paths, profiles, settings
from allocorpool.data.records import MISSING
from allocorpool.data.store import Store
from allocorpool.run import jdks
from allocorpool.run.event_echo import (
    EchoCell,
    allocation_cell,
    echo_cell,
    result_row,
    run_here,
    unsupported_row,
)
from allocorpool.run.executor import Executor
from allocorpool.run.progress import Progress
from allocorpool.run.runner import CellResult


def combinations(prof: profiles.Profile) -> list[tuple[int, str, str | None]]:
    """(JDK, collector, why not) for each of the profile's pairs; why not is None where the JDK has it."""
    out = []
    for jdk, collector in prof.echo.jdk_collectors():
        try:
            jdks.collector_flags(jdk, collector)
            out.append((jdk, collector, None))
        except ValueError as error:
            out.append((jdk, collector, str(error)))
    return out


def echo_cells(prof: profiles.Profile) -> list[EchoCell]:
    """Every echo cell, repetition by repetition: a repetition's runs all come before the next one's."""
    p = prof.echo
    return [echo_cell(prof, jdk, collector, transport, mode, clients, repetition)
            for repetition in range(p.repetitions)
            for jdk, collector, why_not in combinations(prof) if why_not is None
            for transport in p.transports for clients in p.clients for mode in p.modes]


def allocation_cells(prof: profiles.Profile) -> list[EchoCell]:
    return [allocation_cell(prof, jdk, collector, threads, repetition)
            for repetition in range(prof.echo.repetitions)
            for jdk, collector, why_not in combinations(prof) if why_not is None
            for threads in prof.echo.threads]


def _stored(ex: Executor, cells: list[EchoCell]) -> dict[str, dict[str, Any]]:
    """The stored rows of the cells, each run first where the store lacks it (none the store lacks in a replay)."""
    return {row["key"]: row for row in ex.rows(cells) if row["status"] != MISSING}


def echo(ex: Executor) -> pd.DataFrame:
    """Every echo row of the executor's profile: measured (ok, error or timeout) or unsupported."""
    prof = ex.profile
    cells = echo_cells(prof)
    stored = _stored(ex, cells)
    rows = [result_row(cell, stored.get(cell.key)) for cell in cells]
    p = prof.echo
    rows += [unsupported_row("echo", jdk, collector, why_not, transport=transport, mode=mode, clients=clients)
             for jdk, collector, why_not in combinations(prof) if why_not is not None
             for transport in p.transports for clients in p.clients for mode in p.modes]
    return pd.DataFrame(rows, columns=list(rows[0]) if rows else None)


def allocation(ex: Executor) -> pd.DataFrame:
    """Every allocation-loop row of the executor's profile: measured or unsupported."""
    prof = ex.profile
    cells = allocation_cells(prof)
    stored = _stored(ex, cells)
    rows = [result_row(cell, stored.get(cell.key)) for cell in cells]
    rows += [unsupported_row("allocation", jdk, collector, why_not, threads=threads)
             for jdk, collector, why_not in combinations(prof) if why_not is not None
             for threads in prof.echo.threads]
    return pd.DataFrame(rows, columns=list(rows[0]) if rows else None)


class EchoSweep:
    """The event echo's cells under one profile, through an executor over the study's store."""

    def __init__(self, profile_name: str | profiles.Profile | None = None, data_dir: str | Path | None = None,
                 progress: bool = True, retry_failed: bool = False) -> None:
        self.profile = profiles.profile(profile_name or settings.profile_name())
        self.store = Store.chosen(self.profile.name, data_dir)
        shown = Progress(progress, f"event-echo {self.profile.name}", paths.shown(self.store.root),
                         sink=_printer(progress, self.profile.name))
        self.executor = Executor(self.store, self.profile, progress=shown, replay=settings.replaying(),
                                 retry_failed=retry_failed, run=lambda cell: run_here(cell, self.store.runs_dir))

    def load(self, key: str) -> CellResult:
        return self.executor.load(key)


def _printer(enabled: bool, name: str) -> Any:
    """The side study's progress: a printed line per step on the terminal (none when not enabled)."""
    def show(text: str) -> None:
        if enabled:
            print(f"[event-echo {name}] {text}", file=sys.__stderr__, flush=True)
    return show


def pair_name(jdk: int, collector: str) -> str:
    """A JDK and collector pair as the command line names it: '17:g1'."""
    return f"{jdk}:{collector}"


def only_pairs(prof: profiles.Profile, names: list[str]) -> profiles.Profile:
    """The profile with its echo plan cut to the named pairs (pair_name), so that a command measures a pair at a
    time into the profile's store (the cells' keys do not depend on the plan's other pairs). A name the profile
    does not plan is refused with the valid ones."""
    planned = {pair_name(jdk, collector): (jdk, collector) for jdk, collector in prof.echo.jdk_collectors()}
    unknown = [name for name in names if name not in planned]
    if unknown:
        raise ValueError(f"unknown pair {', '.join(unknown)} for profile {prof.name}; valid: {', '.join(planned)}")
    return replace(prof, echo=replace(prof.echo, pairs=tuple(planned[name] for name in names)))


def main(argv: list[str] | None = None) -> int:
    """`python -m allocorpool.run.experiments.event_echo --profile quick`: runs what the store lacks, prints the
    tables; --pair runs one JDK and collector pair's cells only (`make record-echo` measures a pair at a time)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m allocorpool.run.experiments.event_echo", description=main.__doc__)
    parser.add_argument("--profile", default="quick", choices=sorted(profiles.PROFILES))
    parser.add_argument("--data", help="store folder (default: data/<profile>)")
    parser.add_argument("--retry-failed", action="store_true", help="run failed and timed-out cells again")
    parser.add_argument("--pair", action="append", default=[], metavar="JDK:COLLECTOR",
                        help="only this JDK and collector pair (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the profile's pairs, one per line, and stop")
    args = parser.parse_args(argv)
    prof = profiles.profile(args.profile)
    if args.list:
        print("\n".join(pair_name(jdk, collector) for jdk, collector, why_not in combinations(prof) if why_not is None))
        return 0
    try:
        prof = only_pairs(prof, args.pair) if args.pair else prof
    except ValueError as error:
        parser.error(str(error))
    sweep = EchoSweep(prof, args.data, retry_failed=args.retry_failed)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_rows", 500):
        table = echo(sweep.executor)
        print(table[["jdk", "collector", "transport", "clients", "mode", "status", "events_per_s", "rtt_p50_ns",
                     "rtt_p99_ns", "gc_pauses_per_min", "alloc_bytes_per_event"]].to_string(index=False))
        loop = allocation(sweep.executor)
        print(loop[["jdk", "collector", "threads", "status", "ns_per_op", "ops_per_s",
                    "alloc_bytes_per_s"]].to_string(index=False))
    failed = pd.concat([table, loop])
    return 1 if failed["status"].isin(["error", "timeout"]).any() else 0


if __name__ == "__main__":
    sys.exit(main())
