"""Chapter 14, the live-set continuum: each size run and its crossovers read, repeated probes around a change, a
line that runs out of heap; and the pool-size what-if: the largest heap pool that fits, found by bisection through
the store, the off-heap pools at ten million, and what the chapter and the "ten million buffers" verdict say."""

import re
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import effects, study
from allocorpool.analysis.min_heap import FAILED, FITS, TOO_SMALL
from allocorpool.chapters import continuum as continuum_chapter
from allocorpool.chapters import summary
from allocorpool.chapters.page import readability
from allocorpool.effects import FAILS, HOLDS, MIXED, NOT_MEASURED
from allocorpool.run import executor, sweep
from allocorpool.run.cells import pool_size_cell
from allocorpool.run.experiments import continuum as measure_continuum
from allocorpool.run.java import JavaRun
from allocorpool.run.runner import run_cell
from allocorpool.study import SOLUTIONS_BY_NAME

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
CI = study.PROFILES["ci"]
# Three live-set sizes (20, 600 and 20,000 packets in FIFO and store at ci's scale): a change between two of them
THREE_SIZES = replace(CI.continuum, sizes=(1_000, 30_000, 1_000_000))
# Parallel's heap pool and its native twin, the pool sizes of the full profile at ci's scale (0.02), bisected to 0.5 M
POOLS = replace(CI, name="tiny-pools", solutions=("parallel-11", "native-parallel-11"),
                continuum=replace(CI.continuum, pool_sizes=(1_000_000, 3_000_000, 10_000_000), pool_resolution=500_000))
FITS_UP_TO = 7_200_000  # the fake JVM's heap holds a pool of this many buffers (before the scale), no more


def continuum_of(chapter: sweep.Sweep) -> sweep.Continuum:
    """The continuum chapter's table as notebook 14 asks for it: the sweep's executor and solutions."""
    return measure_continuum.continuum(chapter.executor, chapter.solutions("continuum"), chapter.off_heap_solutions())


def pool_sizes_of(chapter: sweep.Sweep) -> pd.DataFrame:
    """The pool-size what-if of the chapter's solutions and the plan's off-heap ones."""
    return measure_continuum.pool_sizes(chapter.executor, chapter.solutions("continuum"), chapter.off_heap_solutions())


