"""The binary-trees shoot-out (seed 002): one program, every allocator and collector, one row each.

What runs (the lists, variants and cells) is run.binary_trees_variants's; how big and how often, a
profile's binary-trees plan (profiles.BinaryTreesPlan); what each runtime reports about its pauses,
data.pause_reports's; the variants and the reports are importable from here too. A
`BinaryTreesCell` is one repetition of one variant at one depth; it goes into the study's store like
the engines' cells (kind "binary-trees", through run.executor; the sweep is run.experiments.binary_trees's),
so a finished repetition is never rerun and a failed or timed-out one is kept with its stderr tail. Repetitions are
interleaved (every variant's first, then every variant's second, ...) so that a slow spell of the
machine does not land on one variant.

Each run is measured from outside: a small launcher (binary-trees/measure) forks the program and
reports its wall time (monotonic clock) and the user and sys time and peak RSS of the rusage that
its wait4 returns; the launcher is there because a program forked from this Python process
would carry the process's peak RSS into its own. Its stdout must be the benchmarks game's
check lines for the depth, exactly, or the run is an error.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from allocorpool import paths
from allocorpool.data.pause_reports import (  # noqa: F401  (the chapter and tests read them here)
    NO_PAUSES,
    PAUSE_COLUMNS,
    PAUSE_PARSERS,
    Pauses,
    allocator_line,
    parse_boehm,
    parse_boehm_and_deallocation,
    parse_d,
    parse_deallocation,
    parse_gctrace,
    parse_jvm,
    parse_nim,
    parse_ocaml,
)
from allocorpool.data.records import Run
from allocorpool.run.binary_trees_variants import (  # noqa: F401  (the chapter and tests read them here)
    JAVA_LEFT_OUT,
    JAVA_MAJORS,
    MARKERS,
    MIN_DEPTH,
    NOT_REPRODUCED,
    REPORT_PREFIX,
    VARIANTS,
    VARIANTS_BY_NAME,
    BinaryTreesCell,
    Variant,
    bin_dir,
    cells,
    command,
    expected_output,
    variant,
    why_unavailable,
)
from allocorpool.run.runner import STDERR_TAIL_CHARS, CellResult

# ---- Versions -----------------------------------------------------------------------------
_TOOLCHAINS = {
    "C": ["gcc", "--version"], "C++": ["g++", "--version"], "Rust": ["rustc", "--version"],
    "Go": ["go", "version"], "OCaml": ["ocamlopt", "-version"], "Nim": ["nim", "--version"],
    "D": ["gdc", "--version"],
}


@cache
def toolchain(language: str) -> str | None:
    """The first line the language's compiler prints of its version (None where it is missing)."""
    argv = _TOOLCHAINS.get(language)
    if argv is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else None


@cache
def crate_version(name: str) -> str | None:
    """A crate's version pinned in binary-trees/rust/Cargo.lock."""
    lock = paths.project_root() / "binary-trees" / "rust" / "Cargo.lock"
    found = re.search(rf'name = "{re.escape(name)}"\nversion = "([^"]+)"', lock.read_text()) if lock.is_file() else None
    return found.group(1) if found else None


def runtime_version(v: Variant, said: str | None) -> str:
    """The allocator's or runtime's version for the record: what the program said, with the pinned
    crate where the program cannot tell."""
    text = said or "unknown"
    if v.name.startswith("rust-dlmalloc"):
        text += f" (dlmalloc {crate_version('dlmalloc')})"
    return text


# ---- Running one cell ----------------------------------------------------------------------
def _stop(pid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0] != 0:
                return
            time.sleep(0.05)


def _tail(path: Path) -> str:
    data = path.read_bytes() if path.is_file() else b""
    return data[-STDERR_TAIL_CHARS:].decode("utf-8", errors="replace")


@dataclass
class Measured:
    """One process, measured by the launcher that forked it."""

    exit_code: int | None
    timed_out: bool
    wall_s: float
    user_s: float | None
    sys_s: float | None
    peak_rss_bytes: int | None


_MEASURED = re.compile(r"^wall_s=([\d.]+) user_s=([\d.]+) sys_s=([\d.]+) maxrss_kb=(\d+) exit=(-?\d+) signal=(\d+)$")


def launcher(programs: Path | None = None) -> Path:
    """binary-trees/measure/measure.c, built with the programs: it forks each one and reports the
    rusage its wait4 returns. Forked from this Python process instead, a program's peak RSS would
    start at this process's (Linux carries ru_maxrss across exec)."""
    path = (programs or bin_dir()) / "measure"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; build it with `make binary-trees`")
    return path


