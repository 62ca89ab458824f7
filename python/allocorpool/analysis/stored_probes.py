"""Every real-time run the store holds of a configuration, judged as a search judges its probes.

A search (analysis.search) walks a path of intervals, and its result rests on the probes of that path.
The store may hold more runs of the same configuration (solution, strategy, case and sizes): the
repeats of a probe block, the long runs of chapter 12, the probes of an earlier search. A verdict that
says a cell keeps up must not ignore any of them, so the decision chart reads them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from allocorpool.analysis.search import LATENCY_FIELDS, verdict
from allocorpool.data.keys import configuration_of

COLUMNS = ["configuration", "key", "interval_ns", "duration_s", "keeps_up", "lost_pct", *LATENCY_FIELDS, "machine"]
_BUILD = re.compile(r"_b([0-9a-f]{12})(?:-dirty)?$")


def _value(row: Mapping[str, Any], name: str) -> Any:
    value = row.get(name)
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def build_of(key: str) -> str | None:
    match = _BUILD.search(key)
    return match.group(1) if match else None


def judged(row: Mapping[str, Any]) -> dict[str, Any]:
    """One stored real-time run as a probe: kept up (True), lost or fell behind (False), or failed (None)."""
    interval, duration = int(row["interval_ns"]), float(_value(row, "duration_s") or 0.0)
    capacity = _value(row, "params_input_queue_size")
    summary = {name: _value(row, name) for name in
               ("lost_measured", "measured_packets", "measured_ticks_due", "measured_s", *LATENCY_FIELDS)}
    probe = verdict(row["status"], summary, interval, duration, int(capacity) if capacity is not None else None,
                    _value(row, "error"))
    model, cpus = _value(row, "cpu_model"), _value(row, "cpus")
    return {"configuration": configuration_of(str(row["key"])), "key": row["key"], "interval_ns": interval,
            "duration_s": duration, "keeps_up": None if probe.status != "ok" else bool(probe.ok),
            "lost_pct": probe.lost_pct, **{name: getattr(probe, name) for name in LATENCY_FIELDS},
            "machine": None if model is None or cpus is None else f"{model}, {int(cpus)} CPUs"}


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
