"""run.probe_series with the real Java engine: a search's probes in one JVM that fills the model once.

Needs `make java jdks native`; it checks records and books, not speed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from allocorpool import paths
from allocorpool.data import gclog
from allocorpool.run.probe_series import ProbeSeries
from allocorpool.run.runner import Cell

pytestmark = pytest.mark.engine


def probe(interval_ns: int, heap: str = "256m") -> Cell:
    return Cell(engine="java", jdk=17, collector="g1", heap=heap, case="B", strategy="alloc", mode="realtime",
                interval_ns=interval_ns, duration_s=2, warmup_s=1, scale=0.02, gc_log=True, series=True,
                build=paths.engine_build("java"))


def test_probes_of_one_run_share_a_jvm_and_its_fill(tmp_path: Path) -> None:
    with ProbeSeries(tmp_path) as series:
        results = [series.run(probe(interval)) for interval in (2000, 3000, 2500)]
        assert series.started == 1
        for result in results:
            assert result.status == "ok", result.error
        headers = [result.run.header for result in results]
        summaries = [result.run.summary for result in results]
        assert [h["series_probe"] for h in headers] == [0, 1, 2]
        assert [h["interval_ns"] for h in headers] == [2000, 3000, 2500]
        assert len({h["clock_origin_nanotime"] for h in headers}) == 1  # one JVM, one clock
        assert summaries[0]["fill_packets"] > 0 and [s["fill_packets"] for s in summaries[1:]] == [0, 0]
        assert all(s["store_fill_at_window"] >= 0.99 for s in summaries)
        assert all(abs(s["measured_ticks_due"] - s["measured_s"] * 1e9 / h["interval_ns"]) <= 1
                   for s, h in zip(summaries, headers))
        # each probe has the GC log's events of its own span: after the probe before it ended, up to its end
        ends = [float("-inf")] + [s["t_s"] for s in summaries]
        for i, result in enumerate(results):
            assert result.gc_events is not None
            events = gclog.align(result.gc_events, result.run.header).events
            assert events is not None and events["t_end_s"].between(ends[i], ends[i + 1]).all()
        assert sum(len(result.gc_events) for result in results[1:]) > 0  # 256 MB collects in 2 s at 2000 ns
        other = series.run(probe(2000, heap="384m"))  # another heap: another run, another JVM
        assert other.status == "ok" and series.started == 2 and other.run.header["series_probe"] == 0


def test_a_cell_that_is_not_a_series_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a series cell"):
        ProbeSeries(tmp_path).run(replace(probe(2000), series=False))