def measure(argv: list[str], env: dict[str, str], stdout: Path, stderr: Path, cwd: Path, timeout_s: float,
            programs: Path | None = None, poll_s: float = 0.02) -> Measured:
    """Runs argv through the launcher in a session of its own (a timeout stops both by their group):
    wall, user and sys time and peak RSS of the program itself."""
    report = stdout.with_suffix(".measured")
    report.unlink(missing_ok=True)
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        started = time.monotonic()
        process = subprocess.Popen([str(launcher(programs)), str(report), *argv], stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=err, cwd=cwd, env=env, start_new_session=True)
    while process.poll() is None:
        if time.monotonic() - started > timeout_s:
            _stop(process.pid)
            process.returncode = -signal.SIGKILL  # reaped by _stop: Popen must not wait for it again
            return Measured(None, True, time.monotonic() - started, None, None, None)
        time.sleep(poll_s)
    found = _MEASURED.match(report.read_text().strip()) if report.is_file() else None
    if found is None:  # the launcher itself failed: its message is in stderr
        return Measured(process.returncode, False, time.monotonic() - started, None, None, None)
    wall, user, sys_, rss_kb, code, _ = found.groups()
    return Measured(int(code), False, float(wall), float(user), float(sys_), int(rss_kb) * 1024)


def run_cell(cell: BinaryTreesCell, workdir: Path, timeout_s: float, programs: Path | None = None,
             build: Callable[[Variant, int, Path | None], list[str]] | None = None) -> CellResult:
    """Runs one repetition and returns it as the store keeps cells: status, rusage figures and pause
    summary in the run's summary, each listed pause in its `pause` table. Never raises for what the
    program does."""
    v = variant(cell.variant)
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    stdout, stderr = workdir / f"{cell.key}.stdout", workdir / f"{cell.key}.stderr"
    gc_log = workdir / f"{cell.key}.gc.log" if v.pauses == "jvm" else None
    if gc_log is not None:
        gc_log.unlink(missing_ok=True)
    header: dict[str, Any] = {"program": "binary-trees", "variant": v.name, "language": v.language,
                              "depth": cell.depth, "repetition": cell.repetition,
                              "compiler": toolchain(v.language), "commit": paths.source_commit()}
    try:
        argv = (build or (lambda var, depth, log: command(var, depth, log, programs)))(v, cell.depth, gc_log)
    except (OSError, ValueError) as error:
        return CellResult(cell, "error", None, str(error), 0.0, Run(header, {}, None), None, [])
    if v.is_java:
        header.update(vm_flags=argv[1:argv.index("-cp")])
    env = {**os.environ, **dict(v.env)}
    try:
        measured = measure(argv, env, stdout, stderr, workdir, timeout_s, programs)
    except OSError as error:
        return CellResult(cell, "error", None, str(error), 0.0, Run(header, {}, None), None, argv)
    out_text = stdout.read_text(errors="replace") if stdout.is_file() else ""
    err_text = stderr.read_text(errors="replace") if stderr.is_file() else ""
    said = allocator_line(err_text)
    if v.is_java and said:
        header.update(jdk_version=said.rsplit(" ", 1)[-1], vm_name=said.rsplit(" ", 1)[0])
    summary: dict[str, Any] = {"wall_s": measured.wall_s, "user_s": measured.user_s, "sys_s": measured.sys_s,
                               "peak_rss_bytes": measured.peak_rss_bytes, "runtime": runtime_version(v, said)}
    problem = None
    if measured.timed_out:
        problem = f"timed out after {measured.wall_s:.0f} s"
    elif measured.exit_code != 0:
        problem = f"exit code {measured.exit_code}"
    else:
        lines = out_text.splitlines()
        expected = expected_output(cell.depth)
        extra = lines[len(expected):] if v.pauses == "d" else []  # D's runtime prints its profile on stdout
        if lines[:len(expected)] != expected or (v.pauses != "d" and len(lines) != len(expected)):
            problem = f"wrong output: expected {len(expected)} check lines for depth {cell.depth}, got " \
                      f"{lines[:len(expected) + 1]!r}"
        out_text = "\n".join(extra)
    tables: dict[str, pd.DataFrame] = {}
    pauses = None
    if problem is None:
        try:
            pauses = _pauses(v, gc_log, err_text, out_text)
        except (OSError, ValueError) as error:
            problem = f"pause report unreadable: {error}"
    if pauses is not None:
        summary.update(pause_source=pauses.source, pause_count=pauses.count, pause_total_ms=pauses.total_ms,
                       pause_max_ms=pauses.max_ms, collections=pauses.collections,
                       pause_resolution_ms=pauses.resolution_ms)
        if len(pauses.table):
            tables["pause"] = pauses.table
    status = "timeout" if measured.timed_out else ("ok" if problem is None else "error")
    summary.update(status="ok" if problem is None else "error", error=problem)
    tail = _tail(stderr)
    return CellResult(cell, status, measured.exit_code, tail if problem else tail[-400:], measured.wall_s,
                      Run(header, tables, summary), None, argv)


def _pauses(v: Variant, gc_log: Path | None, err_text: str, extra_stdout: str) -> Pauses:
    if v.pauses is None:
        return Pauses(NO_PAUSES)
    if v.pauses == "jvm":
        if gc_log is None or not gc_log.is_file():
            raise ValueError("the JVM wrote no GC log")
        return parse_jvm(gc_log, v.collector)
    return PAUSE_PARSERS[v.pauses](err_text + "\n" + extra_stdout)
