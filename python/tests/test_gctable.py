"""gctable.py and tables.gc_chapter: the GC table from gc records, from real engine runs with
their GC logs on the run's clock (fixtures/gclogs/engine), and for a C++ run."""

import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool.analysis.gctable import COLUMNS, gc_stats, measured_window
from allocorpool.chapters.page import tables
from allocorpool.data import gclog, reference
from allocorpool.data.records import read_run

ENGINE = Path(__file__).resolve().parent / "fixtures" / "gclogs" / "engine"


def _engine(name):
    return read_run(ENGINE / f"{name}.jsonl"), gclog.parse(ENGINE / f"{name}.log")


def _window_events(run, events):
    """The aligned events that start in the run's measured window."""
    start, end = measured_window(run)
    aligned = gclog.align(events, run.header).events
    return aligned[(aligned["t_s"] >= start) & (aligned["t_s"] <= end)]


def test_from_gc_records_after_warmup(runs_dir):
    row = gc_stats(read_run(runs_dir / "java-batch.jsonl"))
    assert row["source"] == "records" and row["window_s"] == 3.0 and row["pauses"] == 3  # 24, 18, 22 ms
    assert row["max_pause_ms"] == 24.0
    assert row["avg_pause_ms"] == pytest.approx(64 / 3)
    assert row["pauses_per_s"] == pytest.approx(1.0)
    assert math.isnan(row["gcs_per_s"]) and math.isnan(row["stops"])  # collections and stops need the log
    assert row["gc_fraction_pct"] == pytest.approx(64 / 3000 * 100)
    assert row["live_objects_mil"] == pytest.approx(3.039)
    assert row["gc_ns_per_live_object"] == pytest.approx(64 / 3 * 1e6 / 3_039_000)


