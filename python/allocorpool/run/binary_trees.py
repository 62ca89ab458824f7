"""The binary-trees shoot-out (seed 002): one program, every allocator and collector, one row each.

What runs (the lists, variants and cells) is run.binary_trees_variants's; how big and how often, a
profile's binary-trees plan (profiles.BinaryTreesPlan); what each runtime reports about its pauses,
data.pause_reports's; the variants and the reports are importable from here too. A
`BinaryTreesCell` is one repetition of one variant at one depth; it goes into the study's store like
the engines' cells (kind "binary-trees", through run.executor.run_missing), so a finished repetition
is never rerun and a failed or timed-out one is kept with its stderr tail. Repetitions are
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from allocorpool import paths, profiles, settings
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
from allocorpool.data.store import Store
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
from allocorpool.run.executor import run_missing
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


# ---- The sweep -----------------------------------------------------------------------------
MACHINE = ["host", "cpu_model", "cpus", "memory_bytes", "kernel", "commit"]  # of machine.FINGERPRINT_FIELDS
FIGURES = ["wall_s", "user_s", "sys_s", "peak_rss_bytes", "pause_count", "pause_total_ms", "pause_max_ms",
           "collections"]


@dataclass
class Results:
    """A profile's binary-trees results: every run, and one row per variant and depth."""

    profile: profiles.Profile
    runs: pd.DataFrame  # one row per cell: variant, depth, repetition, status, error, stderr tail, figures
    table: pd.DataFrame  # per variant and depth: medians, spread, runs, failures; unavailable rows too
    pauses: pd.DataFrame  # every listed pause of the finished runs, with variant and depth

    @property
    def failures(self) -> pd.DataFrame:
        """Runs that failed or timed out (a run the store does not hold is no failure: `missing`)."""
        return self.runs[self.runs["status"].notna() & (self.runs["status"] != "ok")]

    @property
    def missing(self) -> pd.DataFrame:
        """Runs of the profile the store does not hold (a replay of a store the sweep has not filled)."""
        return self.runs[self.runs["status"].isna()]


def _log(text: str, progress: bool) -> None:
    if progress:
        print(f"[binary-trees] {text}", file=sys.__stderr__, flush=True)


def sweep(profile_name: str | profiles.Profile | None = None, data_dir: str | Path | None = None,
          chosen: Iterable[str] | None = None, retry_failed: bool = False, progress: bool = True,
          programs: Path | None = None, store: Store | None = None,
          run: Callable[[BinaryTreesCell], CellResult] | None = None) -> Results:
    """Runs every cell of the profile the store lacks (interleaved repetitions) and reads all back (a replay,
    make article, only reads: run.executor.run_missing)."""
    prof = profiles.profile(profile_name or settings.profile_name())
    store = store or Store.chosen(prof.name, data_dir)
    wanted = [variant(name) for name in chosen] if chosen is not None else list(VARIANTS)
    # A replay reads what the store holds, whatever this machine has built: only a fixed reason stands.
    reasons = {v.name: v.unavailable if settings.replaying() else why_unavailable(v, programs) for v in wanted}
    runnable = [v for v in wanted if reasons[v.name] is None]
    todo = cells(prof, runnable)
    started, count = time.monotonic(), 0

    def run_one(cell: BinaryTreesCell) -> CellResult:
        nonlocal count
        count += 1
        _log(f"{cell.key} ...", progress)
        result = (run or (lambda c: run_cell(c, store.runs_dir, prof.binary_trees.timeout_s, programs)))(cell)
        wall = result.run.summary.get("wall_s") if result.run.summary else None
        _log(f"{cell.key}: {result.status}" + (f", {wall:.2f} s" if wall else "") +
             f" ({count} run, {time.monotonic() - started:.0f} s so far)", progress)
        return result

    index = run_missing(todo, store, run=run_one, retry_failed=retry_failed, progress=False) if todo else None
    _log(f"done: {count} run(s) in this session, the rest read from {paths.shown(store.root)}", progress)
    runs = _runs(index, todo)
    table = summarise(runs, [v for v in wanted], reasons, prof)
    pauses = _pause_rows(store, runs)
    return Results(prof, runs, table, pauses)


