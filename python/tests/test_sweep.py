"""sweep.py: cells run through the store once, searches replayed from their probes, failures kept."""

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import lists, settings, study
from allocorpool.analysis import min_heap
from allocorpool.chapters.page import sections
from allocorpool.data import tables
from allocorpool.run.experiments import batch as measure_batch, heap as measure_heap, jdks as measure_jdks
from allocorpool.run.experiments import realtime as measure_realtime, sentinels as measure_sentinels
from allocorpool.run import calibration, executor, machine_check, probe_series, sweep
from allocorpool.run.experiments import stored as measure_stored
from allocorpool.run.runner import run_cell
from allocorpool.study import SOLUTIONS_BY_NAME

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"  # loses ticks below 437 ns
TINY = replace(study.PROFILES["ci"], name="tiny", cases=("A",), solutions=("flat-glibc",), strict=False,
               search=study.SearchPlan(high_ns=2000, longest_probe_s=2, confirm=False))
FLAT = SOLUTIONS_BY_NAME["flat-glibc"]


def across_jdks(chapter: sweep.Sweep) -> pd.DataFrame:
    """The JDKs chapter's table as notebook 15 asks for it: with the sweep's executor and selection."""
    return measure_jdks.across_jdks(chapter.executor, chapter.selection)


@pytest.fixture
def engine(monkeypatch):
    """The fake engine in place of the real ones: behaviour per (strategy, mode), a list of them taken
    one per run (the last one stays), or a function of the cell; every run counted."""
    behaviours, runs = {}, []

    def fake_run(cell, workdir, **options):
        runs.append(cell)
        behaviour = behaviours.get((cell.strategy, cell.mode), "ok")
        if callable(behaviour):
            behaviour = behaviour(cell)
        if isinstance(behaviour, list):
            behaviour = behaviour.pop(0) if len(behaviour) > 1 else behaviour[0]
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])

    monkeypatch.setattr(executor, "run_cell", fake_run)
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 100.0))
    return behaviours, runs


def test_batch_cells_run_once_and_failures_are_kept(tmp_path, engine):
    behaviours, runs = engine
    behaviours[("mix", "batch")] = "error"
    first = measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    blocks = TINY.blocks.repetitions  # a block: every strategy, each repeated, one process a run
    calibrations = [cell for cell in runs if not cell.boot]
    assert len(calibrations) == 1 and calibrations[0].key == calibration.reference_cell(TINY).key
    runs[:] = [cell for cell in runs if cell.boot]
    assert list(first["strategy"]) == list(study.STRATEGIES) and len(runs) == 4 * blocks
    assert first.set_index("strategy").loc["pool", "ns_per_packet"] == 100.0
    # CPU time beside wall time: the fake engine spends 0.5 s of CPU in its 0.4 s window
    from allocorpool.chapters import batch as batch_chapter
    ok = first[first["status"] == "ok"]
    assert (ok["cpu_ns_per_packet"] > ok["ns_per_packet"]).all()
    busy = batch_chapter.cpu_table(first)
    assert list(busy["strategy"]) == ["Allocation", "Pooling"] and busy["cores busy"].between(1.1, 1.4).all()
    assert (first.set_index("strategy").loc[["dummy", "alloc", "pool"], "runs"] == blocks).all()
    failed = first[first["status"] != "ok"]
    assert list(failed["strategy"]) == ["mix"] and failed["error"].iloc[0] == "pool conservation check failed"
    assert failed["ns_per_packet"].isna().all() and failed["failed_runs"].tolist() == [blocks]
    again = measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    assert len(runs) == 4 * blocks and again["status"].tolist() == first["status"].tolist()  # all from the store
    retried = measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False, retry_failed=True).executor, [FLAT])
    assert len(runs) == 5 * blocks and retried["status"].tolist() == first["status"].tolist()  # the failures ran again


def test_a_search_finds_the_boundary_and_replays_from_the_store(tmp_path, engine):
    _, runs = engine
    searches = measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    table = searches.table.set_index("strategy")
    assert list(table.index) == list(study.REALTIME_STRATEGIES)
    assert (table["outcome"] == "found").all()
    assert table["interval_ns"].between(437, 437 * 1.5).all()
    assert table["loss_pct"].isna().all()  # a loss-free interval exists: 1000 ns is not probed
    assert len(searches.probes) == table["probes"].sum() and set(searches.probes["purpose"]) <= {
        "bracket", "bisect", "repeat"}
    repeats = searches.probes[searches.probes["purpose"] == "repeat"]
    assert len(repeats) == 3 and repeats["key"].str.contains("_r1_b").all()  # each interval found, run again
    count = len(runs)
    replay = measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    assert len(runs) == count and replay.table["interval_ns"].tolist() == searches.table["interval_ns"].tolist()


def test_lost_everywhere_and_failed_searches(tmp_path, engine):
    behaviours, _ = engine
    behaviours[("alloc", "realtime")] = "crash"
    narrow = replace(TINY, search=replace(TINY.search, high_ns=400))  # the fake engine loses below 437 ns
    searches = measure_realtime.realtime(sweep.Sweep(narrow, tmp_path, progress=False).executor, [FLAT])
    table = searches.table.set_index("strategy")
    assert table.loc["alloc", "outcome"] == "failed" and table.loc["alloc", "error"] == "exit code 134"
    assert "simulated crash" in table.loc["alloc", "stderr_tail"]
    assert table.loc["pool", "outcome"] == "lost" and table.loc["pool", "loss_pct"] == 0.0  # probed at 1000 ns
    assert table.loc["pool", "big_heap"] is None  # C++ has no heap


