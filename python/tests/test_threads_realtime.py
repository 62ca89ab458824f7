"""Chapter 17's real time with one clock feeding N consumers: the probes run only at the counts a machine has
N + 1 CPUs for, each consumer at the chapter's interval (the clock N times as fast), pinned beside the clock; on
the fake engine (which loses below 437 ns between ticks) 1 to 8 consumers run as a 16-CPU machine would, and the
chapter's table and verdicts read them."""

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import effects, lists, study
from allocorpool.chapters import threads_realtime as chapter
from allocorpool.profiles import ThreadPlan
from allocorpool.run import executor, runner, sweep
from allocorpool.run.cells import heap_text, thread_probe_block, thread_probe_cell
from allocorpool.run.experiments import threads as measure_threads
from allocorpool.run.runner import run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
FLAT = study.SOLUTIONS_BY_NAME["flat-glibc"]
PARALLEL = study.SOLUTIONS_BY_NAME["parallel-11"]
PROFILE = replace(study.PROFILES["ci"], name="threads-rt", strict=False,
                  threads=ThreadPlan(solutions=("parallel-11", "flat-glibc"), repetitions=2))


def _fake(cell, workdir, **options):
    return run_cell(cell, workdir, progress=False,
                    build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out),
                                               *runner.cpu_pins(c)])


def test_n_consumers_need_n_plus_one_cpus():
    assert measure_threads.consumer_counts((1, 2, 4, 8), cpus=2) == (1,)
    assert measure_threads.consumer_counts((1, 2, 4, 8), cpus=9) == (1, 2, 4, 8)
    assert measure_threads.consumer_counts((1, 2, 4, 8), cpus=8) == (1, 2, 4)
    assert measure_threads.consumer_counts((1, 2), cpus=1) == ()


def test_each_consumer_sees_the_chapters_interval_and_the_clock_ticks_n_times_as_often():
    cell = thread_probe_cell(FLAT, "shared-pool", "A", PROFILE, 4)
    assert cell.mode == "realtime" and cell.threads == 4 and cell.interval_ns == 250
    assert "_realtime_t4_250ns_" in cell.key
    args = cell.engine_args(Path("x"))
    assert args[args.index("--threads") + 1] == "4" and args[args.index("--interval-ns") + 1] == "250"
    block = thread_probe_block(FLAT, "A", PROFILE, (1, 2))
    assert [(c.strategy, c.threads) for c in block.cells] == [(s, n) for n in (1, 2)
                                                               for s in lists.THREAD_ENGINE_STRATEGIES["cpp"]]
    assert block.repetitions == PROFILE.blocks.probe_repetitions
    java = thread_probe_block(PARALLEL, "A", PROFILE, (2,))  # the Java engine's clock feeds several too
    assert [c.strategy for c in java.cells] == list(lists.THREAD_ENGINE_STRATEGIES["java"])
    assert java.cells[0].interval_ns == 500 and java.cells[0].heap == heap_text(PARALLEL.heap_mb(PROFILE.scale * 2))
    with pytest.raises(ValueError, match="not in a series"):
        replace(thread_probe_cell(PARALLEL, "pool", "A", PROFILE, 2), series=True)


@pytest.mark.parametrize("cpus, threads, pins", [
    ({0, 1, 2, 3, 4}, 4, ["0", "1"]),     # the clock on 0, the consumers on 1 to 4
    ({4, 5, 6}, 2, ["4", "5"]),           # a slot's CPUs
    ({0, 1, 3}, 2, ["-1", "-1"]),         # 1 and 3: not consecutive, so none is pinned
    ({0, 1}, 2, ["-1", "-1"]),            # too few
    ({0, 1}, None, ["0", "1"]),           # one consumer, as ever
])
def test_the_consumers_are_pinned_on_the_cpus_after_the_clocks(monkeypatch, cpus, threads, pins):
    monkeypatch.setattr(runner.os, "sched_getaffinity", lambda pid: cpus)
    cell = replace(thread_probe_cell(FLAT, "pool", "A", PROFILE, 2), threads=threads)
    args = runner.cpu_pins(cell)
    assert [args[1], args[3]] == pins


