"""The article's Methods appendix: the profile's sizes, the solutions shown, the stored runs behind the
figures (their number, engine time, machines, boots and dates), the blocks' calibrations, the engine builds,
the machine checks and the commits. Tables, not enumerations; no cell key, file or column name."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from allocorpool import machine, paths, study
from allocorpool.analysis import blocks as block_figures
from allocorpool.data import reference
from allocorpool.data.store import Store
from allocorpool.run import calibration, machine_check


def markdown_table(rows: list[dict[str, object]]) -> str:
    """Rows as a markdown table (its columns from the first row's keys)."""
    if not rows:
        return ""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]).replace("|", "/") for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def sizes(prof: study.Profile) -> str:
    heap = study.SOLUTIONS_BY_NAME["parallel-11"]
    native = study.SOLUTIONS_BY_NAME["native-parallel-11"]
    share = prof.capture_delay_ms / study.MAX_CAPTURING_DELAY_MS
    rows = [{"what": "every count of the model (pool, mix pool, internal queue, store)",
             "here": f"{prof.scale:g} x the article's"},
            {"what": "Java heap", "here": f"{heap.heap_mb(prof.scale):,} MB (the article's 2 GB x {prof.scale:g})"},
            {"what": "Java heap with native buffers", "here": f"{native.heap_mb(prof.scale):,} MB"},
            {"what": "the big-heap column", "here": f"{heap.big_heap_mb(prof.scale):,} MB"},
            {"what": "input queue", "here": f"{prof.capture_delay_ms:g} ms of ticks (the article's "
                                            f"{study.MAX_CAPTURING_DELAY_MS} ms x {share:g}, as the pauses scale)"}]
    return f"Profile **{prof.name}**: {prof.description}.\n\n" + markdown_table(rows)


def machines(index: pd.DataFrame) -> str:
    groups = index.groupby(list(machine.MACHINE_FIELDS), dropna=False)
    rows = [{"CPU": machine.cpu_name(cpu), "CPUs": int(cpus), "memory": f"{memory / 2**30:.1f} GB", "kernel": kernel,
             "runs": f"{len(cells):,}", "engine time": f"{cells['elapsed_s'].sum() / 3600:.1f} h"}
            for (cpu, cpus, memory, kernel), cells in groups]
    dates = pd.to_datetime(index["stored_utc"])
    boots = index["boot_id"].nunique() if "boot_id" in index else 0
    unrecorded = int(index["boot_id"].isna().sum()) if "boot_id" in index else len(index)
    said = (f"The runs were stored from {dates.min():%Y-%m-%d} to {dates.max():%Y-%m-%d} (UTC), in {boots} recorded "
            f"boot{'s' if boots != 1 else ''}" + (f"; {unrecorded} ran before boots were recorded" if unrecorded else "")
            + ". A machine can run at another speed after a reboot, so each block records its boot.")
    return markdown_table(rows) + "\n\n" + said


def calibrations(root: Path) -> str:
    """Per boot (the key of the chapters' machine 1..n): its CPU, how many blocks started there, and the
    calibration each block recorded at its start."""
    blocks = Store(root).table("blocks") if (root / "cells").is_dir() else pd.DataFrame()
    if not len(blocks):
        return "No block is registered in this store: every figure is a single run."

    def span(values: pd.Series) -> str:
        values = pd.to_numeric(values, errors="coerce").dropna()
        if values.empty:
            return "—"
        low, high = f"{values.min():,.0f}", f"{values.max():,.0f}"
        return low if low == high else f"{low}-{high}"
    names = block_figures.machine_names(blocks, Store(root).index)
    rows = [{"machine": names.get(str(boot), ""), "boot": boot, "CPU": machine.cpu_name(part["cpu_model"].iloc[0]),
             "kernel": part["kernel"].iloc[0], "blocks": len(part),
             "load over 16 MiB, ns": span(part["load_ns_16mib"]), "load over 1 GiB, ns": span(part["load_ns_1024mib"]),
             "reference run, ns per packet": span(part["reference_ns_per_packet"])}
            for boot, part in blocks.groupby("boot", sort=False)]
    rows.sort(key=lambda row: int(row["machine"].split()[-1]) if row["machine"] else 0)
    name, strategy, case = calibration.REFERENCE
    reference_run = f"{study.SOLUTIONS_BY_NAME[name].label}, {study.STRATEGY_LABELS[strategy].lower()}, case {case}"
    return ("Each block records the machine's calibration at its start: a dependent load's latency over 16 MiB "
            f"and 1 GiB, and a short reference run ({reference_run}).\n\n" + markdown_table(rows))