def test_a_crashed_probe_runs_once_more_and_a_slow_consumer_is_never_loss_free(tmp_path, engine):
    behaviours, runs = engine
    behaviours[("pool", "realtime")] = ["crash", "ok"]  # the first probe crashes, its second attempt runs
    behaviours[("mix", "realtime")] = "slow"  # loses nothing but falls behind the clock
    table = measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    searches = table.table.set_index("strategy")
    # within the search's resolution (10 %) of the boundary
    assert searches.loc["pool", "outcome"] == "found" and 437 <= searches.loc["pool", "interval_ns"] <= 437 * 1.1
    pool = table.probes[table.probes["strategy"] == "pool"]
    assert list(pool["attempt"][:2]) == [1, 2] and list(pool["status"][:2]) == ["error", "ok"]
    assert searches.loc["mix", "outcome"] == "lost"  # never kept up, though it lost nothing
    mix = table.probes[(table.probes["strategy"] == "mix") & (table.probes["interval_ns"] >= 437)]
    assert len(mix) and (mix["lost"] == 0).all() and not mix["kept_up"].any()
    count = len(runs)
    # replayed: nothing runs again
    again = measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    assert len(runs) == count and again.table["outcome"].tolist() == table.table["outcome"].tolist()


def test_an_epsilon_run_that_does_not_fit_its_heap_is_its_answer_not_a_failure(tmp_path, engine):
    # Epsilon never collects: an allocating cell that fills its heap before the window is what Epsilon can
    # do there (in ci it fills 8 GB within its 0.5 s warm-up or just after, as fast as the machine runs).
    behaviours, _ = engine
    behaviours[("alloc", "batch")] = "heap_full"
    epsilon = SOLUTIONS_BY_NAME["epsilon-25"]
    strict = replace(TINY, strict=True, solutions=("flat-glibc", "epsilon-25"))
    chapter = sweep.Sweep(strict, tmp_path, progress=False)
    batch = measure_batch.batch(chapter.executor, [epsilon])
    assert batch.set_index("strategy").loc["alloc", "status"] == "error"  # shown as it ended
    # the summary's machine table, from the stored runs
    facts = measure_stored.machine(chapter.executor).set_index("what")["value"]
    assert facts["CPU"] and "(R)" not in facts["CPU"]
    chapter.finish(batch)
    other = sweep.Sweep(strict, tmp_path / "flat", progress=False)  # a collector's cell that does not fit fails
    with pytest.raises(sweep.ChapterFailed, match="does not fit in the heap"):
        other.finish(measure_batch.batch(other.executor, [FLAT]))


def test_the_profile_and_data_folder_come_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(settings.PROFILE_VARIABLE, "ci")
    monkeypatch.setenv(settings.DATA_VARIABLE, str(tmp_path / "data"))
    chosen = sweep.Sweep(progress=False)
    assert chosen.profile.name == "ci" and chosen.store.root == tmp_path / "data"
    assert [s.name for s in chosen.solutions("cpp")] == ["cpp-glibc", "flat-glibc", "flat-jemalloc"]
    assert measure_stored.machine(chosen.executor).empty


def test_a_strict_profile_fails_a_chapter_whose_runs_failed_or_that_has_no_result(tmp_path, engine):
    behaviours, _ = engine
    behaviours[("mix", "batch")] = "error"
    strict = replace(TINY, strict=True)
    chapter = sweep.Sweep(strict, tmp_path, progress=False)
    batch = measure_batch.batch(chapter.executor, [FLAT])
    with pytest.raises(sweep.ChapterFailed, match="cpp_flat_glibc_A_mix_batch.*: error: pool conservation check failed"):
        chapter.finish(batch)
    lenient = sweep.Sweep(TINY, tmp_path, progress=False)  # the same failure, read back: shown, not raised
    lenient.finish(measure_batch.batch(lenient.executor, [FLAT]))
    behaviours.clear()
    clean = sweep.Sweep(strict, tmp_path / "clean", progress=False)
    clean.finish(measure_batch.batch(clean.executor, [FLAT]))
    with pytest.raises(sweep.ChapterFailed, match="result table 1 of 1 has no finished row"):
        clean.finish(batch[batch["status"] == "nothing"])


def test_a_replay_runs_nothing_and_shows_the_newest_result_of_each_measurement(tmp_path, engine):
    _, runs = engine
    measured = measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    count = len(runs)
    rebuilt = replace(TINY, name="tiny-rebuilt")
    monkeypatched = sweep.Sweep(TINY, tmp_path, progress=False, replay=True)
    replayed = measure_batch.batch(monkeypatched.executor, [FLAT])
    assert replayed["status"].tolist() == measured["status"].tolist() and len(runs) == count
    empty = sweep.Sweep(rebuilt, tmp_path / "empty", progress=False, replay=True)
    batch = measure_batch.batch(empty.executor, [FLAT])
    searches = measure_realtime.realtime(empty.executor, [FLAT])
    assert len(runs) == count  # a replay never runs a cell
    assert set(batch["status"]) == {"missing"} and set(searches.table["outcome"]) == {"missing"}