def test_one_to_eight_consumers_on_the_fake_engine_lose_where_the_clock_outruns_it(tmp_path, monkeypatch):
    # As on a 16-CPU machine: 1 and 2 consumers (a clock of 1000 and 500 ns) keep up; 4 and 8 (250 and 125 ns,
    # below the fake's 437) lose in every probe, whatever the strategy: no strategy loses less than another.
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(measure_threads, "consumer_counts", lambda planned, cpus=None: tuple(planned))
    probes = measure_threads.thread_probes(sweep.Sweep(PROFILE, tmp_path, progress=False).executor, [PARALLEL, FLAT])
    assert set(probes["solution"]) == {"parallel-11", "flat-glibc"}  # both engines feed several consumers
    assert sorted(probes["threads"].unique()) == [1, 2, 4, 8]
    assert (probes["interval_ns"] == 1000).all() and (probes["failed"] == 0).all()
    kept = probes.set_index(["strategy", "threads"])["keeps_up"]
    assert (kept.xs(1, level="threads") == effects.HOLDS).all() and (kept.xs(2, level="threads") == effects.HOLDS).all()
    assert (kept.xs(8, level="threads") == effects.FAILS).all()
    shown = chapter.table(probes)
    assert shown.loc[(FLAT.label, "A", 8), "Shared pool"].startswith("loses")
    assert shown.loc[(FLAT.label, "A", 1), "Allocation"].startswith("kept up in 2 of 2 probes")
    decided = {(question, n): verdict for question, n, verdict in chapter.questions(probes)}
    one = decided[("Pool per thread loses less than allocation", 1)]
    assert one.summary.startswith("undecided") and (one.cells["effect"] == "both kept up in every probe").all()
    assert shown.loc[(FLAT.label, "A", 1), "Pool per thread against allocation: loss difference"] == (
        "both kept up in every probe: no difference")
    lines = chapter.findings(probes)
    assert any(line.startswith("With 8 consumers, each taking a packet every 1,000 ns") for line in lines), lines


def test_a_replay_shows_the_counts_a_smaller_machine_ran(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(measure_threads, "consumer_counts", lambda planned, cpus=None: (1,))
    measure_threads.thread_probes(sweep.Sweep(PROFILE, tmp_path, progress=False).executor, [FLAT])
    replay = sweep.Sweep(PROFILE, tmp_path, progress=False, replay=True)
    replayed = measure_threads.thread_probes(replay.executor, [FLAT])
    assert sorted(replayed["threads"].unique()) == [1, 2, 4, 8]
    assert sorted(chapter.measured(replayed)["threads"].unique()) == [1]
    assert (replayed.loc[replayed["threads"] > 1, "keeps_up"] == effects.NOT_MEASURED).all()
    # the machine named is the one that measured, not the one replaying
    assert chapter.counts_note(replayed, (1, 2, 4, 8), 2) == (
        "Consumer counts measured: 1. Runs of 2, 4 and 8 consumers need one CPU more than their count (the machine "
        "measured has 2): a larger machine runs them.")
    assert chapter.counts_note(replayed, (1,), None) == "Consumer counts measured: 1."
    assert chapter.counts_note(replayed.assign(keeps_up=effects.NOT_MEASURED), (1,), 2) == "Consumer counts measured: none."


def test_a_pool_that_loses_less_is_said_so_with_its_interval():
    def row(strategy, losses):
        return {"solution": "flat-glibc", "label": "Flat", "case": "B", "threads": 2, "strategy": strategy,
                "strategy_label": strategy, "interval_ns": 1000, "losses": losses, "probes": len(losses), "failed": 0,
                "keeps_up": effects.FAILS if any(losses) else effects.HOLDS, "latency_p99_ns": 2e5}
    probes = pd.DataFrame([row("alloc", [0.4, 0.5, 0.45]), row("pool", [0.0, 0.0, 0.0]),
                           row("shared-pool", [0.1, 0.5, 0.0])])
    shown = chapter.table(probes)
    assert shown.loc[("Flat", "B", 2), "Pool per thread against allocation: loss difference"].startswith("the pool loses less: -0.45")
    assert shown.loc[("Flat", "B", 2), "Pool per thread"] == "kept up in 3 of 3 probes; 99 % within 0.2 ms"
    decided = chapter.questions(probes)
    assert {(q, n): v for q, n, v in decided}[("Pool per thread loses less than allocation", 2)].outcome == effects.HOLDS
    verdicts = chapter.verdict_table(decided)
    assert verdicts.loc["Pool per thread loses less than allocation", "2 consumers"].startswith("Holds in 1")


def test_a_solution_without_probes_reads_not_measured_once():
    def row(strategy, keeps_up):
        return {"solution": "zgc", "label": "ZGC", "case": "A", "threads": 1, "strategy": strategy,
                "strategy_label": strategy, "interval_ns": 1000, "losses": [], "probes": 0, "failed": 0,
                "keeps_up": keeps_up, "latency_p99_ns": None}
    measured = {"solution": "flat-glibc", "label": "Flat", "case": "A", "threads": 1, "strategy": "alloc",
                "strategy_label": "alloc", "interval_ns": 1000, "losses": [0.0, 0.0], "probes": 2, "failed": 0,
                "keeps_up": effects.HOLDS, "latency_p99_ns": 2e5}
    probes = pd.DataFrame([row("alloc", effects.NOT_MEASURED), row("pool", effects.NOT_MEASURED), measured])
    shown = chapter.table(probes)
    assert shown.loc[("ZGC", "A", 1), "Pool per thread against allocation: loss difference"] == "not measured"
    decided = {(q, n): v for q, n, v in chapter.questions(probes)}
    cells = decided[("Pool per thread loses less than allocation", 1)].cells
    assert list(cells["effect"]) == ["no probes"]
