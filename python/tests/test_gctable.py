"""gctable.py: the article's GC table from gc records, from a parsed log, and for a C++ run."""

import math

import pandas as pd
import pytest

from allocorpool.analysis.gctable import gc_stats
from allocorpool.data import gclog
from allocorpool.data.records import read_run


def test_from_gc_records_after_warmup(runs_dir):
    row = gc_stats(read_run(runs_dir / "java-batch.jsonl"))
    assert row["source"] == "records" and row["window_s"] == 3.0 and row["pauses"] == 3  # 24, 18, 22 ms
    assert row["max_pause_ms"] == 24.0
    assert row["avg_pause_ms"] == pytest.approx(64 / 3)
    assert row["gcs_per_s"] == pytest.approx(1.0)
    assert row["gc_fraction_pct"] == pytest.approx(64 / 3000 * 100)
    assert row["live_objects_mil"] == pytest.approx(3.039)
    assert row["gc_ns_per_live_object"] == pytest.approx(64 / 3 * 1e6 / 3_039_000)


def test_from_the_parsed_log_when_there_is_one(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    row = gc_stats(run, gclog.parse(runs_dir / "java-realtime.gc.log"))
    measured = [6.050, 1.802, 185.421, 4.870]  # the log's pauses from t = 2 s on, Remark included
    assert row["source"] == "log" and row["pauses"] == 4 and row["window_s"] == 4.0
    assert row["max_pause_ms"] == 185.421
    assert row["avg_pause_ms"] == pytest.approx(sum(measured) / 4)
    assert row["gc_fraction_pct"] == pytest.approx(sum(measured) / 4000 * 100)
    assert math.isnan(row["live_objects_mil"]) and math.isnan(row["gc_ns_per_live_object"])
    from_records = gc_stats(run)
    assert from_records["pauses"] == 3 and from_records["max_pause_ms"] == 185.0


def test_table_of_mixed_runs(runs_dir):
    batch = read_run(runs_dir / "java-batch.jsonl")
    realtime = read_run(runs_dir / "java-realtime.jsonl")
    cpp = read_run(runs_dir / "cpp-realtime.jsonl")
    table = pd.DataFrame([gc_stats(batch), gc_stats(realtime, gclog.parse(runs_dir / "java-realtime.gc.log")),
                          gc_stats(cpp)])
    assert list(table["engine"]) == ["java", "java", "cpp"]
    assert list(table["strategy"]) == ["pool", "alloc", "pool"]
    assert list(table["source"].fillna("none")) == ["records", "log", "none"]
    assert table.loc[2, "pauses"] == 0 and math.isnan(table.loc[2, "gcs_per_s"])


def test_a_full_gc_inside_a_young_pause_is_one_stop():
    # CMS on JDK 11, promotion failure: GC(7) Pause Young and GC(8) Pause Full end on the same line time
    events = pd.DataFrame({
        "kind": ["pause", "pause", "pause", "concurrent", "pause"],
        "name": ["Pause Young (Allocation Failure)", "Pause Full (Allocation Failure)", "Pause Initial Mark",
                 "Concurrent Mark", "Pause Young (Allocation Failure)"],
        "start_s": [0.417537, 0.417591, 0.5005, 0.51, 0.6],
        "duration_ms": [82.463, 82.409, 0.877, 20.0, 27.3]})
    outer = gclog.outer_pauses(events)
    assert list(outer["name"]) == ["Pause Young (Allocation Failure)", "Pause Initial Mark",
                                   "Pause Young (Allocation Failure)"]
    assert outer["duration_ms"].sum() == pytest.approx(82.463 + 0.877 + 27.3)