def _runs(index: pd.DataFrame | None, todo: list[BinaryTreesCell]) -> pd.DataFrame:
    rows = {row["key"]: row for row in index.to_dict("records")} if index is not None else {}
    out = []
    for cell in todo:
        row = rows.get(cell.key, {})
        ok = row.get("status") == "ok"
        out.append({"key": cell.key, "variant": cell.variant, "depth": cell.depth, "repetition": cell.repetition,
                    "status": row.get("status"), "error": row.get("error"), "stderr_tail": row.get("stderr_tail"),
                    "runtime": row.get("runtime"), "compiler": row.get("compiler"), "jdk_build": row.get("jdk_build"),
                    "pause_source": row.get("pause_source"), "pause_resolution_ms": row.get("pause_resolution_ms"),
                    **{name: row.get(name) for name in MACHINE},
                    **{name: (row.get(name) if ok else None) for name in FIGURES}})
    return pd.DataFrame(out, columns=["key", "variant", "depth", "repetition", "status", "error", "stderr_tail",
                                      "runtime", "compiler", "jdk_build", "pause_source", "pause_resolution_ms",
                                      *MACHINE, *FIGURES])


def _first(values: pd.Series) -> Any:
    values = values.dropna()
    return values.iloc[0] if len(values) else None


def summarise(runs: pd.DataFrame, chosen: list[Variant], reasons: dict[str, str | None],
              prof: profiles.Profile) -> pd.DataFrame:
    """One row per variant and depth: medians and spread (min, max) of the finished runs, how many
    ran and failed; variants that cannot run here are rows with their reason and no figures."""
    rows = []
    for v in chosen:
        for depth in prof.binary_trees.depths:
            base = {"variant": v.name, "language": v.language, "label": v.label, "memory": v.memory,
                    "bump_allocation": v.bump_allocation, "mark_sweep": v.mark_sweep, "seed_label": v.seed_label, "jdk": v.jdk,
                    "collector": v.collector, "depth": depth}
            if reasons.get(v.name):
                rows.append({**base, "status": "unavailable", "why": reasons[v.name], "runs": 0, "failed": 0})
                continue
            mine = runs[(runs["variant"] == v.name) & (runs["depth"] == depth)]
            ok = mine[mine["status"] == "ok"]
            failed = mine[mine["status"].notna() & (mine["status"] != "ok")]  # no status: not measured
            row = {**base, "status": "ok" if len(ok) and not len(failed) else ("failed" if len(failed) else "missing"),
                   "why": "; ".join(sorted(set(failed["error"].dropna().astype(str)))) or None,
                   "runs": len(ok), "failed": len(failed), "runtime": _first(mine["runtime"]),
                   "compiler": _first(mine["compiler"]), "pause_source": _first(ok["pause_source"]),
                   "pause_resolution_ms": _first(ok["pause_resolution_ms"])}
            for name in FIGURES:
                values = pd.to_numeric(ok[name], errors="coerce").dropna()
                row[name] = float(values.median()) if len(values) else None
                row[f"{name}_min"] = float(values.min()) if len(values) else None
                row[f"{name}_max"] = float(values.max()) if len(values) else None
            rows.append(row)
    figures = [f"{name}{end}" for name in FIGURES for end in ("", "_min", "_max")]
    table = pd.DataFrame(rows)
    return table.reindex(columns=[*table.columns, *[c for c in figures if c not in table.columns]])


def _pause_rows(store: Store, runs: pd.DataFrame) -> pd.DataFrame:
    finished = runs[(runs["status"] == "ok")]
    keys = set(finished["key"])
    rows = store.rows("pause") if keys else pd.DataFrame()
    if not len(rows):
        return pd.DataFrame(columns=[*PAUSE_COLUMNS, "key", "variant", "depth", "repetition"])
    rows = rows[rows["key"].isin(keys)].reindex(columns=[*PAUSE_COLUMNS, "key"])  # the store drops all-empty columns
    return rows.merge(finished[["key", "variant", "depth", "repetition"]], on="key")


def main(argv: list[str] | None = None) -> int:
    """python -m allocorpool.run.binary_trees [--profile P] [--variant NAME ...]: runs what is missing."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m allocorpool.run.binary_trees", description=main.__doc__)
    parser.add_argument("--profile", default="quick", choices=sorted(profiles.PROFILES))
    parser.add_argument("--variant", action="append", help="a variant (repeatable; default: all)")
    parser.add_argument("--retry-failed", action="store_true", help="run failed or timed-out cells again")
    args = parser.parse_args(argv)
    try:
        prof = profiles.profile(args.profile)
        for name in args.variant or []:
            variant(name)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    results = sweep(prof, chosen=args.variant, retry_failed=args.retry_failed)
    columns = ["label", "depth", "status", "runs", "wall_s", "user_s", "sys_s", "peak_rss_bytes", "pause_max_ms", "why"]
    with pd.option_context("display.width", 200, "display.max_rows", 200, "display.max_colwidth", 60):
        print(results.table[columns].to_string(index=False))
    return 1 if len(results.failures) else 0


if __name__ == "__main__":
    sys.exit(main())