def test_a_replay_of_cells_another_build_measured_points_at_their_stored_files(tmp_path, engine, monkeypatch):
    monkeypatch.setattr(study.paths, "engine_build", lambda engine: "one")
    measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    monkeypatch.setattr(study.paths, "engine_build", lambda engine: "two")  # this checkout's engine: not the store's
    replay = sweep.Sweep(TINY, tmp_path, progress=False, replay=True)
    batch = measure_batch.batch(replay.executor, [FLAT])
    probes = measure_realtime.realtime(replay.executor, [FLAT]).probes
    assert set(batch["status"]) == {"ok"} and set(probes["status"]) == {"ok"}
    for key in [*batch["key"], *probes["key"]]:  # each key names a stored file, made by build one
        assert key.endswith("_bone") and replay.load(key).status == "ok"
    # the cells it read, for the article's account of its runs: the stored ones it showed, by their own keys
    # (every repetition of a block, not only the one standing for its cell)
    read = replay.cells_read()
    assert set(batch["key"]) | set(probes["key"]) <= set(read)
    assert len([key for key in read if "_batch_" in key and "_k" in key]) == 4 * TINY.blocks.repetitions
    assert all(key.endswith("_bone") for key in read)
    empty = sweep.Sweep(TINY, tmp_path / "empty", progress=False, replay=True)
    measure_batch.batch(empty.executor, [FLAT])
    assert empty.cells_read() == []  # what the store lacks was not read


def test_the_what_if_probes_a_longer_queue_at_1000_ns(tmp_path, engine):
    _, runs = engine
    chapter = sweep.Sweep(TINY, tmp_path, progress=False)
    what_if = measure_realtime.what_if_queue(chapter.executor, chapter.solutions_named(["flat-glibc"]), ("pool", "mix"))
    assert list(what_if["strategy"]) == ["pool", "mix"] and (what_if["status"] == "ok").all()
    assert what_if["keeps_up"].all()  # the fake engine keeps up at 1000 ns
    probed = [cell for cell in runs if cell.mode == "realtime"]
    assert {cell.interval_ns for cell in probed} == {1000}
    assert {cell.capture_delay_ms for cell in probed} == {sweep.WHAT_IF_QUEUE_MS * TINY.scale}


def test_the_minimum_heap_is_bisected_and_its_multiples_measured(tmp_path, monkeypatch):
    runs = []

    def fake_run(cell, workdir, **options):  # a Java cell that needs 70 MB, or crashes where told
        runs.append(cell)
        heap_mb = int(cell.heap[:-1]) * (1024 if cell.heap.endswith("g") else 1)
        behaviour = "crash" if heap_mb in crashes else ("ok" if heap_mb >= 70 else "oom")
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])
    crashes = set()
    monkeypatch.setattr(executor, "run_cell", fake_run)
    prof = replace(study.PROFILES["ci"], name="tiny-heap", solutions=("parallel-11",))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    result = measure_heap.heap_multiples(chapter.executor, chapter.solutions("heap"))
    minimum = result.minimum.set_index("strategy")
    assert list(minimum.index) == list(prof.heap.strategies) and set(minimum["outcome"]) == {"found"}
    assert minimum["min_heap_mb"].between(70, 70 * (1 + prof.heap.resolution)).all()
    assert (result.bisections["verdict"] == "too small").any()  # out of heap below 70 MB ...
    chapter.finish(result.multiples)  # ... is the bisection's answer, not a failed run
    multiples = result.multiples
    assert list(multiples["factor"]) == [*prof.heap.factors] * len(prof.heap.strategies)
    assert (multiples["heap_mb"] == (multiples["factor"] * multiples["strategy"].map(minimum["min_heap_mb"])).round()).all()
    assert (multiples["cpu_ns_per_packet"] > multiples["ns_per_packet"]).all()  # 0.5 s of CPU in 0.4 s
    assert (multiples["overhead_wall"] == 0).all()  # every configuration costs the same here
    crashes.add(24)  # a crash that is not the heap's ends the search as failed, and fails a strict chapter
    strict = sweep.Sweep(replace(prof, name="tiny-heap-crash", strict=True), tmp_path / "crash", progress=False)
    crashed = measure_heap.heap_multiples(strict.executor, strict.solutions("heap"))
    assert set(crashed.minimum["outcome"]) == {"failed"} and crashed.multiples.empty
    with pytest.raises(sweep.ChapterFailed, match="exit code 134"):
        strict.finish(crashed.multiples)


