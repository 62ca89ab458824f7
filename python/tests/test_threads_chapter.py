"""Chapter 17, several threads: blocks of every strategy at each thread count on the fake engine (4 and 8 threads
too, which this machine cannot run), and the chapter's answer, scaling and claims decided by intervals."""

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import effects, study
from allocorpool.chapters import threads as chapter
from allocorpool.lists import (HANDOFF_STRATEGIES, THREAD_ENGINE_STRATEGIES, THREAD_STRATEGY_LABELS,
                               THREAD_STRATEGY_NAMES)
from allocorpool.profiles import ThreadPlan
from allocorpool.run import executor, sweep
from allocorpool.run.experiments import handoff as measure_handoff
from allocorpool.run.cells import handoff_block, heap_text, thread_block, thread_cell
from allocorpool.run.experiments import threads as measure_threads
from allocorpool.run.runner import Cell, run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
PARALLEL = study.SOLUTIONS_BY_NAME["parallel-11"]
FLAT = study.SOLUTIONS_BY_NAME["flat-glibc"]
PROFILE = replace(study.PROFILES["ci"], name="threads", strict=False,
                  threads=ThreadPlan(solutions=("parallel-11",), repetitions=3))


def _fake(cell, workdir, **options):
    return run_cell(cell, workdir, progress=False,
                    build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out)])


def test_a_thread_cell_is_a_batch_cell_with_its_count_in_the_key():
    cell = thread_cell(PARALLEL, "shared-pool", "A", PROFILE, 2)
    block = thread_block(PARALLEL, "A", PROFILE, (1, 2))
    java = THREAD_ENGINE_STRATEGIES["java"]
    assert len(block.cells) == 2 * len(java) and block.repetitions == 3
    two = [c for c in block.cells if c.threads == 2]
    assert all("_batch_t2_" in c.key for c in two) and "--threads" in two[0].engine_args(Path("x"))
    assert cell.threads == 2 and cell.engine == "java" and cell.mode == "batch"
    assert replace(two[0], mode="realtime", interval_ns=1000).threads == 2  # consumers of one clock
    with pytest.raises(ValueError, match="threads"):
        Cell(engine="cpp", case="A", strategy="pool", design="flat", allocator="glibc", threads=0)
    # C++ runs the strategies it has: no Netty
    flat = thread_block(FLAT, "A", PROFILE, (1, 2))
    assert [c.strategy for c in flat.cells] == ["alloc", "pool", "shared-pool", "pmr-synchronized"] * 2
    assert flat.cells[-1].engine_args(Path("x"))[-4:-2] == ["--threads", "2"]
    # weak scaling is the engines' default: its cells say nothing; strong ones say so, in the key and to the engine
    strong = thread_block(FLAT, "A", PROFILE, (1, 2), scaling="strong")
    assert all(c.scaling == "strong" and f"_t{c.threads}_strong_" in c.key for c in strong.cells)
    assert strong.cells[-1].engine_args(Path("x"))[-6:-2] == ["--threads", "2", "--scaling", "strong"]
    assert {c.key for c in strong.cells}.isdisjoint(c.key for c in flat.cells) and "strong" in strong.name
    assert "--scaling" not in flat.cells[-1].engine_args(Path("x"))
    # a weak Java cell's heap holds N live sets; a strong one's the case's
    half = replace(PROFILE, scale=0.25)  # above the smallest heap, which ci's scale reaches
    weak_java, strong_java = (thread_cell(PARALLEL, "pool", "A", half, 2, scaling) for scaling in ("weak", "strong"))
    assert weak_java.heap == heap_text(PARALLEL.heap_mb(0.5)) != strong_java.heap
    assert strong_java.heap == heap_text(PARALLEL.heap_mb(0.25)) == thread_cell(PARALLEL, "pool", "A", half, 1).heap
    with pytest.raises(ValueError, match="scaling"):
        Cell(engine="cpp", case="A", strategy="pool", design="flat", allocator="glibc", scaling="strong")
    # hand-off: Java only, batch, with threads; --handoff in the key and on the command line
    handoff = handoff_block(PARALLEL, "A", PROFILE, (1, 2))
    assert [c.strategy for c in handoff.cells] == list(HANDOFF_STRATEGIES) * 2
    assert all(c.handoff and f"_t{c.threads}_handoff_" in c.key for c in handoff.cells)
    assert "--handoff" in handoff.cells[0].engine_args(Path("x"))
    with pytest.raises(ValueError, match="hand-off"):
        handoff_block(FLAT, "A", PROFILE, (1,))
    with pytest.raises(ValueError, match="handoff"):
        Cell(engine="cpp", case="A", strategy="alloc", design="flat", allocator="glibc", threads=1, handoff=True)