@pytest.fixture
def runs(monkeypatch):
    """The fake engine: a heap pool runs out of heap above FITS_UP_TO buffers; every run counted."""
    made = []

    def fake_run(cell, workdir, **options):
        made.append(cell)
        out = cell.strategy == "pool" and cell.pool_size > FITS_UP_TO * cell.scale
        return run_cell(cell, workdir, **options, build=lambda c, out_, log: [
            sys.executable, str(FAKE), "oom" if out else "ok", *c.engine_args(out_)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    return made


def test_the_continuum_runs_each_size_and_reads_its_crossovers(tmp_path, monkeypatch):
    def fake_run(cell, workdir, **options):  # pooling loses in real time from a store of 600 up
        behaviour = "ok"
        if cell.mode == "realtime" and cell.strategy == "pool" and cell.stored_count >= 600:
            behaviour = "slow"
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    monkeypatch.setenv("FAKE_FACTORS", "alloc:2")  # in batch, allocation takes twice pooling's time
    prof = replace(CI, name="tiny-continuum", solutions=("flat-glibc",), continuum=THREE_SIZES)
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    measured = continuum_of(chapter)
    curves = measured.curves
    plan = prof.continuum
    assert len(curves) == len(plan.strategies) * len(plan.sizes) and set(curves["batch_status"]) == {"ok"}
    assert sorted(set(curves["live_packets"])) == [2 * max(1, round(s * prof.scale)) for s in plan.sizes]
    pool = curves[curves["strategy"] == "pool"].set_index("size")["keeps_up"]
    assert pool.tolist() == [True, False, False]  # 20, 600 and 20,000 packets in FIFO and store
    table = continuum_chapter.crossovers(curves).set_index("what")
    assert table.loc["Pooling loses nothing at 1,000 ns", "reading"] == "loss-free up to 1,000, loses from 30,000"
    assert table.loc["Allocation loses nothing at 1,000 ns", "reading"] == "loss-free at every size measured"
    # the batch order at each size is a block's: decided by the ratio's interval, either way
    assert (curves["runs"] == prof.blocks.repetitions).all()
    assert table.loc["batch: allocation faster than pooling", "reading"] == "slower from the smallest size measured"
    assert list(measured.pool_sizes["pool_size"]) == list(plan.pool_sizes)
    assert set(measured.pool_sizes["status"]) == {"ok"}
    chapter.finish(curves.rename(columns={"batch_status": "status"}), measured.pool_sizes)


def test_a_continuum_crossover_rests_on_repeated_probes_around_it(tmp_path, monkeypatch):
    runs = []

    def fake_run(cell, workdir, **options):  # pooling loses from a store of 20,000 up; its repeat at 600 loses too
        runs.append(cell)
        losing = (cell.stored_count or 0) >= 20_000 or (cell.stored_count == 600 and cell.repetition == 1)
        behaviour = "slow" if cell.mode == "realtime" and cell.strategy == "pool" and losing else "ok"
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    ci = study.PROFILES["ci"]
    prof = replace(ci, name="tiny-repeats", solutions=("flat-glibc",),
                   continuum=replace(THREE_SIZES, strategies=("alloc", "pool"), pool_sizes=()))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    curves = continuum_of(chapter).curves
    pool = curves[curves["strategy"] == "pool"]
    assert pool["probe_keeps_up"].tolist() == [True, True, False]  # 20, 600 and 20,000 packets, first probes
    # 600 and 20,000 are repeated; 600's repeat loses, which moves the change down: 20 is repeated in turn
    assert pool["repeat_keeps_up"].tolist() == [True, False, False] and pool["keeps_up"].tolist() == [True, False, False]
    assert curves.loc[curves["strategy"] == "alloc", "repeat_status"].isna().all()  # no change, nothing repeated
    assert sorted(c.stored_count for c in runs if c.repetition == 1 and c.mode == "realtime") == [20, 600, 20_000]
    table = continuum_chapter.crossovers(curves).set_index("what")
    assert table.loc["Pooling loses nothing at 1,000 ns", "reading"] == "loss-free up to 1,000, loses from 30,000"
    said = continuum_chapter.repeat_sentence(curves)
    assert "2 of the 3 repeats agreed with the first probe. The repeats that did not:" in said
    assert "- C++ flat (glibc) Pooling at 30,000: first kept up, then fell behind, losing nothing yet" in said, said
    many = pd.concat([curves] * 6, ignore_index=True)  # however many repeats differ, no sentence grows with them
    lines = continuum_chapter.repeat_sentence(many).splitlines()  # each bullet is its own element on the page
    assert max(readability.words(s) for line in lines for s in readability.sentences(line)) <= readability.MAX_WORDS
    chapter.finish(curves.rename(columns={"batch_status": "status"}))
    replayed = sweep.Sweep(prof, tmp_path, progress=False, replay=True)  # a replay reads the repeats back
    assert continuum_of(replayed).curves["keeps_up"].tolist() == curves["keeps_up"].tolist()
    monkeypatch.setattr(study.paths, "engine_build", lambda engine: "another")  # the store is another build's
    replayed = sweep.Sweep(prof, tmp_path, progress=False, replay=True)
    assert continuum_of(replayed).curves["keeps_up"].tolist() == curves["keeps_up"].tolist()


def test_a_continuum_line_stops_where_its_live_set_runs_out_of_heap(tmp_path, monkeypatch):
    runs = []

    def fake_run(cell, workdir, **options):  # a JVM out of heap from a store of 600 up
        runs.append(cell)
        behaviour = "oom" if (cell.stored_count or 0) >= 600 else "ok"
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    prof = replace(study.PROFILES["ci"], name="tiny-out-of-heap", solutions=("parallel-11",),
                   continuum=replace(THREE_SIZES, pool_sizes=()))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    curves = continuum_of(chapter).curves
    sizes = sorted(prof.continuum.sizes)
    assert len(sizes) == 3 and len(curves) == 3 * len(prof.continuum.strategies)
    for _, line in curves.groupby("strategy"):
        assert line["batch_status"].tolist() == ["ok", sweep.NOT_FITTING, sweep.NOT_FITTING]
        assert line["probe_status"].tolist() == ["ok", sweep.NOT_FITTING, sweep.NOT_FITTING]
        assert line["batch_key"].notna().tolist() == [True, True, False]  # the largest size is not run
    # each line: the smallest size's batch and probe, the next size's batch (out of heap), nothing more; and
    # the batch block of the one size where every strategy fitted (the calibration's reference cell aside)
    single = [c for c in runs if not c.boot and c.stored_count is not None]
    assert len(single) == 3 * len(prof.continuum.strategies) and all(c.stored_count < 600 for c in single
                                                                        if c.mode == "realtime")
    assert {c.stored_count for c in runs if c.boot} == {20}
    chapter.finish(curves.rename(columns={"batch_status": "status"}))  # running out of heap is an answer
    said, shown = [], []
    monkeypatch.setattr(continuum_chapter.show, "note", said.append)
    monkeypatch.setattr(continuum_chapter.show, "show_failures", lambda *args: said.append("failed"))
    monkeypatch.setattr(continuum_chapter.show, "show_figure", lambda figure: None)
    monkeypatch.setattr(continuum_chapter.show, "show_table", lambda table, **options: shown.append(table))
    continuum_chapter.show_curves(curves)
    assert len(said) == 1 and "run out of heap from the size given" in said[0], said  # no failure shown
    stops = [table for table in shown if "first size that does not fit" in table.columns]
    assert len(stops) == 1
    allocation = stops[0].loc[("Parallel 11, 2019 \"CMS\"", "Allocation")]
    assert (allocation["first size that does not fit"], allocation["live packets there"]) == (30_000, 1_200)


def test_the_bisection_halves_the_bracket_on_the_grid_of_the_resolution():
    asked = []

    def run(size):
        asked.append(size)
        return FITS if size <= FITS_UP_TO else TOO_SMALL
    assert measure_continuum.bisect_pool(run, 3_000_000, 10_000_000, 500_000) == (measure_continuum.FOUND, 7_000_000)
    assert asked == [6_500_000, 8_000_000, 7_000_000, 7_500_000]  # 4 runs bracket 7 M buffers to 0.5 M
    # a run that fails for another reason than the heap stops the search, with the largest size known to fit
    assert measure_continuum.bisect_pool(lambda size: FAILED, 3_000_000, 10_000_000, 500_000) == (FAILED, 3_000_000)
    assert measure_continuum.bisect_pool(lambda size: "missing", 3_000_000, 10_000_000, 500_000) == (
        "missing", 3_000_000)
    assert measure_continuum.bisect_pool(lambda size: 1 / 0, 3_000_000, 3_500_000, 500_000) == (
        measure_continuum.FOUND, 3_000_000)


def test_the_largest_heap_pool_that_fits_is_found_through_the_store_and_replayed(tmp_path, runs):
    ran = sweep.Sweep(POOLS, tmp_path, progress=False)
    measured = pool_sizes_of(ran)
    table = measured[measured["step"] != measure_continuum.BLOCK]
    heap = table[table["solution"] == "parallel-11"]
    assert heap["pool_size"].tolist() == [1_000_000, 3_000_000, 10_000_000, 6_500_000, 8_000_000, 7_000_000, 7_500_000]
    assert heap["step"].tolist() == ["plan"] * 3 + ["search"] * 4
    assert heap["fits"].tolist() == [FITS, FITS, TOO_SMALL, FITS, TOO_SMALL, FITS, TOO_SMALL]
    assert set(heap["search"]) == {measure_continuum.FOUND} and set(heap["largest_fitting"]) == {7_000_000}
    assert all(cell.fill_limit_s == 30 for cell in runs[3:7])  # a search run that thrashes in its fill does not fit
    # the off-heap twin (not one of the chapter's solutions): its smallest and largest pools, in direct memory
    native = table[table["solution"] == "native-parallel-11"]
    assert native["pool_size"].tolist() == [1_000_000, 10_000_000] and set(native["status"]) == {"ok"}
    assert set(native["pool"]) == {measure_continuum.OFF_HEAP} and native["search"].isna().all()
    assert {c.strategy for c in runs[:9]} == {"pool", "native-pool"} and all(not c.boot for c in runs[:9])
    # then each Java pool's comparison, the smallest size against the largest that fits, runs again as a block:
    # both sizes interleaved, the profile's repetitions each, in this boot
    blocks = measured[measured["step"] == measure_continuum.BLOCK]
    repetitions = POOLS.blocks.repetitions
    in_blocks = [c for c in runs[9:] if c.boot]  # the others: each block's calibration, a reference cell
    assert len(in_blocks) == 2 * 2 * repetitions and {c.pool_size for c in in_blocks} == {20_000, 140_000, 200_000}
    made = len(runs)
    assert sorted(blocks.groupby("solution")["pool_size"].unique().map(list).to_dict().items()) == [
        ("native-parallel-11", [1_000_000, 10_000_000]), ("parallel-11", [1_000_000, 7_000_000])]
    assert (blocks.groupby(["solution", "pool_size"]).size() == repetitions).all()
    assert set(blocks["status"]) == {"ok"} and set(blocks["fits"]) == {FITS}
    assert continuum_chapter.block_rows(measured)["runs"].tolist() == [f"{repetitions} and {repetitions}"] * 2
    ran.finish(measured)  # ci is strict: a pool that ran out of its heap is the what-if's answer, not a failure
    # a replay reads every run back and runs nothing
    again = sweep.Sweep(POOLS, tmp_path, progress=False, replay=True)
    replayed = pool_sizes_of(again)
    assert len(runs) == made
    assert replayed[["key", "status", "fits", "search", "largest_fitting", "step"]].equals(
        measured[["key", "status", "fits", "search", "largest_fitting", "step"]])
    # a replay whose store lacks a bisection's run (another resolution's steps) says so, and runs nothing
    coarser = replace(POOLS, continuum=replace(POOLS.continuum, pool_resolution=1_000_000))
    other = sweep.Sweep(coarser, tmp_path, progress=False, replay=True)
    missing = pool_sizes_of(other)
    assert len(runs) == made
    stopped = missing[(missing["solution"] == "parallel-11") & (missing["step"] != measure_continuum.BLOCK)]
    assert stopped["status"].tolist()[-1] == "missing" and set(stopped["search"]) == {"missing"}
    assert continuum_chapter.fit_rows(missing)["bisection"].tolist() == ["stopped: a run is not measured"]


def test_an_off_heap_pool_gets_the_direct_memory_its_buffers_need():
    full = study.PROFILES["full"]
    ten = pool_size_cell(SOLUTIONS_BY_NAME["native-g1"], 10_000_000, full)
    # ten million 1 KiB buffers need 9.5 GiB of direct memory, more than the JVM's 2 GB; the heap is the heap
    # pools' 10 GB (the packet objects of ten million buffers do not fit the native solutions' own 1 GB)
    assert ten.strategy == "native-pool" and ten.heap == "10g"
    assert ten.vm_options[-1] == "-XX:MaxDirectMemorySize=10g" and "MaxDirectMemorySize=10g" in ten.key
    flags = JavaRun(jdk=11, collector="g1", heap=ten.heap, vm_options=ten.vm_options).vm_flags()
    direct = [flag for flag in flags if flag.startswith("-XX:MaxDirectMemorySize=")]
    assert direct == ["-XX:MaxDirectMemorySize=2g", "-XX:MaxDirectMemorySize=10g"]  # the JVM takes the last
    one = pool_size_cell(SOLUTIONS_BY_NAME["native-g1"], 1_000_000, full)
    assert not any("MaxDirectMemorySize" in option for option in one.vm_options)  # 1 GiB fits the JVM's own
    # the heap pools' cells keep the keys their stored runs have
    heap = pool_size_cell(SOLUTIONS_BY_NAME["parallel-11"], 10_000_000, full)
    assert heap.measurement == "java_jdk11_parallel_10g_B_p10000000_pool_batch_d20_w5_x1_counter_gclog"
    assert pool_size_cell(SOLUTIONS_BY_NAME["native-g1"], 10_000_000, study.PROFILES["quick"]).vm_options == \
        SOLUTIONS_BY_NAME["native-g1"].vm_options  # a tenth: 1 GiB, within the JVM's own


def _pools(lines):
    """What-if rows: per solution (name, label, where its buffers are, search, largest fitting), its runs as
    {pool size: (step, status, ns per packet or a list of them, error)}."""
    rows = []
    for (solution, label, where, search, largest), runs in lines:
        for size, (step, status, ns, error) in runs.items():
            for figure in (ns if isinstance(ns, list) else [ns]):
                fits = FITS if status == "ok" else TOO_SMALL if "OutOfMemoryError" in (error or "") else \
                    status if status == "missing" else FAILED
                rows.append({"solution": solution, "label": label, "strategy_label": "Pooling", "case": "B",
                             "pool_size": size, "status": status, "error": error, "ns_per_packet": figure,
                             "pool": where, "fits": fits, "step": step, "search": search, "largest_fitting": largest})
    return pd.DataFrame(rows)


OOM = "java.lang.OutOfMemoryError: Java heap space"
HEAP, OFF, CPP = measure_continuum.ON_HEAP, measure_continuum.OFF_HEAP, measure_continuum.NO_HEAP
MEASURED = _pools([
    # Parallel: out of heap with ten million; 7.5 M fits at 1.1 x the time per packet of one million
    (("parallel-11", "Parallel", HEAP, "found", 7_500_000), {
        1_000_000: ("plan", "ok", 300.0, None), 3_000_000: ("plan", "ok", 310.0, None),
        10_000_000: ("plan", "error", None, OOM), 6_500_000: ("search", "ok", 320.0, None),
        8_000_000: ("search", "error", None, OOM), 7_500_000: ("search", "ok", 330.0, None)}),
    # G1: the same, and its largest pool that fits takes 1.75 x: much worse
    (("g1", "G1", HEAP, "found", 6_500_000), {
        1_000_000: ("plan", "ok", 400.0, None), 10_000_000: ("plan", "error", None, OOM),
        6_500_000: ("search", "ok", 700.0, None), 7_000_000: ("search", "error", None, OOM)}),
    # off the heap, ten million ran: 1.05 x
    (("native-parallel-11", "Native Parallel", OFF, None, None), {
        1_000_000: ("plan", "ok", 200.0, None), 10_000_000: ("plan", "ok", 210.0, None)}),
    # C++ is shown, not judged; a solution the store has no run of is not named
    (("flat-glibc", "C++ flat", CPP, None, None), {
        1_000_000: ("plan", "ok", 120.0, None), 10_000_000: ("plan", "ok", 100.0, None)}),
    (("zgc-gen-25", "ZGC", HEAP, "missing", None), {
        1_000_000: ("plan", "missing", None, "not measured: the store has no such cell"),
        10_000_000: ("plan", "missing", None, "not measured: the store has no such cell")})])


def test_ten_million_buffers_are_judged_at_the_largest_heap_pool_that_fits_and_off_the_heap_at_ten_million():
    verdict = summary.ten_million_buffers(pool_sizes=MEASURED)
    # it used to leave both heap pools unjudged (out of heap) and show the off-heap one beside, unjudged
    assert verdict.outcome == MIXED and verdict.summary == (
        "holds in 1, fails in 2 of 3 Java solutions' pools; 2 of the 2 pools on the heap did not fit it with "
        "10,000,000 buffers: 10 M buffers of 1 KiB, about 1.1 KiB each with their objects, cannot fit a 10 GB heap")
    cells = verdict.cells.set_index("label")
    assert cells.loc["Parallel", "compared at"] == "7,500,000, the largest that fits"
    assert cells.loc["Parallel", "effect"] == "1.10 x (one run each)" and cells.loc["Parallel", "outcome"] == "fails"
    assert cells.loc["Parallel", "10,000,000 buffers"] == "did not fit in the heap"
    assert (cells.loc["G1", "compared at"], cells.loc["G1", "outcome"]) == ("6,500,000, the largest that fits", "holds")
    assert cells.loc["Native Parallel", "compared at"] == "10,000,000"
    assert cells.loc["Native Parallel", "effect"] == "1.05 x (one run each)"
    assert cells.loc["C++ flat", "outcome"] == "shown, not judged" and "ZGC" not in cells.index
    assert "one run each" in verdict.rule and "10 M buffers of 1 KiB cannot fit a 10 GB heap" in verdict.rule
    for said in (verdict.rule, verdict.summary):
        assert max(readability.words(s) for s in readability.sentences(said)) <= readability.MAX_WORDS
        assert not readability.INTERNAL_NAME.search(said)


def test_ten_million_buffers_use_the_interval_where_several_runs_were_made():
    repeated = _pools([(("native-g1", "Native G1", OFF, None, None), {
        1_000_000: ("plan", "ok", [200.0, 202.0, 204.0], None), 10_000_000: ("plan", "ok", [400.0, 404.0, 408.0], None)})])
    verdict = summary.ten_million_buffers(pool_sizes=repeated)
    assert verdict.outcome == HOLDS and "95 % interval" in verdict.rule and "one run each" not in verdict.rule
    assert re.fullmatch(r"2\.0+ x \(1\.9\d*-2\.0\d*\)", verdict.cells.iloc[0]["effect"]), verdict.cells.iloc[0]["effect"]
    # a search cut short judges nothing, and the fact of size is still said
    close = summary.ten_million_buffers(pool_sizes=_pools([(("parallel-11", "Parallel", HEAP, "failed", 3_000_000), {
        1_000_000: ("plan", "ok", 300.0, None), 3_000_000: ("plan", "ok", 450.0, None),
        10_000_000: ("plan", "error", None, OOM)})]))
    assert close.outcome == NOT_MEASURED and "did not fit it with 10,000,000 buffers" in close.summary
    assert summary.ten_million_buffers(pool_sizes=MEASURED[MEASURED["solution"] == "flat-glibc"]).outcome == NOT_MEASURED
    assert summary.ten_million_buffers().outcome == NOT_MEASURED  # the article's own figures have none
    assert summary.ten_million_buffers(pool_sizes=MEASURED.iloc[:0]).summary.startswith("not measured yet")
    even = _pools([(("native-g1", "Native G1", OFF, None, None), {
        1_000_000: ("plan", "ok", 200.0, None), 10_000_000: ("plan", "ok", 300.0, None)})])
    assert summary.ten_million_buffers(pool_sizes=even).outcome == "undecided"  # 1.5 x: within the margin
    assert summary.ten_million_buffers(pool_sizes=even.assign(ns_per_packet=[200.0, 210.0])).outcome == FAILS


def test_ten_million_buffers_read_the_block_where_the_comparison_was_repeated():
    # one run each says 1.05 x (fails: not much worse); the block's three runs a side say about 2 x: it holds
    single = _pools([(("native-g1", "Native G1", OFF, None, None), {
        1_000_000: ("plan", "ok", 200.0, None), 10_000_000: ("plan", "ok", 210.0, None)})])
    block = _pools([(("native-g1", "Native G1", OFF, None, None), {
        1_000_000: ("block", "ok", [200.0, 205.0, 210.0], None), 10_000_000: ("block", "ok", [400.0, 405.0, 410.0], None)})])
    assert summary.ten_million_buffers(pool_sizes=single).outcome == FAILS
    verdict = summary.ten_million_buffers(pool_sizes=pd.concat([single, block], ignore_index=True))
    assert verdict.outcome == HOLDS and "95 % interval" in verdict.rule
    assert verdict.cells.iloc[0]["1,000,000 buffers, ns"] == 205.0
    shown = continuum_chapter.block_rows(pd.concat([single, block], ignore_index=True))
    assert shown["larger / smaller"].tolist() == [effects.ratio([400.0, 405.0, 410.0], [200.0, 205.0, 210.0]).text()]


def test_the_chapter_states_the_pools_that_do_not_fit_as_a_fact_and_shows_the_largest_that_fits(monkeypatch):
    said, shown = [], []
    monkeypatch.setattr(continuum_chapter.show, "note", said.append)
    monkeypatch.setattr(continuum_chapter.show, "show_table", lambda table, *args, **kwargs: shown.append(table))
    overflow = ('Exception in thread "main" java.lang.ArithmeticException: integer overflow\n'
                "\tat allocorpool.strategy.NativeSlab.<init>")
    crashed = _pools([(("native-g1", "Native G1", OFF, None, None), {
        1_000_000: ("plan", "ok", 210.0, None), 10_000_000: ("plan", "error", None, overflow)})])
    continuum_chapter.show_pool_sizes(pd.concat([MEASURED, crashed], ignore_index=True))
    text = "\n".join(said)
    # one run a size compares nothing: no ratio of two single runs is printed
    assert "×" not in text and "One run a size: no comparison between sizes is drawn from them." in text
    assert ("With 10,000,000 buffers, 2 of the 2 Java pools on the heap did not fit in it. That is a fact of size, not a "
            "measure of speed: 10 M pooled buffers of 1 KiB") in text
    assert "These did not finish:\n\n- Native G1 with 10,000,000 buffers (integer overflow)\n" in text
    assert "Exception" not in text and "Error" not in text and "True" not in text and "_" not in text
    sentences = [s for line in text.splitlines() for s in readability.sentences(line)]
    assert max(readability.words(s) for s in sentences) <= readability.MAX_WORDS
    by_size, fits = shown
    assert list(by_size.columns) == ["1,000,000 buffers", "3,000,000 buffers", "10,000,000 buffers"]
    assert by_size.loc[("Native Parallel", OFF), "10,000,000 buffers"] == 210.0
    assert list(fits.index) == ["Parallel", "G1"]
    assert fits.loc["Parallel"].tolist() == ["7,500,000", "8,000,000", "to within 500,000 buffers", 330.0, 300.0, "1.10×"]
    assert fits.loc["G1", "smallest that does not"] == "7,000,000"
    said.clear()
    continuum_chapter.show_pool_sizes(MEASURED[MEASURED["solution"] == "zgc-gen-25"])  # nothing measured: not named
    assert said == ["No pool-size run finished."]


def test_every_panel_of_the_continuum_draws_on_the_same_log_axis():
    # a shared y axis that is log in the first panel only draws the others' values on its scale (G1's 625 ns at
    # the height of Parallel's 374)
    curves = pd.DataFrame([{"label": label, "strategy_label": strategy, "size": size, "ns_per_packet": ns}
                           for label, ns in (("Parallel 11", 374.0), ("G1 11", 625.0), ("ZGC 11", 500.0))
                           for strategy in ("Allocation", "Pooling") for size in (1_000, 100_000)])
    fig = continuum_chapter.curves_figure(curves, "ns_per_packet", "t", "ns per packet")
    axes = [name for name in fig.layout.to_plotly_json() if name.startswith("yaxis")]
    assert len(axes) == 3 and all(fig.layout[name].type == "log" for name in axes)
    assert fig.layout.yaxis.title.text == "ns per packet"


def test_a_what_if_probe_that_fell_behind_without_a_loss_reads_so():
    # chapter 4 failed formatting a probe that did not keep up and lost nothing ("loses None %")
    from types import SimpleNamespace
    from allocorpool.chapters import realtime
    row = SimpleNamespace(status="ok", keeps_up=False, loss_pct=None)
    assert realtime.what_if_text(row) == "falls behind"
    assert realtime.what_if_text(SimpleNamespace(status="ok", keeps_up=False, loss_pct=0.25)) == "loses 0.25 %"
    assert realtime.what_if_text(SimpleNamespace(status="timeout", keeps_up=None, loss_pct=None)) == "timeout"


def test_the_what_if_table_reads_a_probe_that_fell_behind_without_a_loss(monkeypatch):
    # the table wrote its own outcome words and failed on such a probe ("loses None %") under a busy ci run
    from allocorpool.chapters import realtime
    shown = []
    monkeypatch.setattr(realtime.show, "show_table", lambda table, caption=None, **_: shown.append(table))
    probes = pd.DataFrame([{"label": "Parallel 11", "strategy_label": "pooling", "case": case, "queue_ms": 20,
                            "duration_s": 0.25, "status": status, "keeps_up": keeps_up, "loss_pct": loss}
                           for case, status, keeps_up, loss in (("A", "ok", False, None), ("B", "ok", False, 0.25),
                                                                ("C", "ok", True, 0.0), ("A", "timeout", None, None))])
    realtime.show_what_if(probes)
    assert shown[0]["result"].tolist() == ["falls behind", "loses 0.25 %", "keeps up", "timeout"]
