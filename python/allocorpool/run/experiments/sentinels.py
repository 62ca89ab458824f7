"""The miniature chapter's experiments (chapter 12): the sentinel cells (lists.SENTINELS) whose batch
runs, searches and long runs at 1000 ns show whether a small profile is a true miniature of the
article's sizes."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from allocorpool import lists
from allocorpool.analysis.search import loses_at_reference
from allocorpool.data.tables import BATCH_COLUMNS, LONG_RUN_COLUMNS, SOLUTION_COLUMNS, Searches, machine_name, recorded, value
from allocorpool.lists import REALTIME_STRATEGIES, REFERENCE_NS, Solution
from allocorpool.run.cells import probe_cell
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.batch import batch_row
from allocorpool.run.experiments.realtime import searches
from allocorpool.run.experiments.rows import probe_verdict


def sentinel_cells(ex: Executor, held: Iterable[Solution]) -> list[tuple[Solution, str, str]]:
    """The sentinel cells (lists.SENTINELS) of the solutions held (those the profile and selection hold)."""
    by_name = {s.name: s for s in held}
    jobs = []
    for name, case in lists.SENTINELS:
        if name in by_name and case in ex.profile.cases:
            jobs += [(by_name[name], strategy, case) for strategy in REALTIME_STRATEGIES]
    return jobs


def sentinel_batch(ex: Executor, held: Iterable[Solution]) -> pd.DataFrame:
    """The batch runs of the sentinel cells (run if missing): their longest pauses decide the
    small profiles' input queue (chapter 12)."""
    ex.progress.begin("sentinel batch runs")
    rows = [batch_row(ex, *job) for job in sentinel_cells(ex, held)]
    ex.progress.end(f"{len(rows)} sentinel batch runs")
    return pd.DataFrame(rows, columns=BATCH_COLUMNS)


def sentinels(ex: Executor, held: Iterable[Solution]) -> Searches:
    """The searches of the sentinel cells (lists.SENTINELS) this profile and selection hold."""
    ex.progress.begin("sentinels")
    found = searches(ex, sentinel_cells(ex, held))
    ex.progress.end(f"{len(found.table)} sentinel searches")
    return found


def sentinel_long_runs(ex: Executor, found: Searches, held: Iterable[Solution]) -> pd.DataFrame:
    """One long run at 1000 ns (Profile.long_run_s) of each sentinel search that kept up there: its short
    probes may have missed a collection slower than they are long. A search that lost at 1000 ns has
    seen the loss and needs none. One row per search; loses: at 1000 ns, over the long run or in the search."""
    ex.progress.begin("sentinel long runs")
    searched = found.table.to_dict("records")
    by_name = {s.name: s for s in held}
    duration = ex.profile.long_run_s
    search_loses = [loses_at_reference(r) for r in searched]
    cells = [probe_cell(by_name[r["solution"]], r["strategy"], r["case"], ex.profile, REFERENCE_NS,
                        duration_s=duration) if loses is False else None for r, loses in zip(searched, search_loses)]
    ran = iter(ex.rows([c for c in cells if c is not None], unit="long runs"))
    rows = []
    for search, loses, cell in zip(searched, search_loses, cells):
        row = {**{k: search[k] for k in SOLUTION_COLUMNS}, "search_loses": loses}
        if cell is not None:
            run = next(ran)
            probe = probe_verdict(run, REFERENCE_NS, duration)
            finished = run["status"] == "ok"
            row |= {"long_run_s": duration, "status": run["status"], "lost_pct": probe.lost_pct,
                    "gc_pause_max_ms": recorded(run, "gc_pause_max_ms") if finished else None,
                    "error": None if finished else value(run, "error"), "key": run["key"],
                    "machine": machine_name(run), "loses": (not probe.ok) if finished else None}
        else:
            row["loses"] = row["search_loses"]
        rows.append(row)
    ex.progress.end(f"{sum(c is not None for c in cells)} long runs")
    return pd.DataFrame(rows, columns=LONG_RUN_COLUMNS)
