"""The Java engine end to end through the launcher: every strategy and case on the three
reference JVMs, a real-time run on the native clock, and bad input refused.

These need `make java jdks native`; they check records and books, not speed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from allocorpool.run.java import JavaRun

pytestmark = pytest.mark.engine

STRATEGIES = ["dummy", "alloc", "mix", "pool", "native-alloc", "native-mix", "native-pool"]
CASES = ["A", "B", "C"]
REFERENCE_JVMS = [(11, "cms"), (17, "g1"), (25, "zgc-gen")]


def run_engine(run: JavaRun, args: list[str], timeout: float = 120) -> tuple[list[dict], subprocess.CompletedProcess]:
    out = Path(args[args.index("--out") + 1])
    done = subprocess.run(run.command(args), capture_output=True, text=True, timeout=timeout)
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return records, done


@pytest.mark.parametrize("jdk,collector", REFERENCE_JVMS, ids=[f"jdk{j}-{c}" for j, c in REFERENCE_JVMS])
def test_batch_every_strategy_and_case(jdk: int, collector: str, tmp_path: Path) -> None:
    # Every case on the first JVM; the others run every strategy in case B (a case only changes the counts, which
    # the first JVM's runs check: a second JDK's would check the same thing again).
    run = JavaRun(jdk=jdk, collector=collector, heap="1g")
    for strategy in STRATEGIES:
        for case in CASES if (jdk, collector) == REFERENCE_JVMS[0] else ["B"]:
            out = tmp_path / f"{strategy}-{case}.jsonl"
            records, done = run_engine(run, ["--case", case, "--strategy", strategy, "--mode", "batch",
                                             "--duration-s", "0.3", "--warmup-s", "0.1", "--scale", "0.01",
                                             "--out", str(out)])
            assert done.returncode == 0, f"{strategy} {case}: {done.stderr[-2000:]}"
            header, summary = records[0], records[-1]
            assert header["type"] == "header" and summary["type"] == "summary"
            assert header["jdk_version"].startswith(str(jdk)), header["jdk_version"]
            assert header["collector"] == collector
            assert (header["strategy"], header["case"]) == (strategy, case)
            assert summary["status"] == "ok", summary
            # The fill counts packets, the window time: a window a busy machine starves may measure none, and
            # then has no time per packet, but its books balance all the same.
            assert summary["fill_packets"] > 0 and 0 <= summary["measured_packets"] <= summary["packets"], summary
            assert (summary["ns_per_packet"] is None) == (summary["measured_packets"] == 0), summary
            assert summary["ns_per_packet"] is None or summary["ns_per_packet"] > 0, summary
            if strategy in ("pool", "mix", "native-pool", "native-mix"):
                assert summary["pool_free"] + summary["pool_in_use"] == summary["pool_capacity"], summary


# Netty's leak detector tracks every buffer of these runs; a leak it reports (on stderr, "LEAK:") fails the test
PARANOID = ("-Dio.netty.leakDetection.level=paranoid",)
NETTY_THREADS = ["alloc", "shared-pool", "netty-pooled-heap", "netty-pooled-direct", "netty-recycler"]


@pytest.mark.parametrize("handoff", [False, True], ids=["threads", "handoff"])
def test_netty_and_thread_runs_balance_their_books_under_the_paranoid_leak_detector(handoff: bool,
                                                                                     tmp_path: Path) -> None:
    # Every hand-off strategy on one and two threads (a hand-off run: one producer and N workers, each packet
    # released on another thread than its acquire's): books exact over the threads, each thread's CPU time,
    # each thread's live set the case's (weak scaling), and Netty's allocator metrics in every Netty buffer run.
    run = JavaRun(jdk=17, collector="g1", heap="1g", vm_options=PARANOID)
    for strategy in NETTY_THREADS:
        for threads in (1, 2):
            out = tmp_path / f"{strategy}-{threads}-{handoff}.jsonl"
            records, done = run_engine(run, ["--case", "B", "--strategy", strategy, "--threads", str(threads),
                                             *(["--handoff"] if handoff else []), "--duration-s", "0.4",
                                             "--warmup-s", "0.1", "--scale", "0.01", "--out", str(out)])
            what = f"{strategy} x {threads}{' hand-off' if handoff else ''}"
            assert done.returncode == 0, f"{what}: {done.stderr[-2000:]}"
            assert "LEAK:" not in done.stderr, f"{what}: {done.stderr[-4000:]}"
            header, summary = records[0], records[-1]
            assert (header["threads"], header["scaling"], header["handoff"]) == (threads, "weak", handoff)
            assert summary["status"] == "ok", summary
            if strategy != "alloc" or handoff:  # allocation counts nothing on its own threads; a hand-off run counts
                assert summary["pool_free"] + summary["pool_in_use"] == summary["pool_capacity"], summary
                assert summary["pool_in_use"] == sum(summary["thread_held"]), summary
            fifo = header["params"]["internal_queue_size"] - 1
            assert all(fifo <= held <= fifo + header["params"]["stored_count"] for held in summary["thread_held"])
            assert len(summary["thread_cpu_s"]) == threads + (1 if handoff else 0), summary
            metrics = summary["netty_metrics"]
            if strategy.startswith("netty-pooled"):
                assert metrics["allocator"] == "pooled" and metrics["allocations"] > 0, metrics
                assert metrics["kind"] == strategy.removeprefix("netty-pooled-"), metrics
            else:
                assert metrics is None, metrics


def test_realtime_reports_lost_counts_every_second(tmp_path: Path) -> None:
    out = tmp_path / "rt.jsonl"
    records, done = run_engine(JavaRun(jdk=17, collector="g1", heap="1g"),
                               ["--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns", "1000",
                                "--duration-s", "3.5", "--warmup-s", "0.5", "--scale", "0.1", "--out", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    periodic = [r for r in records if r["type"] == "periodic"]
    assert len(periodic) >= 3, periodic
    assert all(isinstance(r["lost"], int) for r in periodic)
    summary = records[-1]
    assert summary["status"] == "ok", summary
    assert periodic[-1]["lost_total"] == sum(r["lost"] for r in periodic)
    assert summary["lost"] >= periodic[-1]["lost_total"]
    assert summary["lost"] + summary["trailing_dropped"] == summary["producer_dropped"], summary
    # Drops after the last received tick happen in the measured time and count there.
    assert summary["lost_measured"] >= summary["trailing_dropped"], summary
    assert summary["packets"] + summary["producer_dropped"] <= summary["producer_emitted"], summary


@pytest.mark.parametrize("args,needle", [
    (["--strategy", "foo"], "dummy, alloc, mix, pool, native-alloc, native-mix, native-pool"),
    (["--case", "D"], "A, B, C"),
    (["--mode", "realtime", "--case", "A", "--strategy", "pool"], "--interval-ns"),
    (["--scale", "0"], "--scale"),
])
def test_bad_input_exits_2_naming_valid_values(args: list[str], needle: str) -> None:
    done = subprocess.run(JavaRun(jdk=17, collector="g1", heap="256m").command(args),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert needle in done.stderr, done.stderr
