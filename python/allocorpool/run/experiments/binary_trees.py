"""The binary-trees experiments (chapter 10): every variant of the shoot-out at each depth of a profile's plan,
its repetitions interleaved, run through the executor (run.executor: the store's lock, its one lookup, replay and
retry; a failed or timed-out run is kept with its stderr tail) and read back as one row per run and one per
variant and depth. What a variant is and how one run is measured is run.binary_trees's. The runs are on this
machine: a cluster's workers run the engines' cells only (run.cluster refuses a cell whose engine build is not
theirs).

binary_trees(executor, ...) is the experiment; sweep(...) is what the chapter calls: it makes the executor of a
profile's store (or the given one) and runs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from allocorpool import paths, profiles, settings
from allocorpool.data.pause_reports import PAUSE_COLUMNS
from allocorpool.data.records import MISSING
from allocorpool.data.store import Store
from allocorpool.run.binary_trees import (
    VARIANTS,
    BinaryTreesCell,
    Variant,
    cells,
    run_cell,
    variant,
    why_unavailable,
)
from allocorpool.run.executor import Executor
from allocorpool.run.progress import Progress
from allocorpool.run.runner import CellResult


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
    make article, only reads): binary_trees through an executor of the profile's store (or the given one)
    whose runs go through `run` (default: run.binary_trees.run_cell with the plan's timeout)."""
    prof = profiles.profile(profile_name or settings.profile_name())
    store = store or Store.chosen(prof.name, data_dir)
    run_one = run or (lambda cell: run_cell(cell, store.runs_dir, prof.binary_trees.timeout_s, programs))
    shown = Progress(progress, "binary-trees", paths.shown(store.root), sink=lambda text: _log(text, progress))
    ex = Executor(store, prof, progress=shown, replay=settings.replaying(), retry_failed=retry_failed, run=run_one)
    return binary_trees(ex, chosen, programs)


def binary_trees(ex: Executor, chosen: Iterable[str] | None = None, programs: Path | None = None) -> Results:
    """Every cell of the executor's profile for the chosen variants (default: all), run where the store lacks it,
    read back as Results. A variant that cannot run here is a row with its reason (in a replay, which reads what
    the store holds whatever this machine has built, only a fixed reason stands)."""
    prof = ex.profile
    wanted = [variant(name) for name in chosen] if chosen is not None else list(VARIANTS)
    reasons = {v.name: v.unavailable if ex.replay else why_unavailable(v, programs) for v in wanted}
    runnable = [v for v in wanted if reasons[v.name] is None]
    todo = cells(prof, runnable)
    stored = {row["key"]: row for row in ex.rows(todo) if row["status"] != MISSING}
    ex.progress.end(f"{len(todo)} binary-trees runs")
    runs = _runs(stored, todo)
    table = summarise(runs, wanted, reasons, prof)
    pauses = _pause_rows(ex.store, runs)
    return Results(prof, runs, table, pauses)


def _runs(rows: dict[str, dict[str, Any]], todo: list[BinaryTreesCell]) -> pd.DataFrame:
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
    """python -m allocorpool.run.experiments.binary_trees [--profile P] [--variant NAME ...]: runs what is missing."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m allocorpool.run.experiments.binary_trees", description=main.__doc__)
    parser.add_argument("--profile", default="quick", choices=sorted(profiles.PROFILES))
    parser.add_argument("--variant", action="append", help="a variant (repeatable; default: all)")
    parser.add_argument("--retry-failed", action="store_true", help="run failed or timed-out cells again")
    parser.add_argument("--list", action="store_true", help="print every variant's name, one per line, and stop")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(v.name for v in VARIANTS))
        return 0
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
