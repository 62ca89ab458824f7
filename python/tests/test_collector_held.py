"""How much of a run's own threads' time its collector held them (analysis.thread_costs.collector_held), read
from a GC log written for the test: every number below is known from the lines themselves."""

from pathlib import Path

import pytest

from allocorpool.analysis.thread_costs import collector_held
from allocorpool.data import gclog
from allocorpool.data.records import CellResult, Run

ORIGIN_NS = 1_000_000_000  # the run's clock starts at nanoTime 1 s: run time t is nanoTime (t + 1) s


def _line(uptime_s: float, run_end_s: float, tags: str, text: str) -> str:
    return f"[{uptime_s:.3f}s][{int((run_end_s + 1) * 1e9)}ns][info][{tags:<12}] {text}"


# The window is 1.0 s to 2.0 s of the run's clock. One stop of the world, 1.2 to 1.3 s; processor-0 stalls
# 1.15 to 1.35 s (over the stop) and 1.8 to 2.1 s (past the window's end); the Service Thread's stall is not the
# engine's; processor-1's stall ends before the window opens.
LOG = "\n".join([
    _line(0.95, 0.95, "gc", "Allocation Stall (processor-1) 100.000ms"),
    _line(1.20, 1.20, "safepoint", "Application time: 0.2000000 seconds"),
    _line(1.20, 1.20, "safepoint", "Entering safepoint region: ZOperation"),
    _line(1.30, 1.30, "gc,phases", "GC(4) Pause Mark Start 99.000ms"),
    _line(1.30, 1.30, "safepoint", "Leaving safepoint region"),
    _line(1.30, 1.30, "safepoint", "Total time for which application threads were stopped: 0.1000000 seconds, "
                                   "Stopping threads took: 0.0010000 seconds"),
    _line(1.35, 1.35, "gc", "Allocation Stall (processor-0) 200.000ms"),
    _line(1.90, 1.90, "gc", "Allocation Stall (Service Thread) 500.000ms"),
    _line(2.10, 2.10, "gc", "Allocation Stall (processor-0) 300.000ms"),
]) + "\n"


def _result(tmp_path: Path, threads: int, log: str = LOG) -> CellResult:
    path = tmp_path / "run.gc.log"
    path.write_text(log)
    run = Run(header={"engine": "java", "collector": "zgc", "clock_origin_nanotime": ORIGIN_NS},
              tables={}, summary={"status": "ok", "window_start_s": 1.0, "measured_s": 1.0,
                                  "thread_cpu_s": [0.5] * threads})
    return CellResult(None, "ok", 0, "", 1.0, run, gc_events=gclog.parse(path))


def test_a_stop_holds_every_thread_a_stall_its_own_within_the_window(tmp_path):
    # processor-0: 1.15-1.35 (the stop inside it counts once) and 1.8-2.0 = 0.4 s; processor-1: the stop, 0.1 s
    assert collector_held(_result(tmp_path, 2)) == pytest.approx(100 * (0.4 + 0.1) / 2.0)


def test_one_thread_alone(tmp_path):
    assert collector_held(_result(tmp_path, 1)) == pytest.approx(100 * 0.4 / 1.0)


def test_a_run_without_a_log_or_threads_has_no_figure(tmp_path):
    result = _result(tmp_path, 2)
    assert collector_held(CellResult(None, "ok", 0, "", 1.0, result.run)) is None
    assert collector_held(_result(tmp_path, 0)) is None
    unaligned = Run(header={"engine": "java"}, tables={}, summary=result.run.summary)
    assert collector_held(CellResult(None, "ok", 0, "", 1.0, unaligned, gc_events=result.gc_events)) is None
