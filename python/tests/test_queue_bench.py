"""Both halves of the queue benchmark run and write probe and result records."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import paths
from allocorpool.run.java import JavaRun

pytestmark = pytest.mark.engine

SHORT = ["--probe-s", "0.2", "--fixed-probe-s", "0.2", "--min-ns", "100", "--max-ns", "400"]


def check_records(path: Path, pair: str, target_ns: int) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0]["type"] == "header" and records[0]["engine"] == "queue-bench"
    probes = [r for r in records if r["type"] == "probe"]
    assert probes and all(p["pair"] == pair for p in probes)
    assert all(p["emitted"] == p["received"] + p["dropped"] for p in probes if p["ok"])
    result = records[-1]
    assert result["type"] == "result" and result["pair"] == pair and result["target_ns"] == target_ns
    assert result["write_ns"] > 0
    good = result["good_interval_ns"]
    assert good is None or 100 <= good <= 400
    if good is not None:
        assert any(p["ok"] and p["interval_ns"] == good for p in probes)


def test_cpp_to_cpp(tmp_path: Path) -> None:
    out = tmp_path / "cpp.jsonl"
    bench = paths.project_root() / "build" / "native-queue" / "queue_bench"
    done = subprocess.run([str(bench), *SHORT, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    check_records(out, "cpp-cpp", 44)


def test_cpp_to_java(tmp_path: Path) -> None:
    out = tmp_path / "java.jsonl"
    run = JavaRun(jdk=21, collector="g1", heap="512m", main_class="allocorpool.queue.QueueBenchmark")
    done = subprocess.run(run.command([*SHORT, "--out", str(out)]), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    check_records(out, "cpp-java", 20)


def test_java_half_rejects_bad_values() -> None:
    run = JavaRun(jdk=17, collector="g1", heap="256m", main_class="allocorpool.queue.QueueBenchmark")
    done = subprocess.run(run.command(["--probe-s", "fast"]), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--probe-s: 'fast' is not a number in 0.05..600.0" in done.stderr


def test_the_chapters_table_names_each_queue_and_says_none_kept_up_only_of_an_interval():
    # the full article's table put "none kept up" in the queue-size column of the 100 ms rows
    from allocorpool.chapters import native_queue
    results = pd.DataFrame([
        {"pair": "cpp-cpp", "capacity_rule": "delay_100ms", "queue_size": None, "probe_s": 2.0, "write_ns": 0.38,
         "good_interval_ns": None, "target_ns": 44, "met_target": False},
        {"pair": "cpp-cpp", "capacity_rule": "fixed", "queue_size": 100_000, "probe_s": 10.0, "write_ns": 0.38,
         "good_interval_ns": 82, "target_ns": 44, "met_target": False}])
    table = native_queue.results_table(results)
    assert {pair for pair, _ in table.index} == {"C++ to C++"}  # the reader's name, never the record's key
    assert [queue for _, queue in table.index] == ["100,000 numbers per array (the original's)",
                                                   "100 ms of ticks per array (as the real-time runs size it)"]
    assert table["shortest loss-free interval, ns"].tolist() == ["82", "none kept up"]
    assert native_queue.results_sentence(table) == (
        "From C++ to C++, the shortest loss-free interval was 82 ns with 100,000 numbers per array and no interval "
        "kept up with 100 ms of ticks per array (the original: 44 ns).")


def test_the_chapters_sentence_stays_short_whatever_was_measured():
    # CI's article once failed readability on a 51-word sentence joining both pairs, when one kept up nowhere
    from allocorpool.chapters import native_queue
    from allocorpool.chapters.page import readability
    results = pd.DataFrame([
        {"pair": pair, "capacity_rule": rule, "queue_size": 1_000_000, "probe_s": 2.0, "write_ns": 0.38,
         "good_interval_ns": None, "target_ns": 20, "met_target": False}
        for pair in ("cpp-cpp", "cpp-java") for rule in ("fixed", "delay_100ms")])
    sentence = native_queue.results_sentence(native_queue.results_table(results))
    assert not readability.findings(f"<p>{sentence}</p>"), sentence