def test_from_the_parsed_log_on_the_runs_clock(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    row = gc_stats(run, gclog.parse(runs_dir / "java-realtime.gc.log"))
    measured = [6.050, 1.802, 185.421, 4.870]  # the log's pauses from t = 2 s on, Remark included
    assert row["source"] == "log" and row["clock"] == gclog.ALIGNED and row["window_s"] == 4.0
    assert row["pauses"] == 4 and row["max_pause_ms"] == 185.421
    assert row["avg_pause_ms"] == pytest.approx(sum(measured) / 4)
    assert row["gc_fraction_pct"] == pytest.approx(sum(measured) / 4000 * 100)
    assert row["collections"] == 4  # GC(3), the concurrent cycle GC(4) with its Remark, GC(5), GC(6)
    assert row["max_stop_ms"] == pytest.approx(185.557)  # the Full GC's safepoint, reaching it included
    assert math.isnan(row["live_objects_mil"]) and math.isnan(row["gc_ns_per_live_object"])
    from_records = gc_stats(run)
    assert from_records["pauses"] == 3 and from_records["max_pause_ms"] == 185.0


@pytest.mark.parametrize("name", ["11-parallel-alloc-C", "17-zgc-alloc-C", "21-zgc-alloc-C"])
def test_the_window_holds_the_pauses_the_engine_recorded_in_it(name):
    """Pause beans (PS Scavenge/MarkSweep, ZGC Pauses): the engine's pause records that start in
    the measured window, on whole milliseconds of the wall clock, and the aligned log's pauses
    in it agree, up to those within the records' resolution of the window's edges."""
    run, events = _engine(name)
    row = gc_stats(run, events)
    start, end = measured_window(run)
    edge = gclog.MATCH_MS / 1000
    aligned = gclog.pauses(gclog.align(events, run.header).events)
    inner = aligned["t_s"].between(start + edge, end - edge).sum()
    outer = aligned["t_s"].between(start - edge, end + edge).sum()
    records = run.gc[(run.gc["kind"] == "pause") & run.gc["t_s"].between(start, end)]
    assert inner <= row["pauses"] <= outer and inner <= len(records) <= outer
    assert row["pauses"] > 0 and outer - inner <= 2


@pytest.mark.parametrize("name,pauses_per_collection", [("17-zgc-alloc-C", 3), ("21-zgc-alloc-C", 3),
                                                        ("11-zgc-alloc-C", 3)])
def test_gc_count_counts_collections_by_gc_id(name, pauses_per_collection):
    run, events = _engine(name)
    row = gc_stats(run, events)
    window = _window_events(run, events)
    ids = set(window.loc[window["kind"] == "pause", "gc_id"])
    assert row["collections"] == pytest.approx(len(ids), abs=1)  # a collection that began before the window
    assert row["gcs_per_s"] == pytest.approx(row["collections"] / row["window_s"])
    assert row["pauses_per_s"] == pytest.approx(row["pauses"] / row["window_s"])
    assert abs(row["pauses"] - pauses_per_collection * row["collections"]) <= 2  # Mark Start, Mark End, Relocate Start


def test_generational_zgc_collections_by_gc_id():
    run, events = _engine("25-zgc-gen-alloc-C")
    row = gc_stats(run, events)
    aligned = gclog.align(events, run.header).events
    start, end = measured_window(run)
    first = aligned[aligned["kind"].isin(["pause", "concurrent"])].groupby("gc_id")["t_s"].min()
    assert row["collections"] == first.between(start, end).sum() > 0  # a collection counts where it began
    assert row["pauses"] >= 3 * row["collections"]  # y: (minor) or Y: and O: (major) phases


def test_a_young_and_a_full_collection_in_one_safepoint_are_two_collections_and_one_stop():
    run, events = _engine("11-parallel-alloc-C")
    aligned = gclog.align(events, run.header).events
    stop = gclog.stops(aligned).query("name.str.contains('Pause Full')", engine="python").iloc[0]
    assert stop["name"] == "Pause Young (Allocation Failure) + Pause Full (Ergonomics)"
    around = replace(run, summary={**run.summary, "window_start_s": stop["t_s"] - 0.001, "measured_s": 0.5})
    row = gc_stats(around, events)  # a window written for the test, around that safepoint
    young_and_full = _window_events(around, events)
    assert row["collections"] == young_and_full["gc_id"].nunique() == row["pauses"] == row["stops"] + 1
    assert row["max_stop_ms"] == pytest.approx(stop["duration_ms"])  # JDK 11's "Total time ... stopped"


def test_cms_promotion_failure_is_one_stop():
    run, events = _engine("11-cms-alloc-C")
    aligned = gclog.align(events, run.header).events
    failed = gclog.stops(aligned).query("name.str.contains(r'\\+')", engine="python")
    assert len(failed) >= 3 and failed["name"].str.startswith("Pause Young").all()
    first = failed.iloc[0]
    around = replace(run, summary={**run.summary, "window_start_s": first["t_s"] - 0.001, "measured_s": 0.01})
    row = gc_stats(around, events)
    assert (row["collections"], row["pauses"], row["stops"]) == (2, 1, 1)  # Young and Full; one pause, one stop
    assert row["max_pause_ms"] == row["avg_pause_ms"]  # the Young pause around the Full GC, once


@pytest.mark.parametrize("name", ["11-zgc-alloc-C", "17-zgc-alloc-C", "21-zgc-gen-alloc-C", "25-zgc-gen-alloc-C"])
def test_stalls_are_a_column_of_their_own(name):
    run, events = _engine(name)
    row = gc_stats(run, events)
    window = _window_events(run, events)
    stalls = window[(window["kind"] == "stall") & window["gc_id"].isna()]
    assert row["stalls"] == len(stalls) > 0
    assert row["stall_total_ms"] == pytest.approx(stalls["duration_ms"].sum())
    assert row["max_stall_ms"] == stalls["duration_ms"].max()
    assert row["max_pause_ms"] == window.loc[window["kind"] == "pause", "duration_ms"].max()
    assert row["max_pause_ms"] < row["max_stall_ms"]  # a stall is never a pause


@pytest.mark.parametrize("name", ["21-zgc-gen-alloc-C", "25-zgc-gen-alloc-C"])
def test_gc_workers_stalls_are_left_out(name):
    run, events = _engine(name)
    aligned = gclog.align(events, run.header).events
    worker = aligned[(aligned["kind"] == "stall") & aligned["gc_id"].notna()].iloc[0]
    around = replace(run, summary={**run.summary, "window_start_s": worker["t_s"] - 0.05, "measured_s": 0.1})
    window = _window_events(around, events)
    stalls = window[window["kind"] == "stall"]
    assert stalls["gc_id"].notna().any()
    assert gc_stats(around, events)["stalls"] == stalls["gc_id"].isna().sum()


def test_a_log_that_cannot_be_aligned_gets_no_figure(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    older = replace(run, header={k: v for k, v in run.header.items() if k != gclog.ORIGIN_FIELD})
    row = gc_stats(older, gclog.parse(runs_dir / "java-realtime.gc.log"))
    assert row["source"] == "log" and row["clock"].startswith("not aligned: the run's header has no")
    assert all(math.isnan(row[c]) for c in ["max_pause_ms", "avg_pause_ms", "gcs_per_s", "gc_fraction_pct",
                                            "pauses_per_s", "stops", "stalls"])


def test_the_window_opens_after_the_fill_phase():
    run, _ = _engine("17-zgc-alloc-C")
    start, end = measured_window(run)
    assert start == run.summary["window_start_s"] > run.header["warmup_s"]
    assert end == pytest.approx(start + run.summary["measured_s"])


def test_table_of_mixed_runs(runs_dir):
    batch = read_run(runs_dir / "java-batch.jsonl")
    realtime = read_run(runs_dir / "java-realtime.jsonl")
    cpp = read_run(runs_dir / "cpp-realtime.jsonl")
    table = pd.DataFrame([gc_stats(batch), gc_stats(realtime, gclog.parse(runs_dir / "java-realtime.gc.log")),
                          gc_stats(cpp)], columns=COLUMNS)
    assert list(table["engine"]) == ["java", "java", "cpp"]
    assert list(table["strategy"]) == ["pool", "alloc", "pool"]
    assert list(table["source"].fillna("none")) == ["records", "log", "none"]
    assert math.isnan(table.loc[2, "pauses"]) and math.isnan(table.loc[2, "gcs_per_s"])


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


def test_gc_chapter_puts_the_articles_columns_beside_ours_and_says_whether_aligned(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    events = gclog.parse(runs_dir / "java-realtime.gc.log")
    older = replace(run, header={k: v for k, v in run.header.items() if k != gclog.ORIGIN_FIELD})
    labels = {"solution": "g1-21", "label": "G1 (JDK 21)", "reference_name": "G1", "strategy_label": "Allocation",
              "case": "B", "strategy": "alloc"}
    gc = pd.DataFrame([{**gc_stats(run, events), **labels},
                       {**gc_stats(older, events), **labels, "case": "C"}])
    table = tables.gc_chapter(gc, reference.gc_table(reference.load())).data
    ours, theirs = reference.OURS, reference.REFERENCE
    row = table.loc[("G1 (JDK 21)", "B", "Allocation")]
    assert row[("GC count / s", ours)] == "1.0" and row[("GC count / s", theirs)] == "5.8"  # the article's G1 B
    assert row[("Max GC pause, ms", ours)] == "185.4"
    assert not any(title == "Pauses / s" for title, _ in table.columns)  # the article has no such column
    stops = tables.gc_stops(gc).data
    row = stops.loc[("G1 (JDK 21)", "B", "Allocation")]
    assert row["Longest stop, ms"] == "185.6" and row["Stalls"] == "0" and row["GC log"] == "on the run's clock"
    unaligned = stops.loc[("G1 (JDK 21)", "C", "Allocation")]
    assert unaligned["GC log"] == "on its own clock"
    assert table.loc[("G1 (JDK 21)", "C", "Allocation")][("Max GC pause, ms", ours)] == ""
