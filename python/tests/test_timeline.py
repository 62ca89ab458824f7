"""timeline.py: which stops overlap the seconds that lost packets, and what they cost."""

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool.analysis.timeline import loss_timeline, pauses_from_log, pauses_from_records, run_timeline
from allocorpool.data import gclog
from allocorpool.data.records import read_run

ENGINE = Path(__file__).resolve().parent / "fixtures" / "gclogs" / "engine"


def test_the_full_gc_explains_the_lost_second(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    table = run_timeline(run, gclog.parse(runs_dir / "java-realtime.gc.log"))
    assert table.attrs["clock"] is None
    assert set(table["t_s"]) == {4.0} and (table["lost"] == 85_000).all()
    assert len(table) == 3  # the young pause and Remark of the second before, the full pause
    full = table[table["pause_name"] == "stop: Pause Full (G1 Compaction Pause)"].iloc[0]
    assert full["pause_start_s"] == pytest.approx(3.838 - 0.185557 - 0.25)  # its safepoint, on the run's clock
    assert full["est_ticks"] == pytest.approx(185_557)  # the safepoint's 185.557 ms of 1000 ns ticks
    assert full["est_excess_ticks"] == pytest.approx(85_557)  # beyond the 100 ms queue
    assert full["est_excess_ticks"] == pytest.approx(full["lost"], rel=0.01)


def test_a_log_that_cannot_be_aligned_gives_way_to_the_records(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    older = replace(run, header={k: v for k, v in run.header.items() if k != gclog.ORIGIN_FIELD})
    table = run_timeline(older, gclog.parse(runs_dir / "java-realtime.gc.log"))
    assert table.attrs["clock"].startswith("not aligned: the run's header has no clock_origin_nanotime")
    assert list(table["pause_source"]) == ["records", "records"]


def test_from_records_without_a_log(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    table = run_timeline(run)
    assert list(table["pause_source"]) == ["records", "records"]
    assert list(table["pause_ms"]) == [6.0, 185.0]  # the G1 Concurrent GC cycle is not a pause


def test_one_safepoint_is_one_stop_and_only_the_consumers_stalls():
    run = read_run(ENGINE / "11-parallel-alloc-C.jsonl")
    stops = pauses_from_log(gclog.align(gclog.parse(ENGINE / "11-parallel-alloc-C.log"), run.header).events)
    shared = stops[stops["name"].str.contains(r"\+")]
    assert shared["name"].tolist() == ["stop: Pause Young (Allocation Failure) + Pause Full (Ergonomics)"]
    periodic = pd.DataFrame({"t_s": [shared["start_s"].iloc[0] + 0.5], "period_s": [1.0], "lost": [1000]})
    table = loss_timeline(periodic, stops, interval_ns=1000)
    assert (table["pause_name"] == shared["name"].iloc[0]).sum() == 1

    run = read_run(ENGINE / "25-zgc-gen-alloc-C.jsonl")
    aligned = gclog.align(gclog.parse(ENGINE / "25-zgc-gen-alloc-C.log"), run.header).events
    stopped = pauses_from_log(aligned)
    stalls = stopped[stopped["name"].str.startswith("stall: ")]
    everyone = gclog.stalls(aligned)
    assert (everyone["thread"] != "main").any()  # compiler and service threads stall too ...
    assert len(stalls) == (everyone["thread"] == "main").sum() > 0  # ... but only the consumer's stop packets
    assert stalls["name"].str.match(r"^stall: (Allocation|Relocation) Stall \(main\)$").all()
    assert len(stopped) - len(stalls) == len(gclog.stops(aligned))


def test_a_lossy_second_without_a_pause_and_a_batch_run(runs_dir):
    periodic = pd.DataFrame({"t_s": [1.0, 2.0, 3.0], "period_s": [1.0, 1.0, 1.0], "lost": [0, 0, 500]})
    pauses = pauses_from_records(read_run(runs_dir / "java-batch.jsonl").gc)  # pauses at 0.3 .. 4.7 s
    table = loss_timeline(periodic, pauses[pauses["start_s"] > 2.5], interval_ns=1000)
    assert len(table) == 1 and table["pause_ms"].isna().all() and table["lost"].iloc[0] == 500
    with pytest.raises(ValueError, match="not a real-time run"):
        run_timeline(read_run(runs_dir / "java-batch.jsonl"))
