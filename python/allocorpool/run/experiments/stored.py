"""What chapters read from the store beyond its cells' rows: the queue benchmark (chapter 1), the GC logs of
the batch cells (chapter 3) and the machines the cells ran on."""

from __future__ import annotations

from typing import Any

import pandas as pd

from allocorpool import paths
from allocorpool.machine import cpu_name
from allocorpool.analysis import gctable
from allocorpool.data import gclog
from allocorpool.data.records import CellResult, read_run
from allocorpool.data.tables import SOLUTION_COLUMNS
from allocorpool.run.executor import Executor
from allocorpool.run.queue_bench import QUEUE_PAIRS, run_queue_bench


def queue_bench(ex: Executor) -> dict[str, dict[str, Any]]:
    """Both halves of the native queue's benchmark (C++ to C++, C++ to Java), run once per store.
    Per pair: status, error, stderr tail and its probe and result tables."""
    ex.progress.begin("queue")
    folder = ex.store.root / "queue-bench"
    lengths = ["--probe-s", f"{ex.profile.queue_probe_s:g}",
               "--fixed-probe-s", f"{ex.profile.queue_fixed_probe_s:g}"]
    out: dict[str, dict[str, Any]] = {}
    for pair in QUEUE_PAIRS:
        path = folder / f"{pair}.jsonl"
        error = stderr = None
        if not path.is_file():
            ex.store.lock_for_runs()
            ex.progress.show(f"running the {pair} queue benchmark")
            cluster = ex.cluster()  # on a cluster, on a worker: it takes a machine like a cell
            error, stderr = cluster.queue_bench(pair, path, lengths) if cluster is not None \
                else run_queue_bench(pair, path, lengths)
        run = read_run(path) if path.is_file() else None
        results = run.table("result") if run is not None else pd.DataFrame()
        out[pair] = {"status": "ok" if len(results) else "error", "error": error, "stderr_tail": stderr,
                     "probes": run.table("probe") if run is not None else pd.DataFrame(),
                     "result": results}
    ex.progress.show(f"done: the queue benchmark's results are in {paths.shown(folder)}")
    return out


def gc_runs(ex: Executor, batch: pd.DataFrame) -> list[tuple[dict[str, Any], CellResult]]:
    """The finished Java batch cells of the allocating, mixed and pooling strategies, loaded
    (not the baseline's: Epsilon never collects)."""
    chosen = batch[(batch["engine"] == "java") & (batch["status"] == "ok") & (batch["strategy"] != "dummy")
                   & ~batch["baseline"].astype(bool)]
    return [(row, ex.load(row["key"])) for row in chosen.to_dict("records")]


def gc_table(ex: Executor, batch: pd.DataFrame) -> pd.DataFrame:
    """gctable's figures for each finished Java batch cell, with its solution, strategy and case."""
    rows = [{**gctable.gc_stats(result.run, result.gc_events), **{c: row[c] for c in SOLUTION_COLUMNS}}
            for row, result in gc_runs(ex, batch)]
    return pd.DataFrame(rows)


def pauses(ex: Executor, batch: pd.DataFrame) -> pd.DataFrame:
    """Every stop of the world (each once) in the measured windows of those cells' GC logs, on their
    runs' clocks, with their labels; a log that cannot be lined up with its run is left out (the GC
    table says why)."""
    frames = []
    for row, result in gc_runs(ex, batch):
        if result.gc_events is None:
            continue
        alignment = gclog.align(result.gc_events, result.run.header)
        if alignment.events is None:
            continue
        start, end = gctable.measured_window(result.run)
        stops = gclog.stops(alignment.events)
        stops = stops[(stops["t_s"] >= start) & (stops["t_s"] <= end)]
        frames.append(stops.assign(**{c: row[c] for c in SOLUTION_COLUMNS}))
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=gclog.COLUMNS)


def machine(ex: Executor) -> pd.DataFrame:
    """What the stored cells say about the machine and runtimes they ran on."""
    index = ex.store.index
    if not len(index):
        return pd.DataFrame()
    facts = index.assign(memory_gb=(index["memory_bytes"] / 2**30).round(1),
                         cpu_model=index["cpu_model"].map(cpu_name, na_action="ignore"))
    columns = {"cpu_model": "CPU", "cpus": "CPUs", "memory_gb": "memory, GB", "kernel": "kernel",
               "small_machine": "fewer than 4 CPUs", "commit": "commit"}
    runtimes = index.dropna(subset=["jdk_build"]).groupby("jdk")["jdk_build"].agg(
        lambda builds: ", ".join(sorted(set(builds))))
    rows = [{"what": title, "value": ", ".join(str(v) for v in facts[name].dropna().unique())}
            for name, title in columns.items()]
    rows += [{"what": f"JDK {int(jdk)}", "value": build} for jdk, build in runtimes.items()]
    return pd.DataFrame(rows)