def test_each_multiple_of_the_minimum_heap_runs_its_repeats_under_keys_of_their_own(tmp_path, monkeypatch):
    def fake_run(cell, workdir, **options):  # a Java cell that needs 70 MB
        heap_mb = int(cell.heap[:-1]) * (1024 if cell.heap.endswith("g") else 1)
        return run_cell(cell, workdir, **options, build=lambda c, out, log: [
            sys.executable, str(FAKE), "ok" if heap_mb >= 70 else "oom", *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    ci = study.PROFILES["ci"]
    prof = replace(ci, name="tiny-repeats", solutions=("parallel-11",),
                   heap=replace(ci.heap, strategies=("pool",), repeats=2))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    multiples = measure_heap.heap_multiples(chapter.executor, chapter.solutions("heap")).multiples
    assert list(multiples["factor"]) == [f for f in prof.heap.factors for _ in range(2)]
    assert list(multiples["repetition"]) == [0, 1] * len(prof.heap.factors) and (multiples["status"] == "ok").all()
    first, again = multiples[multiples["repetition"] == 0], multiples[multiples["repetition"] == 1]
    assert not first["key"].str.contains("_r").any()  # the first run keeps the key a single run always had
    assert (again["key"].to_numpy() == first["key"].str.replace(r"^(.*?)(_b[0-9a-f]+)?$", r"\1_r1\2", regex=True).to_numpy()).all()
    assert multiples["overhead_wall"].notna().all()


def test_a_sweep_resumes_from_the_cells_of_a_build_listed_as_measuring_the_same(tmp_path, engine, monkeypatch):
    behaviours, runs = engine
    behaviours[("mix", "batch")] = "error"
    monkeypatch.setattr(study.paths, "engine_build", lambda engine: "old")
    measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    blocks = [cell for cell in runs if cell.boot]
    reps = TINY.blocks.repetitions
    assert len(blocks) == 4 * reps
    monkeypatch.setattr(study.paths, "engine_build", lambda engine: "new")
    behaviours.clear()
    monkeypatch.setattr(lists, "SAME_MEASUREMENT_BUILDS", {"cpp": {"old": "a change that measures the same"}})
    count = len(runs)
    resumed = measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    # a listed build's failure is this build's too (a bisection's out-of-memory): nothing runs again
    assert len(runs) == count and resumed["key"].str.endswith("_bold").all()
    assert resumed.set_index("strategy").loc["mix", "status"] == "error"
    retried = measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False, retry_failed=True).executor, [FLAT])
    assert len(runs) == count + reps and {c.strategy for c in runs[count:]} == {"mix"}  # on the new build
    assert retried.set_index("strategy")["key"].str.endswith("_bold").tolist() == [True, True, False, True]
    monkeypatch.setattr(lists, "SAME_MEASUREMENT_BUILDS", {})
    measure_batch.batch(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    assert len(runs) == count + 4 * reps  # an unlisted build's runs are not this build's: the other three run again


def test_a_bisection_run_that_thrashes_in_its_fill_phase_does_not_fit(tmp_path, monkeypatch):
    cells = []

    def fake_run(cell, workdir, **options):  # out of heap below 70 MB, thrashing (a fill that never ends) below 90
        cells.append(cell)
        heap_mb = int(cell.heap[:-1]) * (1024 if cell.heap.endswith("g") else 1)
        behaviour = "oom" if heap_mb < 70 else ("fill_hang" if heap_mb < 90 else "ok")
        return run_cell(cell, workdir, **options, poll_s=0.05,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    monkeypatch.setattr(min_heap, "FILL_LIMIT_FLOOR_S", 1.0)  # the fake engine's fill takes no time
    prof = replace(study.PROFILES["ci"], name="tiny-thrash", solutions=("parallel-11",), heap=replace(
        study.PROFILES["ci"].heap, strategies=("pool",), resolution=0.25))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    (solution,) = chapter.solutions_named(["parallel-11"])
    row, runs = measure_heap.min_heap(chapter.executor, solution, "pool", "C")
    assert row["outcome"] == "found" and 90 <= row["min_heap_mb"] <= 90 * (1 + prof.heap.resolution)
    thrashed = runs[runs["heap_mb"].between(70, 89)]
    assert len(thrashed) and (thrashed["status"] == "timeout").all() and (thrashed["verdict"] == "too small").all()
    assert cells[0].fill_limit_s is None and {c.fill_limit_s for c in cells[1:]} == {1.0}  # limited once one fitted
    assert cells[0].key == replace(cells[0], fill_limit_s=1.0).key  # a limit is not what a cell measures


def test_a_replay_of_a_store_without_the_jdks_blocks_shows_their_single_runs(tmp_path, engine):
    plan = study.JdkPlan(jdks=(11,), collectors=("parallel",), strategies=("alloc", "pool"), cases=None)
    single = replace(study.PROFILES["ci"], name="jdks-single", jdks=plan, strict=False,
                     blocks=replace(study.PROFILES["ci"].blocks, repetitions=0))
    first = across_jdks(sweep.Sweep(single, tmp_path, progress=False))
    assert (first["batch_status"] == "ok").all() and (first["runs"] == 1).all()
    blocked = replace(single, name="jdks-blocks", blocks=study.PROFILES["ci"].blocks)
    replayed = across_jdks(sweep.Sweep(blocked, tmp_path, progress=False, replay=True))
    assert list(replayed["batch_key"]) == list(first["batch_key"]) and (replayed["runs"] == 1).all()
    assert list(replayed["ns_per_packet"]) == list(first["ns_per_packet"])


def test_a_replay_reads_the_jdks_cells_from_the_batch_block_that_holds_them(tmp_path, engine):
    # the article's Parallel 11 measured in the batch chapters' blocks before the JDKs chapter had its own
    plan = study.JdkPlan(jdks=(11,), collectors=("parallel",), strategies=("alloc", "pool"), cases=None)
    prof = replace(study.PROFILES["ci"], name="jdks-from-batch", jdks=plan, strict=False)
    measure_batch.batch(sweep.Sweep(prof, tmp_path, progress=False).executor, [SOLUTIONS_BY_NAME["parallel-11"]])
    replayed = across_jdks(sweep.Sweep(prof, tmp_path, progress=False, replay=True))
    assert (replayed["batch_status"] == "ok").all() and (replayed["runs"] == prof.blocks.repetitions).all()
    assert replayed["ns_low"].notna().all()


def test_recording_a_jdk_and_collector_measures_its_blocks_then_its_probes(tmp_path, engine, monkeypatch):
    from allocorpool.run import record
    behaviours, runs = engine
    behaviours[("pool", "realtime")] = "slow"
    plan = study.JdkPlan(jdks=(11,), collectors=("parallel",), strategies=("alloc", "pool"), cases=None)
    prof = replace(study.PROFILES["ci"], name="jdks-record", jdks=plan, strict=False)
    monkeypatch.setattr(record.profiles, "profile", lambda name: prof)
    monkeypatch.setattr(record, "Sweep", lambda name, progress: sweep.Sweep(prof, tmp_path, progress=False))
    said = record.record_jdks("jdks-record", "parallel-11").splitlines()
    assert said[0].startswith("parallel-11 case A: alloc ") and "pool / alloc" in said[0]
    assert said[1] == f"parallel-11 case A alloc at {plan.interval_ns} ns: keeps up (one probe)"
    assert said[2] == f"parallel-11 case A pool at {plan.interval_ns} ns: falls behind (one probe)"
    probes = [cell for cell in runs if cell.mode == "realtime"]
    assert sorted(cell.strategy for cell in probes) == ["alloc", "pool"]
    again = len(runs)
    assert record.record_jdks("jdks-record", "parallel-11").splitlines() == said and len(runs) == again


def test_recording_the_jdks_blocks_names_the_valid_jdk_and_collectors_on_a_bad_one(capsys):
    from allocorpool.__main__ import main
    assert main(["blocks", "--profile", "ci", "--solution", "cms-8", "--jdks"]) == 2
    error = capsys.readouterr().err
    assert "unknown JDK and collector of the JDKs chapter 'cms-8'; one of parallel-11, g1-11" in error
    assert main(["blocks", "--profile", "ci", "--list", "--jdks"]) == 0
    assert capsys.readouterr().out.split() == ["parallel-11", "g1-11", "parallel-25", "g1-25"]
    assert main(["blocks", "--profile", "ci", "--solution", "cpp-glibc", "--continuum"]) == 2
    assert "solution 'cpp-glibc' is not in the continuum; one of parallel-11, g1," in capsys.readouterr().err


def test_what_a_record_prints_of_a_single_run_and_of_a_block():
    from allocorpool.run import record
    assert record._figure({"status": "ok", "ns_per_packet": 212.0}) == "212 (one run)"
    assert record._figure({"status": "ok", "ns_per_packet": 212.0, "ns_low": 190.0, "ns_high": 240.0,
                           "runs": 3}) == "212 (190-240)"
    assert record._figure({"status": "timeout"}) == "timeout"


def test_a_record_names_the_newest_boots_ratio_beside_the_one_over_every_boot():
    """The figures a record prints are the newest boot's: its ratio stands beside them, and the ratio over every
    boot that measured the block (the verdict that stands) is named as such."""
    from allocorpool import effects
    from allocorpool.analysis import blocks as block_figures
    from allocorpool.run import record
    older, newest = effects.Effect(0.6, 0.55, 0.65, 3, 3), effects.Effect(1.25, 1.2, 1.3, 3, 3)
    over = effects.Effect(0.9, 0.6, 1.3, 6, 6, boots=2)
    two = block_figures.Comparison({"aaaa": older, "bbbb": newest}, "bbbb", over=over)
    assert record._effect_words(two) == (f"{newest.text()} in this boot: fails; over 2 boots {over.text()}: "
                                         "undecided")
    one = block_figures.Comparison({"bbbb": newest}, "bbbb")
    assert record._effect_words(one) == f"{newest.text()}: fails"


def test_a_record_of_probes_says_over_how_many_boots_and_rounds_the_median_loss():
    from allocorpool.run import record
    row = {"case": "A", "strategy": "mix", "interval_ns": 1000, "lossy": 15, "probes": 15, "failed": 0,
           "loss_pct": 0.8341119519131308, "boots": 5}
    assert record._probes_words("parallel-11", row) == (
        "parallel-11 case A mix at 1000 ns: over 5 boots, 15 of 15 probes lost, 0 failed, median loss 0.834 %")
    assert record._probes_words("g1", {**row, "boots": 0, "loss_pct": None, "lossy": 0, "probes": 0}) == (
        "g1 case A mix at 1000 ns: 0 of 0 probes lost, 0 failed, median loss not measured")


def test_the_fill_limit_of_a_bisection_run_is_a_multiple_of_a_fitted_fill():
    assert min_heap.fill_limit_s(None) is None
    assert min_heap.fill_limit_s(2.0) == min_heap.FILL_LIMIT_FLOOR_S
    assert min_heap.fill_limit_s(80.0) == 80.0 * min_heap.FILL_SLOWDOWN


def test_the_jdks_chapter_runs_each_collector_of_each_jdk_and_a_selection_limits_it(tmp_path, monkeypatch):
    def fake_run(cell, workdir, **options):  # G1 loses in real time; everything else keeps up
        behaviour = "slow" if cell.mode == "realtime" and cell.collector == "g1" else "ok"
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    prof = replace(study.PROFILES["ci"], name="tiny-jdks", jdks=study.JdkPlan(
        jdks=(11, 25), collectors=("parallel", "g1"), strategies=("pool",), cases=None))
    table = across_jdks(sweep.Sweep(prof, tmp_path, progress=False))
    assert list(zip(table["jdk"], table["collector"])) == [(11, "parallel"), (11, "g1"), (25, "parallel"), (25, "g1")]
    assert list(table["keeps_up"]) == [True, False, True, False]  # a slow consumer never keeps up
    assert (table["batch_status"] == "ok").all() and table["ns_per_packet"].notna().all()
    assert table["probe_key"].str.contains("_realtime_1000ns_").all()
    # the batch figures are blocks': a median over the profile's repetitions, with its interval
    assert (table["runs"] == prof.blocks.repetitions).all() and table["ns_low"].notna().all()
    assert (table["boots"] == 1).all() and table["batch_key"].str.contains("_batch_").all()
    monkeypatch.setenv(sweep.SOLUTIONS_VARIABLE, "paper")  # of these, the article ran only Parallel on 11 (its "CMS")
    paper = across_jdks(sweep.Sweep(prof, tmp_path, progress=False))
    assert list(paper["solution"]) == ["parallel-11"] and paper["batch_key"].iloc[0] == table["batch_key"].iloc[0]
    # a replay under the selection shows every pair the store holds (the article ran none of these JDKs),
    # and of an empty store only the selection's
    replayed = across_jdks(sweep.Sweep(prof, tmp_path, progress=False, replay=True))
    assert list(replayed["batch_key"]) == list(table["batch_key"]) and list(replayed["keeps_up"]) == [True, False] * 2
    empty = across_jdks(sweep.Sweep(prof, tmp_path / "empty", progress=False, replay=True))
    assert list(empty["solution"]) == ["parallel-11"] and list(empty["batch_status"]) == ["missing"]


def test_a_replay_without_the_timeline_runs_says_they_are_not_measured(tmp_path, monkeypatch):
    replay = sweep.Sweep(TINY, tmp_path / "empty", progress=False, replay=True)
    runs = measure_realtime.timelines(replay.executor, [SOLUTIONS_BY_NAME["parallel-11"]])
    assert runs and all(result.status == "missing" for *_, result in runs)
    assert runs[0][3].error == "not measured: the store has no such cell"
    notes = []
    monkeypatch.setattr(sections.show, "note", notes.append)
    sections.show_timelines(runs)
    assert notes and all(note.endswith("not measured (the store has no such run).") for note in notes)
    assert all(", alloc," not in note for note in notes) and any(", allocation, case" in note for note in notes)


def test_a_search_whose_repeat_loses_goes_on_above_it(tmp_path, engine):
    behaviours, runs = engine
    # The first probe keeps up from 437 ns, a second one only from 600 ns (a pause the first probes missed).
    behaviours[("pool", "realtime")] = lambda cell: "slow" if cell.repetition and cell.interval_ns < 600 else "ok"
    searches = measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    pool = searches.table.set_index("strategy").loc["pool"]
    assert pool["outcome"] == "found" and 600 <= pool["interval_ns"] <= 600 * 1.1
    probes = searches.probes[searches.probes["strategy"] == "pool"]
    repeats = probes[probes["repetition"] == 1]
    assert not repeats["ok"].iloc[0] and repeats.set_index("interval_ns").loc[pool["interval_ns"], "ok"]
    assert not repeats[repeats["interval_ns"] < 600]["ok"].any()
    notes = sections.repeat_sentence(searches.probes)
    assert f"{(~repeats['ok'].astype(bool)).sum()} of the {len(searches.probes.query('repetition == 1'))} repeats lost" in notes
    count = len(runs)
    # replayed: nothing runs again
    again = measure_realtime.realtime(sweep.Sweep(TINY, tmp_path, progress=False).executor, [FLAT])
    assert len(runs) == count and again.table["interval_ns"].tolist() == searches.table["interval_ns"].tolist()


def test_a_sentinel_search_that_keeps_up_at_1000_ns_gets_one_long_run_there(tmp_path, engine, monkeypatch):
    behaviours, runs = engine
    monkeypatch.setattr(lists, "SENTINELS", (("flat-glibc", "A"),))
    long_run = TINY.long_run_s
    behaviours[("alloc", "realtime")] = "slow"  # never keeps up: the search loses at 1000 ns itself
    # pooling's short probes keep up from 437 ns; its long run at 1000 ns falls behind
    behaviours[("pool", "realtime")] = lambda cell: "slow" if cell.duration_s == long_run else "ok"
    runner = sweep.Sweep(TINY, tmp_path, progress=False)
    searches = measure_sentinels.sentinels(runner.executor, runner.sentinel_solutions())
    count = len(runs)
    long_runs = measure_sentinels.sentinel_long_runs(runner.executor, searches, runner.sentinel_solutions())
    long_runs = long_runs.set_index("strategy")
    ran = runs[count:]
    assert sorted(cell.strategy for cell in ran) == ["mix", "pool"]
    assert {(cell.interval_ns, cell.duration_s) for cell in ran} == {(1000, long_run)}
    assert long_runs.loc["alloc", "search_loses"] and long_runs.loc["alloc", "loses"]
    assert pd.isna(long_runs.loc["alloc", "status"])  # not run: its search lost there
    assert not long_runs.loc["pool", "search_loses"] and long_runs.loc["pool", "loses"]
    assert long_runs.loc["mix", "loses"] == False and long_runs.loc["mix", "lost_pct"] == 0.0  # noqa: E712
    count = len(runs)
    again = measure_sentinels.sentinel_long_runs(sweep.Sweep(TINY, tmp_path, progress=False).executor, searches,
                                             runner.sentinel_solutions())
    assert len(runs) == count and again["loses"].tolist() == long_runs["loses"].tolist()  # from the store


SERIES = replace(TINY, solutions=("g1",), search=replace(TINY.search, series=True))
G1 = SOLUTIONS_BY_NAME["g1"]


@pytest.fixture
def series_engine(engine, monkeypatch):
    """The fake engine behind a probe series too: the cells each series started with."""
    started = []

    def fake_command(cell, out, log):
        started.append(cell)
        return [sys.executable, str(FAKE), "ok", *cell.engine_args(out)]
    monkeypatch.setattr(probe_series, "engine_command", fake_command)
    return started


def test_a_java_search_runs_its_probes_in_one_series(tmp_path, series_engine):
    sw = sweep.Sweep(SERIES, tmp_path, progress=False)
    row, probes = measure_realtime.search(sw.executor, G1, "pool", "A")
    assert row["outcome"] == "found" and 437 <= row["interval_ns"] <= 437 * 1.5
    assert len(series_engine) == 1 and len(probes) >= 4  # every probe in one engine process
    assert probes["key"].str.contains("_series_").all()
    stored = sw.store.index.set_index("key").loc[probes["key"]]
    assert stored["series_probe"].tolist() == list(range(len(probes)))  # in the order the search asked
    assert stored["fill_s"].iloc[0] > 0 and (stored["fill_s"].iloc[1:] == 0).all()  # one fill
    replay = sweep.Sweep(SERIES, tmp_path, progress=False, replay=True)
    replayed_row, replayed = measure_realtime.search(replay.executor, G1, "pool", "A")
    assert len(series_engine) == 1 and replayed["key"].tolist() == probes["key"].tolist()
    assert replayed_row["interval_ns"] == row["interval_ns"]


def test_a_series_search_does_not_read_the_probes_measured_alone(tmp_path, engine, series_engine):
    # A probe alone opens on a fresh fill's heap, one in series on an older one, which can see the old
    # generation's slow collections a fresh probe misses: they are two measurements, never mixed.
    _, runs = engine
    by_itself = sweep.Sweep(replace(SERIES, search=TINY.search), tmp_path, progress=False)
    alone_row, alone = measure_realtime.search(by_itself.executor, G1, "pool", "A")
    assert not alone["key"].str.contains("_series_").any() and len(series_engine) == 0
    row, probes = measure_realtime.search(sweep.Sweep(SERIES, tmp_path, progress=False).executor, G1, "pool", "A")
    assert len(series_engine) == 1 and probes["key"].str.contains("_series_").all()
    assert sorted(probes["key"].str.replace("_series", "")) == sorted(alone["key"])  # the same probes, in series
    replay = sweep.Sweep(replace(SERIES, search=TINY.search), tmp_path, progress=False, replay=True)
    again, replayed = measure_realtime.search(replay.executor, G1, "pool", "A")
    assert replayed["key"].tolist() == alone["key"].tolist()  # each plan reads its own


def test_a_failed_probe_ends_its_series_and_its_second_attempt_starts_another(tmp_path, series_engine, monkeypatch):
    monkeypatch.setenv("FAKE_SERIES_FAIL_AT", "2")  # the third probe of every series fails
    sw = sweep.Sweep(SERIES, tmp_path, progress=False)
    row, probes = measure_realtime.search(sw.executor, G1, "pool", "A")
    assert probes["status"].iloc[2] == "error" and probes["error"].iloc[2] == "pool conservation check failed"
    assert probes["key"].iloc[3] == probes["key"].iloc[2] and probes["status"].iloc[3] == "ok"  # asked again
    # the second attempt opened a new series: the engine started again with it, and it filled again
    assert len(series_engine) >= 2 and series_engine[1].key == probes["key"].iloc[2]
    retried = sw.store.index.set_index("key").loc[probes["key"].iloc[2]]
    assert (retried["attempts"], retried["series_probe"]) == (2, 0) and retried["fill_s"] > 0
    assert row["outcome"] == "found"


def test_a_probes_collections_are_the_engines_pause_and_cycle_counts():
    # the big-heap column reads "no GC" on a count of 0; a C++ or failed run has no count, which is not 0
    assert tables.window_collections({"gc_pause_count": 0.0, "gc_cycle_count": 0.0}) == 0
    assert tables.window_collections({"gc_pause_count": 0.0, "gc_cycle_count": 2.0}) == 2  # ZGC: cycles, no bean pauses
    assert tables.window_collections({"gc_pause_count": float("nan"), "gc_cycle_count": 0.0}) is None
    assert tables.window_collections({}) is None


def test_a_big_heap_probe_that_saw_no_collection_runs_again_as_long_as_a_confirmation(tmp_path, monkeypatch):
    prof = replace(study.PROFILES["ci"], name="tiny-big-heap", cases=("A",), solutions=("parallel-11",), strict=False,
                   search=study.SearchPlan(high_ns=400, longest_probe_s=2, confirm=False))  # loses up to 400 ns
    solution = SOLUTIONS_BY_NAME["parallel-11"]
    big = study.heap_text(solution.big_heap_mb(prof.scale))
    runs = []

    def fake_run(cell, workdir, **options):  # the big heap's short probe sees no collection, its long one one
        runs.append(cell)
        quiet = cell.heap == big and cell.duration_s == prof.probe_s
        monkeypatch.setenv("FAKE_GC_PAUSES", "0" if quiet else "1")
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    row, _ = measure_realtime.search(sweep.Sweep(prof, tmp_path, progress=False).executor, solution, "pool", "A")
    assert row["outcome"] == "lost" and len(row["big_heap_keys"]) == 2
    on_big = [(cell.duration_s, cell.interval_ns) for cell in runs if cell.heap == big]
    assert on_big == [(prof.probe_s, 1000), (2, 1000)]
    assert row["big_heap_status"] == "ok" and row["big_heap_s"] == 2 and row["big_heap_collections"] == 1
    assert row["big_heap_keys"][-1] == runs[-1].key
    assert row["big_heap"] == solution.big_heap_mb(prof.scale)  # a number, MB: the chapters write it for the reader


def test_the_sentinel_batch_runs_are_single_runs_of_the_profiles_length(tmp_path, engine):
    _, runs = engine
    prof = replace(TINY, cases=("C",))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    table = measure_sentinels.sentinel_batch(chapter.executor, chapter.sentinel_solutions())  # ("flat-glibc", "C")
    assert list(table["strategy"]) == list(study.REALTIME_STRATEGIES) and (table["status"] == "ok").all()
    assert (table["runs"] == 1).all() and all(not cell.boot for cell in runs)  # not blocks


def test_without_blocks_each_batch_cell_runs_once(tmp_path, engine):
    _, runs = engine
    single = replace(TINY, blocks=study.BlockPlan(repetitions=0))
    table = measure_batch.batch(sweep.Sweep(single, tmp_path, progress=False).executor, [FLAT])
    assert len(runs) == 4 and all(not cell.boot for cell in runs) and (table["runs"] == 1).all()


def test_headroom_blocks_run_both_strategies_at_multiples_of_the_larger_minimum_heap(tmp_path, monkeypatch):
    def fake_run(cell, workdir, **options):  # allocation needs 70 MB, pooling 90 MB
        heap_mb = int(cell.heap[:-1]) * (1024 if cell.heap.endswith("g") else 1)
        needs = 90 if cell.strategy == "pool" else 70
        return run_cell(cell, workdir, **options, build=lambda c, out, log: [
            sys.executable, str(FAKE), "ok" if heap_mb >= needs else "oom", *c.engine_args(out)])
    monkeypatch.setattr(executor, "run_cell", fake_run)
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 100.0))
    ci = study.PROFILES["ci"]
    prof = replace(ci, name="tiny-headroom", solutions=("parallel-11", "native-g1", "flat-glibc"), cases=("A",),
                   heap=replace(ci.heap, resolution=0.05))
    chapter = sweep.Sweep(prof, tmp_path, progress=False)
    table = measure_heap.headroom(chapter.executor, chapter.solutions_named(("parallel-11", "native-g1", "flat-glibc")))
    assert list(table["solution"]) == ["parallel-11"] * len(lists.HEADROOM_FACTORS)  # Java with buffers on the heap
    pool_min = table["min_heap_mb_pool"].iloc[0]
    assert 90 <= pool_min <= 90 * (1 + prof.heap.resolution) and table["min_heap_mb_alloc"].iloc[0] < pool_min
    assert list(table["heap_mb"]) == [round(f * pool_min) for f in lists.HEADROOM_FACTORS]
    for runs in table["runs"]:
        assert set(runs["strategy"]) == {"alloc", "pool"} and (runs["status"] == "ok").all()
        assert runs["key"].str.contains(f"_{runs['key'].iloc[0].split('_')[3]}_").all()  # one heap for both
    # the model reads each multiple as a test of its own, from the store's register and index
    from allocorpool.analysis import model
    store = chapter.store
    runs = model.answer_runs(store.index, store.table("blocks"))
    assert set(runs["test"]) == {model.headroom_test(f) for f in lists.HEADROOM_FACTORS}
    assert model.tests_of(runs) == [model.headroom_test(f) for f in sorted(lists.HEADROOM_FACTORS)]
    # recording them again reads them back and words each block
    from allocorpool.run import record
    monkeypatch.setattr(record, "Sweep", lambda name, progress: sweep.Sweep(prof, tmp_path, progress=False))
    said = record.record_headroom("tiny-headroom", "parallel-11").splitlines()
    assert len(said) == len(lists.HEADROOM_FACTORS)
    assert said[0].startswith(f"parallel-11 case A at {lists.HEADROOM_FACTORS[0]}x the minimum heap ") \
        and "pooling / allocation" in said[0]


