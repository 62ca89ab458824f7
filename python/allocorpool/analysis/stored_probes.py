"""Every real-time run the store holds of a configuration, judged as a search judges its probes.

A search (analysis.search) walks a path of intervals, and its result rests on the probes of that path.
The store may hold more runs of the same configuration (solution, strategy, case and sizes): the
repeats of a probe block, the long runs of chapter 12, the probes of an earlier search. A verdict that
says a cell keeps up must not ignore any of them, so the decision chart reads them all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from allocorpool.analysis.search import LATENCY_FIELDS, probe_verdict
from allocorpool.data.keys import build_of, configuration_of
from allocorpool.data.tables import machine_name, value

COLUMNS = ["configuration", "key", "interval_ns", "duration_s", "keeps_up", "lost_pct", *LATENCY_FIELDS, "machine"]


def judged(row: Mapping[str, Any]) -> dict[str, Any]:
    """One stored real-time run as a probe: kept up (True), lost or fell behind (False), or failed (None)."""
    probe = probe_verdict(row, int(row["interval_ns"]), float(value(row, "duration_s") or 0.0))
    return {"configuration": configuration_of(str(row["key"])), "key": row["key"], "interval_ns": probe.interval_ns,
            "duration_s": probe.duration_s, "keeps_up": None if probe.status != "ok" else bool(probe.ok),
            "lost_pct": probe.lost_pct, **{name: getattr(probe, name) for name in LATENCY_FIELDS},
            "machine": machine_name(dict(row))}


def stored_probes(index: pd.DataFrame, probe_keys: Iterable[str], same_builds: Iterable[str] = ()) -> pd.DataFrame:
    """Every real-time run in the store's index of the configurations of probe_keys, at any interval and length,
    in any repetition or boot, made by the builds of those probes or by builds that measure the same."""
    keys = [str(key) for key in probe_keys if key]
    configurations = {configuration_of(key) for key in keys}
    builds = {build for build in map(build_of, keys) if build} | set(same_builds)
    if not configurations or index.empty:
        return pd.DataFrame(columns=COLUMNS)
    runs = index[(index["mode"] == "realtime") & index["interval_ns"].notna()]
    runs = runs[runs["key"].map(configuration_of).isin(configurations)]
    runs = runs[runs["key"].map(lambda key: build_of(key) in builds if build_of(key) else True)]
    return pd.DataFrame([judged(row) for row in runs.to_dict("records")], columns=COLUMNS)


def losses_above(searches: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The searches with what the store says above each loss-free interval found: lost_above_ns, the longest
    interval at or above it where a stored run of the same solution, strategy and case lost (NaN where
    none did), and lost_above_runs, how many such runs. A search that found 40 ns while a run at 1,000 ns
    lost found an interval the store contradicts: a pause the search's probes missed."""
    keys = ["solution", "strategy", "case"]
    marked = searches.assign(lost_above_ns=float("nan"), lost_above_runs=0)
    if not len(searches) or not len(runs):
        return marked
    lost = runs[runs["keeps_up"].eq(False)]
    for index, row in marked[marked["outcome"] == "found"].iterrows():
        mask = pd.Series(True, index=lost.index)
        for key in keys:
            mask &= lost[key] == row[key]
        above = lost[mask & (lost["interval_ns"] >= float(row["interval_ns"]))]
        if len(above):
            marked.loc[index, ["lost_above_ns", "lost_above_runs"]] = [float(above["interval_ns"].max()), len(above)]
    return marked


def contradicted(row: Mapping[str, Any]) -> bool:
    """Whether a stored run that lost at a longer interval contradicts a search's loss-free interval
    (losses_above marks it)."""
    value = row.get("lost_above_ns")
    return row["outcome"] == "found" and value is not None and not pd.isna(value)
