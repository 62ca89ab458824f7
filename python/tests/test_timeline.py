"""timeline.py: which pauses overlap the seconds that lost packets, and what they cost."""

import pandas as pd
import pytest

from allocorpool.analysis.timeline import loss_timeline, pauses_from_records, run_timeline
from allocorpool.data import gclog
from allocorpool.data.records import read_run


def test_the_full_gc_explains_the_lost_second(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    table = run_timeline(run, gclog.parse(runs_dir / "java-realtime.gc.log"))
    assert set(table["t_s"]) == {4.0} and (table["lost"] == 85_000).all()
    assert len(table) == 3  # the young pause and Remark of the second before, the full pause
    full = table[table["pause_name"] == "pause: Pause Full (G1 Compaction Pause)"].iloc[0]
    assert full["pause_start_s"] == pytest.approx(3.402, abs=0.002)
    assert full["est_ticks"] == pytest.approx(185_421)  # 185.421 ms of 1000 ns ticks
    assert full["est_excess_ticks"] == pytest.approx(85_421)  # beyond the 100 ms queue
    assert full["est_excess_ticks"] == pytest.approx(full["lost"], rel=0.01)


def test_from_records_without_a_log(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    table = run_timeline(run)
    assert list(table["pause_source"]) == ["records", "records"]
    assert list(table["pause_ms"]) == [6.0, 185.0]  # the G1 Concurrent GC cycle is not a pause


def test_a_lossy_second_without_a_pause_and_a_batch_run(runs_dir):
    periodic = pd.DataFrame({"t_s": [1.0, 2.0, 3.0], "period_s": [1.0, 1.0, 1.0], "lost": [0, 0, 500]})
    pauses = pauses_from_records(read_run(runs_dir / "java-batch.jsonl").gc)  # pauses at 0.3 .. 4.7 s
    table = loss_timeline(periodic, pauses[pauses["start_s"] > 2.5], interval_ns=1000)
    assert len(table) == 1 and table["pause_ms"].isna().all() and table["lost"].iloc[0] == 500
    with pytest.raises(ValueError, match="not a real-time run"):
        run_timeline(read_run(runs_dir / "java-batch.jsonl"))