def test_recording_thread_blocks_of_some_cases_measures_those_cases_alone(tmp_path, engine, monkeypatch, capsys):
    """CASES= (--cases) lets a session measure a solution's cases A and B and leave case C, whose blocks take an hour,
    for another, and SCALINGS= its weak blocks alone: only the named cells run; a case or scaling that is not one,
    or either without --threads, exits 2."""
    from allocorpool.__main__ import main
    from allocorpool.profiles import ThreadPlan
    from allocorpool.run import record
    _, runs = engine
    plan = ThreadPlan(counts=(1,), strategies=("alloc", "pool"), solutions=("flat-glibc",), scalings=("weak", "strong"))
    prof = replace(TINY, name="threads-record", cases=("A", "B"), threads=plan)
    monkeypatch.setattr(record.profiles, "profile", lambda name: prof)
    monkeypatch.setattr(record, "Sweep", lambda chosen, progress: sweep.Sweep(chosen, tmp_path, progress=False))
    said = record.record_threads("threads-record", "flat-glibc", probes=False, cases=["B"]).splitlines()
    measured = [cell for cell in runs if cell.boot]
    assert measured and {cell.case for cell in measured} == {"B"}
    # a line for each scaling, each with its own figures (not the other scaling's cells under its name)
    assert [line.split(": ")[0] for line in said] == ["flat-glibc case B, 1 thread(s), weak scaling",
                                                      "flat-glibc case B, 1 thread(s), strong scaling"]
    assert not any("missing" in line or "not measured" in line for line in said)
    # SCALINGS= (--scalings): the weak blocks alone, no strong cell run
    said = record.record_threads("threads-record", "flat-glibc", probes=False, cases=["A"],
                                 scalings=["weak"]).splitlines()
    assert [line.split(": ")[0] for line in said] == ["flat-glibc case A, 1 thread(s), weak scaling"]
    assert {(cell.case, cell.scaling) for cell in runs if cell.boot} == {("B", None), ("B", "strong"), ("A", None)}
    with pytest.raises(ValueError, match="unknown scaling 'both'; one of weak, strong"):
        record.record_threads("threads-record", "flat-glibc", probes=False, scalings=["both"])
    with pytest.raises(SystemExit) as bad:
        main(["blocks", "--profile", "ci", "--solution", "flat-glibc", "--threads", "--cases", "D"])
    error = capsys.readouterr().err
    assert bad.value.code == 2 and "invalid choice: 'D'" in error and "choose from" in error and "C" in error
    with pytest.raises(SystemExit) as bad:
        main(["blocks", "--profile", "ci", "--solution", "flat-glibc", "--threads", "--scalings", "both"])
    error = capsys.readouterr().err
    assert bad.value.code == 2 and "invalid choice: 'both'" in error and "weak" in error and "strong" in error
    assert main(["blocks", "--profile", "ci", "--solution", "flat-glibc", "--scalings", "weak"]) == 2
    assert "--scalings goes with --threads" in capsys.readouterr().err
    assert main(["blocks", "--profile", "ci", "--solution", "flat-glibc", "--cases", "A"]) == 2
    assert "--cases goes with --threads" in capsys.readouterr().err