def test_java_and_cpp_side_by_side_pair_only_the_strategies_each_engine_has(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setenv("FAKE_FACTORS", "alloc:2")
    monkeypatch.setenv("FAKE_NOISE", "0.02")
    both = replace(PROFILE, threads=ThreadPlan(solutions=("parallel-11", "flat-glibc"), repetitions=3))
    table = measure_threads.threads(sweep.Sweep(both, tmp_path, progress=False).executor, [PARALLEL, FLAT])
    assert (table["status"] == "ok").all()
    assert set(table.loc[table["engine"] == "cpp", "strategy"]) == {"alloc", "pool", "shared-pool", "pmr-synchronized"}
    assert set(table["scaling"]) == {"weak", "strong"}
    verdicts = {claim.text: verdict for claim, verdict, _ in chapter.claims(table)}
    # Netty is asked of the Java solution only; the pools of both engines beat allocation at half its time
    netty = verdicts["With 1 thread: Netty, heap beats allocation"].summary
    assert "of 1 pair" in netty and "not measured" not in netty, netty  # not a C++ pair left unmeasured
    assert "of 2 pairs" in verdicts["With 1 thread: Pool per thread beats allocation"].summary
    shown = chapter.figures_table(table)
    assert shown.loc[(FLAT.label, "A", 1), "Netty, heap"] == ""  # the engine has no such strategy
    assert "nan" not in shown.to_string()


def test_the_counts_a_machine_runs_are_those_it_has_cpus_for():
    from allocorpool.run.experiments.handoff import worker_counts

    assert worker_counts((1, 2, 4, 8), cpus=2) == (1,) and worker_counts((1, 2), cpus=1) == ()  # and the producer
    # the batch hand-off lets its producer share a CPU with the workers: a CPU for each worker
    assert worker_counts((1, 2, 4, 8), cpus=2, sharing=True) == (1, 2)
    assert worker_counts((1, 2, 4, 8), cpus=4, sharing=True) == (1, 2, 4)
    assert measure_threads.thread_counts((1, 2, 4, 8), cpus=2) == (1, 2)
    assert measure_threads.thread_counts((1, 2, 4, 8), cpus=16) == (1, 2, 4, 8)
    assert measure_threads.thread_counts((2, 4), cpus=1) == (1,)


def test_blocks_of_one_to_eight_threads_on_the_fake_engine_decide_where_sharing_costs(tmp_path, monkeypatch):
    # A shared pool that loses 80 % of a thread per extra thread, a pool per thread that scales: at one thread the
    # shared pool is as fast; from two up the pool per thread beats it, and by more at eight.
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(measure_threads, "thread_counts", lambda planned, cpus=None: tuple(planned))
    monkeypatch.setenv("FAKE_SCALING", "shared-pool:0.8")
    monkeypatch.setenv("FAKE_FACTORS", "alloc:2")
    monkeypatch.setenv("FAKE_NOISE", "0.02")
    both = measure_threads.threads(sweep.Sweep(PROFILE, tmp_path, progress=False).executor, [PARALLEL])
    assert (both["status"] == "ok").all() and (both["runs"] == 3).all()
    table = both[both["scaling"] == "weak"]
    assert sorted(table["threads"].unique()) == [1, 2, 4, 8]
    shared = table[table["strategy"] == "shared-pool"].set_index("threads")["ns_per_packet"]
    assert shared[8] / shared[1] == pytest.approx(1 + 0.8 * 7, rel=0.1)
    verdicts = {claim.text: verdict for claim, verdict, _ in chapter.claims(both)}  # weak, the comparison
    assert verdicts["With 1 thread: A pool per thread beats one shared pool"].outcome == effects.NO_DIFFERENCE
    for n in (2, 4, 8):
        assert verdicts[f"With {n} threads: A pool per thread beats one shared pool"].outcome == effects.HOLDS
        scales = verdicts[f"With {n} threads: Allocation scales: thread time within 25 % of one thread's"]
        assert scales.outcome == effects.HOLDS
        in_cpu = verdicts[f"With {n} threads: Allocation scales in CPU time: its threads' CPU time per packet "
                          "within 25 % of one thread's"]
        assert in_cpu.outcome == effects.HOLDS, in_cpu.summary  # read from the runs' thread_cpu_s
    # the CPU view: 90 % of the thread time on a CPU (the fake engine's), Netty's cache share 90 %
    cpu = table.set_index(["strategy", "threads"])
    assert (cpu["thread_cpu_ns_per_packet"] / cpu["ns_per_packet"]).between(0.8, 1.0).all()
    netty = cpu.loc[("netty-pooled-heap", 2)]
    assert netty["netty_cache_share"] == pytest.approx(0.9, abs=0.01) and netty["netty_allocations"] > 0
    assert cpu.loc[("alloc", 2), "netty_allocations"] is None or pd.isna(cpu.loc[("alloc", 2), "netty_allocations"])
    assert verdicts["With 1 thread: Shared pool beats allocation"].outcome == effects.HOLDS  # 100 against 200 ns
    assert verdicts["With 8 threads: Shared pool beats allocation"].outcome == effects.FAILS  # 660 against 200 ns
    verdicts_by_count = chapter.verdict_table(chapter.questions(table))
    assert list(verdicts_by_count.columns) == ["1 thread", "2 threads", "4 threads", "8 threads"]
    assert verdicts_by_count.loc["A pool per thread beats one shared pool", "8 threads"].startswith("holds: ")
    assert verdicts_by_count.loc["Allocation scales: thread time within 25 % of one thread's", "1 thread"] == ""
    answer = chapter.answer_table(table)
    assert answer.loc[("Parallel 11, 2019 \"CMS\"", "A"), "8 threads"].startswith(("Pool per thread", "Netty"))
    assert "case A, 8 / 1" in chapter.scaling_table(table).columns


def test_a_replay_reads_the_blocks_a_smaller_machine_ran(tmp_path, monkeypatch):
    # Recorded on 2 CPUs (a block of 1 and 2 threads), replayed with every planned count: 1 and 2 read back, 4 and
    # 8 show as not measured.
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(measure_threads, "thread_counts",
                        lambda planned, cpus=None: tuple(n for n in planned if n <= 2))
    monkeypatch.setenv("FAKE_NOISE", "0.02")
    recorded = measure_threads.threads(sweep.Sweep(PROFILE, tmp_path, progress=False).executor, [PARALLEL])
    assert sorted(recorded["threads"].unique()) == [1, 2]
    replayed = measure_threads.threads(sweep.Sweep(PROFILE, tmp_path, progress=False, replay=True).executor, [PARALLEL])
    assert sorted(replayed["threads"].unique()) == [1, 2, 4, 8]
    held = replayed[replayed["threads"] <= 2].set_index(["strategy", "threads"])["ns_per_packet"]
    assert (replayed[replayed["threads"] <= 2]["status"] == "ok").all()
    assert held.to_dict() == recorded.set_index(["strategy", "threads"])["ns_per_packet"].to_dict()
    assert (replayed[replayed["threads"] > 2]["status"] == "missing").all()
    assert sorted(chapter.measured(replayed)["threads"].unique()) == [1, 2]


def _row(strategy, threads, samples, case="A"):
    spread = effects.spread(samples)
    return {"solution": "parallel-11", "label": "Parallel", "strategy": strategy, "case": case, "threads": threads,
            "strategy_label": THREAD_STRATEGY_LABELS[strategy], "status": "ok", "ns_per_packet": spread.median,
            "ns_low": spread.low, "ns_high": spread.high, "runs": len(samples), "boot_samples": {"b": samples},
            "cpus": 2}


def test_the_answer_names_both_strategies_where_the_interval_does_not_decide():
    table = pd.DataFrame([_row("alloc", 1, [100, 101, 99]), _row("pool", 1, [60, 61, 59]),
                          _row("alloc", 2, [100, 130, 70]), _row("pool", 2, [99, 102, 98])])
    answer = chapter.answer_table(table)
    assert answer.loc[("Parallel", "A"), "1 thread"].startswith("Pool per thread, 40 %")
    assert answer.loc[("Parallel", "A"), "1 thread"].endswith("less time than allocation")  # not "Allocation"
    assert ": undecided, 0.99" in answer.loc[("Parallel", "A"), "2 threads"]  # the ratio in no second brackets
    assert THREAD_STRATEGY_NAMES["netty-pooled-heap"] == "Netty, heap"  # a name keeps its capital
    scaling = chapter.scaling_table(table)
    assert scaling.loc[("Parallel", "Pool per thread"), "case A, 2 / 1"].startswith("1.6")


def test_a_replay_without_the_larger_counts_shows_those_it_holds():
    missing = {"solution": "parallel-11", "label": "Parallel", "strategy": "alloc", "case": "A", "threads": 4,
               "strategy_label": "Allocation", "status": "missing"}
    table = pd.DataFrame([_row("alloc", 1, [100, 101, 99]), _row("alloc", 2, [100, 101, 99]), missing])
    assert sorted(chapter.measured(table)["threads"].unique()) == [1, 2]


def test_the_chapter_says_which_counts_ran_and_which_need_a_larger_machine():
    table = pd.DataFrame([_row("alloc", 1, [100, 101, 99]), _row("pool", 1, [60, 61, 59]),
                          _row("alloc", 2, [100, 130, 70]), _row("pool", 2, [99, 102, 98])])
    assert chapter.counts_note(table, planned=(1, 2, 4, 8)) == (
        "Thread counts measured: 1 and 2. Runs of 4 and 8 threads need a CPU for each thread (the machine measured "
        "has 2): a larger machine runs them.")
    assert chapter.counts_note(table, planned=(1, 2)) == "Thread counts measured: 1 and 2."
    assert chapter.counts_note(table.assign(status="missing"), planned=(1, 2)) == "Thread counts measured: none."
    assert chapter.measured_cpus(table) == 2 and chapter.measured_cpus(table.assign(status="missing")) is None


def test_the_chapter_names_the_solutions_and_cases_short_of_two_machines_from_committed_builds():
    rows = [_row("alloc", 1, [100, 101, 99]), _row("pool", 1, [60, 61, 59]),
            _row("alloc", 1, [100, 101, 99], case="C"), _row("pool", 1, [60, 61, 59], case="C")]
    table = pd.DataFrame([{**r, "boots": 2, "committed_boots": 2 if r["case"] == "A" else 1} for r in rows])
    assert chapter.boots_note(table) == ("2 of the 4 cells measured stand on runs of committed builds from two "
                                         "machines or more; these do not: Parallel case C (2 cells).")
    assert chapter.boots_note(table.assign(committed_boots=3), "strong-scaling") == (
        "All 4 strong-scaling cells measured stand on runs of committed builds from two machines or more.")
    assert chapter.boots_note(table.assign(status="missing")) == ""


def test_hand_off_blocks_cpu_and_netty_tables_and_an_empty_store(tmp_path, monkeypatch):
    # The hand-off blocks of the Java solution (none for C++), read by the chapter's sections; a replay of a store
    # without them shows every cell as not measured, and the sections say so instead of failing.
    from allocorpool.chapters import threads_costs, threads_handoff

    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(measure_handoff, "worker_counts", lambda planned, cpus=None, sharing=False: (1, 2))
    monkeypatch.setenv("FAKE_NOISE", "0.02")
    replay = sweep.Sweep(PROFILE, tmp_path / "empty", progress=False, replay=True)
    empty = measure_handoff.handoffs(replay.executor, [PARALLEL, FLAT])
    assert len(empty) == 4 * len(HANDOFF_STRATEGIES) and (empty["status"] == "missing").all()  # every planned count
    threads_handoff.show_handoff(empty)
    measured = sweep.Sweep(PROFILE, tmp_path, progress=False)
    table = measure_handoff.handoffs(measured.executor, [PARALLEL, FLAT])
    assert set(table["engine"]) == {"java"} and table["handoff"].all() and (table["status"] == "ok").all()
    assert sorted(table["threads"].unique()) == [1, 2]
    assert threads_handoff.fastest(table) and "one producer and 2 workers" in " ".join(threads_handoff.fastest(table))
    assert len(threads_costs.netty_table(table)) == 2 * 2  # netty-pooled-heap and -direct at 1 and 2 workers
    threads_handoff.show_handoff(table)
    # the thread table's sections: CPU beside wall time, Netty metrics, strong scaling with its live set
    rows = measure_threads.threads(measured.executor, [PARALLEL])
    assert len(threads_costs.cpu_table(rows)) == len(rows[rows["scaling"] == "weak"])
    assert threads_costs.cpu_findings(rows)[0].startswith("With 1 thread, the threads were on a CPU for 90")
    # weak scaling keeps each thread's live set, strong splits it (the runs' thread_held)
    assert threads_costs.live_set_note(rows, "weak").endswith("1 thread: 100; 2 threads: 100.")
    assert threads_costs.live_set_note(rows, "strong").endswith("1 thread: 100; 2 threads: 50.")
    threads_costs.show_costs(rows)
    threads_costs.show_strong(rows)
    threads_costs.show_strong(rows[rows["scaling"] == "weak"])  # strong not measured: said, not failed


def _handoff_row(strategy, workers, wall, cpu):
    row = _row(strategy, workers, wall)
    cpu_spread = effects.spread(cpu)
    return {**row, "handoff": True, "boot": "b", "thread_cpu_ns_per_packet": cpu_spread.median,
            "thread_cpu_low": cpu_spread.low, "thread_cpu_high": cpu_spread.high, "cpu_boot_samples": {"b": cpu}}


def test_hand_off_pools_read_against_allocation_in_wall_and_in_cpu_time():
    # The shared pool is slower in wall time and faster in CPU time; Netty, heap is within noise in both.
    from allocorpool.chapters import threads_handoff

    table = pd.DataFrame([_handoff_row("alloc", 1, [100, 101, 99, 100, 102], [200, 201, 199, 200, 202]),
                          _handoff_row("shared-pool", 1, [150, 151, 149, 152, 150], [100, 101, 99, 100, 102]),
                          _handoff_row("netty-pooled-heap", 1, [80, 130, 100, 70, 125], [150, 260, 200, 140, 250])])
    compared = threads_handoff.against_allocation(table).set_index("pool")
    assert compared.loc["Shared pool", "wall time"].endswith(", slower")
    assert compared.loc["Shared pool", "wall time"].startswith("1.5")
    assert compared.loc["Shared pool", "CPU time"].endswith(", faster")
    assert compared.loc["Netty, heap", "wall time"].endswith(", undecided")
    lines = threads_handoff.tallies(compared.reset_index())
    assert lines[0] == ("Shared pool against allocation, one producer and 1 worker: in wall time slower in 1 of 1; "
                        "in CPU time faster in 1 of 1 solution and case pairs.")
    # a pool without a CPU figure reads not measured in CPU time, its wall time still decided
    no_cpu = table.assign(thread_cpu_ns_per_packet=None)
    unmeasured = threads_handoff.against_allocation(no_cpu)
    assert set(unmeasured["CPU time"]) == {effects.NOT_MEASURED}
    assert threads_handoff.tallies(unmeasured)[0] == (
        "Shared pool against allocation, one producer and 1 worker: in wall time slower in 1 of 1; "
        "in CPU time not measured in any of 1 solution and case pairs.")


def test_workers_that_outnumber_the_cpus_with_their_producer_are_labelled_wherever_they_show(monkeypatch):
    # One worker and its producer had a CPU each on 2 CPUs; two workers and the producer shared them. The two-worker
    # rows say so in every table, sentence and tally; on 3 CPUs nothing is labelled.
    from allocorpool.chapters import threads_handoff

    table = pd.DataFrame([_handoff_row(s, n, [w * n for w in wall], [c * n for c in cpu])
                          for n in (1, 2) for s, wall, cpu in (("alloc", [100, 101, 99], [200, 201, 199]),
                                                                ("shared-pool", [80, 81, 79], [150, 151, 149]))])
    shared = threads_handoff.shared_cpus(table)
    assert shared == {2: 2} and threads_handoff.shared_cpus(table.assign(cpus=3)) == {}
    assert threads_handoff.workers_text(2, shared) == "2 (3 threads, 2 CPUs)"
    assert threads_handoff.workers_text(1, shared) == "1"
    note = threads_handoff.shared_note(shared)
    assert note.startswith("2 workers and the producer ran as 3 threads on 2 CPUs.") and threads_handoff.shared_note(
        {}) == ""
    compared = threads_handoff.against_allocation(table)
    lines = threads_handoff.tallies(compared, shared)
    assert lines[0].startswith("Shared pool against allocation, one producer and 1 worker: in wall time faster")
    assert lines[1].startswith("Shared pool against allocation, one producer and 2 workers on 2 CPUs: ")
    assert [line.split(":")[0].endswith("on 2 CPUs") for line in threads_handoff.fastest(table)] == [False, True]
    shown = []
    monkeypatch.setattr(threads_handoff.show, "show_table", lambda frame, title, *a, **k: shown.append(frame))
    monkeypatch.setattr(threads_handoff.show, "note", lambda text, *a, **k: shown.append(text))
    threads_handoff.show_handoff(table)
    tables = [t for t in shown if isinstance(t, pd.DataFrame)]
    assert len(tables) == 3  # figures, CPU beside wall, against allocation (no Netty rows)
    assert note in [t for t in shown if isinstance(t, str)]
    for frame in tables:
        assert set(frame.index.get_level_values("workers")) == {"1", "2 (3 threads, 2 CPUs)"}, frame.index
    assert "wall ns/packet" in tables[1].columns  # a hand-off's wall time is no thread time: the producer makes all
    # cells not measured: a count no machine ran, and a strategy missing at a count that ran
    unmeasured = pd.DataFrame([{**_handoff_row("alloc", 4, [1.0], [1.0]), "status": "missing"},
                               {**_handoff_row("netty-recycler", 2, [1.0], [1.0]), "status": "missing"}])
    assert threads_handoff.missing_note(pd.concat([table, unmeasured], ignore_index=True)) == (
        "Hand-off: 2 cells not measured (4 workers, which need a machine with a CPU for each worker; Netty Recycler "
        "at 2 workers).")


def test_the_cpu_table_prints_its_figures_as_every_table_does():
    # Whole ns with thousands separated, an interval in the digits it supports: "1,166 (1,061-1,225)", not
    # "1166.3 (1060.9-1224.8)" beside a wall table that reads "3,233 (2,791-3,529)".
    from allocorpool.chapters import threads_costs

    row = {**_handoff_row("alloc", 1, [3200.0, 3232.8, 3260.0], [1166.3]), "thread_cpu_ns_per_packet": 1166.3,
           "thread_cpu_low": 1060.9, "thread_cpu_high": 1224.8, "cpu_ns_per_packet": 6307.0}
    cells = threads_costs.cpu_table(pd.DataFrame([row]), wall="wall ns/packet").iloc[0]
    assert cells.to_dict() == {"wall ns/packet": "3,233", "threads' CPU ns/packet": "1,166 (1,061-1,225)",
                               "process CPU ns/packet": "6,307", "held by the collector": ""}  # no GC log: none
    alone = threads_costs.cpu_table(pd.DataFrame([{**row, "thread_cpu_low": None, "collector_held_pct": 85.04}]))
    assert alone.iloc[0]["threads' CPU ns/packet"] == "1,166"  # no interval: the median alone
    assert alone.iloc[0]["held by the collector"] == "85 %"


def test_the_collector_hold_is_counted_and_netty_heap_set_against_direct_where_they_part():
    # Netty's heap pool held 81 % against its direct pool's 0 % at one thread: the sentence names that cell, the
    # widest gap, and counts the other one over 25 points; the 2-thread cells part by less and are not named.
    from allocorpool.chapters import threads_costs

    def row(strategy, threads, ns, held):
        return {**_row(strategy, threads, [ns]), "label": "ZGC 11", "case": "C", "collector_held_pct": held,
                "netty_used_bytes": 964 * 2**20}

    table = pd.DataFrame([row("alloc", 1, 2_779.0, 86.1), row("netty-pooled-heap", 1, 8_259.0, 81.0),
                          row("netty-pooled-direct", 1, 1_849.0, 0.1), row("alloc", 2, 2_900.0, 88.6),
                          row("netty-pooled-heap", 2, 4_000.0, 30.0), row("netty-pooled-direct", 2, 2_000.0, 16.4),
                          row("pool", 2, 700.0, None)])
    count, netty = threads_costs.held_findings(table)
    assert count == ("The collector stopped or stalled the threads for more than 25 % of their time in 4 of 6 "
                     "Java cells (allocation 2; Netty, heap 2).")
    assert netty == ("Netty's heap pool keeps its chunks in the Java heap (964 MiB in that cell), its direct pool "
                     "outside it. ZGC 11, case C, 1 thread: the collector held the heap pool's threads 81 % of their "
                     "time, the direct pool's 0 %, and the heap pool took 4.5 x as long per packet.")
    assert threads_costs.held_findings(table, netty=False) == [count]
    calm = table.assign(collector_held_pct=5.0)
    assert threads_costs.held_findings(calm) == ["The collector stopped or stalled the threads for more than 25 % "
                                                 "of their time in 0 of 7 Java cells."]


def test_one_thread_here_is_set_beside_the_batch_chapters_with_its_machine():
    from allocorpool.chapters import threads_costs

    here = pd.DataFrame([{**_row("alloc", 1, [230, 231, 229]), "boot": "b2", "scaling": "weak",
                          "boot_samples": {"b1": [92, 93, 91], "b2": [230, 231, 229]}},
                         {**_row("alloc", 2, [240, 241, 239]), "boot": "b2", "scaling": "weak"}])
    batch = pd.DataFrame([{"solution": "parallel-11", "case": "A", "strategy": "alloc", "status": "ok",
                           "ns_per_packet": 74.0, "boot": "b3",
                           "boot_samples": {"b1": [137, 138, 136], "b3": [74, 75, 73]}},
                          {"solution": "parallel-11", "case": "A", "strategy": "pool", "status": "ok",
                           "ns_per_packet": 60.0, "boot": "b3", "boot_samples": {"b3": [60]}}])
    names = {"b1": "machine 1", "b2": "machine 2", "b3": "machine 3"}
    compared = threads_costs.against_batch(here, batch, names)
    assert len(compared) == 1  # pool has no one-thread row here; two threads are not the batch chapters'
    row = compared.loc[("Parallel", "A", "Allocation")]
    assert row["one thread here, ns"] == "230.0 (machine 2)" and row["batch chapters, ns"] == "74.0 (machine 3)"
    assert row["here over batch"] == "3.11" and row["same machine"] == "0.67 (machine 1)"
    note = threads_costs.batch_note(compared, (6, 2), (10, 3))
    assert "3.11 to 3.11 times" in note and "6 s after 2 s of warm-up against 10 s after 3 s" in note
    assert "the two come from different machines in 1 of 1 pair." in note
    assert note.endswith("one thread here took 0.67 to 0.67 times the batch block's time.")
    assert threads_costs.batch_note(threads_costs.against_batch(here, batch.iloc[0:0], names), (6, 2), (10, 3)) \
        .endswith("no pair both measured.")


def test_where_pooling_wins_the_chapter_says_how_often_the_collector_held_allocation():
    # Three cells where a pool per thread is faster than allocation by its interval, allocation held 90 % in one,
    # 10 % in another, and no figure in the third (no GC log: not counted); a cell where allocation wins and one
    # whose medians differ inside overlapping intervals (undecided) are not among them.
    def row(strategy, case, threads, ns, held, spread=0.01):
        return {**_row(strategy, threads, [ns * (1 - spread), ns, ns * (1 + spread)], case=case),
                "collector_held_pct": held}

    table = pd.DataFrame([row("alloc", "C", 1, 3_661.0, 90.4), row("pool", "C", 1, 876.0, 27.0),
                          row("alloc", "B", 1, 488.0, 10.0), row("pool", "B", 1, 450.0, 16.0),
                          row("alloc", "B", 2, 910.0, None), row("pool", "B", 2, 567.0, 19.0),
                          row("alloc", "A", 1, 100.0, 1.0), row("pool", "A", 1, 114.0, 52.0),
                          row("alloc", "A", 2, 100.0, 80.0, 0.3), row("pool", "A", 2, 95.0, 52.0, 0.3)])
    assert chapter.held_finding(table) == [
        "In 2 Java cells a pool per thread was faster than allocation by more than the margin; in 1 of them the "
        "collector held allocation's threads for more than 25 % of their time. There the margin is largely the "
        "collector's work, which depends on the heap's size against the live set."]
    assert chapter.held_finding(table.drop(columns="collector_held_pct")) == []  # C++ or no GC log: nothing said