def builds(index: pd.DataFrame) -> str:
    """The engine builds other than this checkout's that measured the cells shown: those listed as measuring the
    same (a sweep takes their cells as its own) and the others (a sweep measures those cells again)."""
    cells = index[index["build"].fillna("").astype(str) != ""] if "build" in index else index.iloc[:0]
    cells = cells.sort_values("stored_utc", kind="stable").groupby("measurement").tail(1)
    rows = []
    for (engine, build), part in cells.groupby(["engine", "build"]):
        if build == paths.engine_build(engine):
            continue
        same = study.SAME_MEASUREMENT_BUILDS.get(engine, {}).get(build)
        rows.append({"engine": "Java" if engine == "java" else "C++", "build": build, "cells": len(part),
                     "a sweep": "takes them as its own" if same else "measures them again",
                     "what changed after it": same or study.MEASUREMENT_CHANGE})
    if not rows:
        return "Every cell shown was measured by this checkout's engine builds."
    return "Some cells shown were measured by earlier engine builds:\n\n" + markdown_table(rows)


def checks(root: Path) -> str:
    done = machine_check.checks(root)
    if not len(done):
        return ""
    last = done[done["checked_utc"] == done["checked_utc"].iloc[-1]]
    ratios = pd.to_numeric(last["ratio"], errors="coerce").dropna()
    count = done["checked_utc"].nunique()
    spread = f"{ratios.min():.2f}-{ratios.max():.2f} x" if len(ratios) else "no finished run"
    return (f"Before blocks, a sweep ran a few stored cells again to see whether the machine ran at their speed; "
            f"{count} such check{'s are' if count != 1 else ' is'} recorded. The last, on "
            f"{last['checked_utc'].iloc[0][:10]}, ran them at {spread} their stored time.")


def commits(index: pd.DataFrame) -> str:
    """The commits, folded, each as code: identifiers a reader may copy, not a sentence to read."""
    found = sorted(index["commit"].dropna().astype(str).unique())
    dirty = sum(commit.endswith("-dirty") for commit in found)
    said = (f"{dirty} of the {len(found)} builds carried changes not yet committed (marked -dirty): no one can "
            "rebuild them exactly, and their runs count as the others do.\n\n") if dirty else ""
    return (f"{said}<details><summary>The checkout's commits the runs were made from ({len(found)})</summary>\n\n"
            f"{', '.join(f'`{commit}`' for commit in found)}\n\n</details>")


def appendix(profile_name: str, data_dir: str, read: set[str] | None = None, selection: str | None = None,
             solutions_said: str = "") -> str:
    """The whole appendix as markdown (read: the keys the chapters read; None: the whole store)."""
    prof = study.profile(profile_name)
    root = Path(data_dir) if data_dir else paths.data_dir() / prof.name
    parts = [sizes(prof)] + ([solutions_said] if solutions_said else [])
    index = Store(root).index if (root / "cells").is_dir() else pd.DataFrame()
    if len(index) and read is not None:
        stored = len(index)
        index = index[index["key"].isin(read)]
        parts.append(f"The chapters read {len(index):,} of the {stored:,} runs the store holds: "
                     f"{index['elapsed_s'].sum() / 3600:.1f} h of engine time, each run's own wall time.")
    if len(index):
        parts += [machines(index), calibrations(root), builds(index), checks(root), commits(index)]
    else:
        parts.append("The store holds no run: nothing was measured.")
    parts.append(f"The article's own figures (2019: dual Xeon E5-2620 v3, Java 8 and 11) stand beside ours, "
                 f"labelled \"{reference.REFERENCE}\".")
    return "\n\n".join(part for part in parts if part)
