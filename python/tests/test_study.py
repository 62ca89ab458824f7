"""study.py: the solutions, their chapters, heaps that scale, cells, profiles and the estimate."""

import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import paths, settings, study
from allocorpool.__main__ import main as allocorpool_main
from allocorpool.run import cost, executor, jdks, machine_check
from allocorpool.run.experiments import realtime as measure_realtime
from allocorpool.run import plan as make_plan
from allocorpool.run.runner import run_cell
from allocorpool.run.sweep import Sweep
from allocorpool.study import CHAPTERS, PROFILES, SOLUTIONS, SOLUTIONS_BY_NAME, batch_cell, probe_cell

ROOT = Path(__file__).resolve().parents[2]


def test_every_solution_runs_on_its_jdk_and_belongs_to_one_chapter():
    across = ("realtime", "gclogs", "heap", "continuum", "threads")  # chapters that take solutions of the others
    chapters = [name for key, names in CHAPTERS.items() if key not in across for name in names]
    assert sorted(chapters) == sorted(s.name for s in SOLUTIONS)
    assert {name for key in across for name in CHAPTERS[key]} <= set(chapters)
    for solution in SOLUTIONS:
        if solution.engine == "java":
            jdks.collector_flags(solution.jdk, solution.collector)  # raises if the JDK lacks it
        else:
            assert solution.design in ("cpp", "flat") and solution.allocator in study.ALLOCATORS
    seed = [s.reference_name for s in SOLUTIONS if s.reference_name]
    assert seed == ["CMS", "G1", "ZGC", "Native CMS", "Native G1", "Native ZGC", "C++", "C++ flat"]


def test_heaps_keep_the_articles_proportions_at_every_scale():
    cms, native, epsilon, cpp = (SOLUTIONS_BY_NAME[n] for n in ("cms", "native-cms", "epsilon-25", "flat-glibc"))
    assert cms.heap_mb(1.0) == 2048 and cms.big_heap_mb(1.0) == 10240
    assert cms.heap_mb(0.1) == 205 and cms.big_heap_mb(0.1) == 1025  # the big heap stays 5x
    assert native.heap_mb(1.0) == 1024 and native.heap_mb(0.1) == 102  # native heaps stay half
    assert native.big_heap_mb(1.0) is None
    assert cms.heap_mb(0.001) == study.MIN_HEAP_MB
    assert epsilon.heap_mb(0.1) == epsilon.heap_mb(1.0) == study.EPSILON_HEAP_MB and epsilon.big_heap_mb(1.0) is None
    assert cpp.heap_mb(1.0) is None


def test_a_small_zgc_heap_keeps_the_part_that_does_not_shrink_with_the_live_set():
    # JDK 11's ZGC in case C, allocation: minimum heap 1512 MB at full size, 223 MB at a tenth (chapter
    # 13). Scaled whole, quick's heap (205 MB) was under that; keeping 80 MB whole, the room above the
    # minimum is a tenth of full size's.
    zgc, native = SOLUTIONS_BY_NAME["zgc"], SOLUTIONS_BY_NAME["native-zgc"]
    assert zgc.heap_mb(1.0) == 2048 and native.heap_mb(1.0) == 1024 and zgc.big_heap_mb(1.0) == 10240
    assert zgc.heap_mb(0.1) == 277 and zgc.heap_mb(0.1) - 223 == round(0.1 * (2048 - 1512))
    assert native.heap_mb(0.1) == 174 and zgc.big_heap_mb(0.1) == 5 * 277
    assert SOLUTIONS_BY_NAME["zgc-gen-25"].heap_mb(0.1) == 205  # not measured to need it


def test_cells_of_each_kind():
    quick = PROFILES["quick"]
    cell = batch_cell(SOLUTIONS_BY_NAME["native-zgc"], "mix", "B", quick)
    assert (cell.engine, cell.jdk, cell.collector, cell.strategy, cell.heap) == ("java", 11, "zgc", "native-mix", "174m")
    assert cell.gc_log and cell.live_objects and cell.duration_s == quick.batch_s and cell.scale == quick.scale
    assert batch_cell(SOLUTIONS_BY_NAME["native-zgc"], "dummy", "B", quick).strategy == "dummy"
    epsilon = batch_cell(SOLUTIONS_BY_NAME["epsilon-25"], "pool", "A", quick)
    assert not epsilon.live_objects and epsilon.stop_when_heap_full and "-XX:+AlwaysPreTouch" in epsilon.vm_options
    assert epsilon.engine_args(Path("x"))[-3:-2] == ["--stop-when-heap-full"]
    coh = batch_cell(SOLUTIONS_BY_NAME["g1-25-coh"], "pool", "A", PROFILES["full"])
    assert coh.compact_headers and coh.heap == "2g" and coh.jdk == 25
    probe = probe_cell(SOLUTIONS_BY_NAME["cms"], "pool", "C", quick, 700, heap_mb=1024)
    assert probe.mode == "realtime" and probe.interval_ns == 700 and probe.heap == "1g"
    cpp = probe_cell(SOLUTIONS_BY_NAME["cpp-mimalloc"], "alloc", "A", quick, 300, duration_s=9)
    assert (cpp.design, cpp.allocator, cpp.duration_s, cpp.gc_log) == ("cpp", "mimalloc", 9, False)


def test_profiles_select_solutions_and_cases():
    ci = PROFILES["ci"]
    assert ci.cases == ("A",) and len(study.solutions(None, ci)) == len(ci.solutions)
    assert [s.name for s in study.solutions(CHAPTERS["g1"], ci)] == ["g1"]
    assert len(study.solutions(None, PROFILES["quick"])) == len(SOLUTIONS)
    assert study.profile("full") is PROFILES["full"]
    with pytest.raises(ValueError, match="unknown profile"):
        study.profile("huge")


def test_the_estimate_counts_cells():
    quick = PROFILES["quick"]
    estimate = study.estimate(quick)
    # every solution's batch cells, and the random-source cells of the batch chapter's comparison
    assert estimate.batch_cells == (len(SOLUTIONS) + len(study.SOURCE_SOLUTIONS)) * len(study.STRATEGIES) * 3
    assert estimate.searches == len(SOLUTIONS) * len(study.REALTIME_STRATEGIES) * 3
    assert estimate.timelines == len(study.TIMELINES)
    # the minimum-heap chapter: in quick, case C's alloc and pool cells of its solutions, bisected then run 3 times
    # at each of 4 multiples
    assert estimate.heap_runs == len(study.HEAP_SOLUTIONS) * 2 * (study.expected_heap_runs(quick.heap) + 4 * 3)
    # the continuum: a batch run and a probe per strategy and size, the repeats around a line's change of
    # verdict, and the pool-size what-if, per solution; and each Java pool's two sizes again as a block
    plan = quick.continuum
    java = [name for name in study.CONTINUUM_SOLUTIONS if study.SOLUTIONS_BY_NAME[name].engine == "java"]
    assert estimate.continuum_runs == len(study.CONTINUUM_SOLUTIONS) * (
        3 * (len(plan.sizes) * (2 + plan.block_repetitions) + study.CONTINUUM_REPEATS) + len(plan.pool_sizes)) \
        + len(java) * 2 * quick.blocks.repetitions
    assert 60 * 60 < estimate.seconds < 4 * 60 * 60
    # `make study SOLUTIONS=paper` from a clean clone took longer than the estimate once said: the bounds
    # hold the estimate near what that sweep took
    quick_paper = study.estimate(quick, study.solutions(None, quick, study.selection("paper")))
    # (the continuum's blocks per size and C++ in the threads chapter came after that sweep: some 20 min more; the
    # threads chapter's strong-scaling blocks, hand-off blocks and two more strategies later still: some 45 min)
    assert 55 * 60 < quick_paper.seconds + quick_paper.beyond_seconds < 160 * 60
    assert "profile quick" in str(estimate) and "estimate: about" in str(estimate)
    ci = study.estimate(PROFILES["ci"])
    # `make test` runs ci's chapters, and CI has 90 min for all of it
    assert ci.seconds + ci.beyond_seconds < 17 * 60
    only_cpp = study.estimate(quick, [SOLUTIONS_BY_NAME["cpp-glibc"]])
    assert only_cpp.batch_cells == 12 and only_cpp.timelines == 0
    full = PROFILES["full"]
    paper = study.estimate(full, study.solutions(None, full, study.selection("paper")))
    # Parallel on JDK 11 only: each strategy's batch block runs and its probe
    assert paper.seconds < study.estimate(full).seconds and paper.jdk_runs == 3 * (full.blocks.repetitions + 1)
    assert estimate.jdk_runs == len(study.jdk_solutions(quick.jdks)) * 3 * 1 * (max(1, quick.blocks.repetitions) + 1)
    assert only_cpp.jdk_runs == 0  # a selection of solutions holds none of the JDKs chapter's but its own


def test_the_jdks_chapter_runs_every_collector_of_each_jdk_as_the_jdk_ships_it():
    quick = PROFILES["quick"]
    found = {s.name: s for s in study.jdk_solutions(quick.jdks)}
    assert [n for n, s in found.items() if s.jdk == 25] == [
        "serial-25", "parallel-25", "g1-25", "zgc-gen-25", "shenandoah-25", "shenandoah-gen-25"]
    assert "cms-11" in found and "cms-17" not in found and {"zgc-21", "zgc-gen-21"} <= set(found)
    assert "epsilon-25" not in found and all(not s.vm_options for s in found.values())
    # a configuration another chapter runs too is the same cell: it is measured once
    for name in ("parallel-11", "parallel-25", "g1-25", "shenandoah-25", "zgc-gen-25"):
        assert batch_cell(found[name], "pool", "C", quick).key == batch_cell(SOLUTIONS_BY_NAME[name], "pool", "C", quick).key
    assert batch_cell(found["g1-11"], "pool", "C", quick).key != batch_cell(SOLUTIONS_BY_NAME["g1"], "pool", "C", quick).key


def test_the_input_queue_scales_as_the_pauses_do():
    quick, full, ci = PROFILES["quick"], PROFILES["full"], PROFILES["ci"]
    # quick's pauses measured 0.137 x full size's and a packet waits 9 ms beyond them whatever the sizes
    # (chapter 12): 0.14 x (100 - 9) + 9 ms. ci's queue has only its scale.
    assert quick.capture_delay_ms == 21.74 and full.capture_delay_ms == 100 and ci.capture_delay_ms == 2
    assert quick.queue_ms(1000) == 147.74  # the article's what-if queue of a second
    assert quick.queue_ms(quick.unscaled_delay_ms) == quick.unscaled_delay_ms  # the unscaled part is kept whole
    solution = SOLUTIONS_BY_NAME["parallel-11"]
    assert probe_cell(solution, "pool", "A", quick, 1000).capture_delay_ms == 21.74
    assert probe_cell(solution, "pool", "A", full, 1000).capture_delay_ms is None  # the engines' own 100 ms
    assert probe_cell(solution, "pool", "A", full, 1000, capture_delay_ms=1000).capture_delay_ms == 1000
    assert "--capture-delay-ms" in probe_cell(solution, "pool", "A", quick, 1000).engine_args(Path("x"))


def test_only_a_cpp_batch_run_counts_its_allocations():
    # A real-time C++ run once ran the counting pass too, a second fill after the probe (case C: 18 s of a
    # 33 s probe), for a figure that only the batch cells show and that does not depend on the interval.
    full = PROFILES["full"]
    flat, parallel = SOLUTIONS_BY_NAME["flat-glibc"], SOLUTIONS_BY_NAME["parallel-11"]
    skip = ["--count-allocations", "no"]
    args = probe_cell(flat, "pool", "C", full, 1000).engine_args(Path("x"))
    assert args[args.index("--count-allocations"):][:2] == skip
    assert "--count-allocations" not in batch_cell(flat, "pool", "C", full).engine_args(Path("x"))
    assert "--count-allocations" not in probe_cell(parallel, "pool", "C", full, 1000).engine_args(Path("x"))
    # the estimate counts the pass for batch runs only
    fill = study.fill_s("C", 1.0, "flat")
    assert study.run_s("flat", 8, fill, counts_allocations=False) < study.run_s("flat", 8, fill) - fill


def test_make_sweep_passes_its_selection_of_solutions_to_every_notebook():
    # Without it `make sweep SOLUTIONS=paper` ran every solution: the notebooks read the selection from
    # ALLOC_OR_POOL_SOLUTIONS, which make did not set.
    shown = subprocess.run(["make", "-n", "--no-print-directory", "sweep", "PROFILE=full", "SOLUTIONS=paper"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout
    runs = [line for line in shown.splitlines() if "papermill" in line]
    assert runs and all("ALLOC_OR_POOL_SOLUTIONS=paper " in line for line in runs)
    assert "plan --profile full --solutions paper" in shown


def test_every_record_target_refuses_a_checkout_with_uncommitted_changes():
    # 73 stored commits once ended in -dirty: runs of sources no one can rebuild. Every record-* target (make -n
    # expands the guard's recipe too) stops with exit 2 naming the way out; ALLOW_DIRTY=1 records anyway.
    makefiles = [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]
    targets = sorted({m for f in makefiles for m in re.findall(r"^(record[a-z-]*):", f.read_text(), re.M)})
    assert {"record", "record-echo", "record-threads", "record-binary-trees"} <= set(targets)
    for target in targets:
        def make(*settings):
            return subprocess.run(["make", "-n", "--no-print-directory", target, *settings],
                                  cwd=ROOT, capture_output=True, text=True)
        refused = make("COMMIT=0123456789ab-dirty")
        assert refused.returncode == 2 and "uncommitted changes" in refused.stderr, target
        assert "ALLOW_DIRTY=1" in refused.stderr and "git commit" not in refused.stdout, target
        allowed, clean = make("COMMIT=0123456789ab-dirty", "ALLOW_DIRTY=1"), make("COMMIT=0123456789ab")
        assert allowed.returncode == clean.returncode == 0 and "git commit" in clean.stdout, target


def test_plan_rejects_an_unknown_selection_naming_the_valid_ones():
    result = subprocess.run([sys.executable, "-m", "allocorpool", "plan", "--solutions", "mine"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "'all', 'paper'" in result.stderr
    paper = subprocess.run([sys.executable, "-m", "allocorpool", "plan", "--profile", "ci", "--solutions", "paper"],
                           capture_output=True, text=True, check=True).stdout
    assert "SOLUTIONS=paper" in paper and "every solution" not in paper


def _engine_run(engine, mode, case, duration_s, elapsed_s, design=None, allocator=None, counted=0, series_probe=None):
    """An index row of an engine run, as the store keeps it, with the fields the estimate's check reads."""
    return {"cell_kind": "engine", "engine": engine, "design": design, "allocator": allocator, "mode": mode,
            "case": case, "duration_s": duration_s, "params_stored_count": study.STORED_COUNT[case],
            "allocs_counted_packets": counted, "series_probe": series_probe, "elapsed_s": elapsed_s}


def test_the_estimates_model_of_a_run_counts_its_fill_start_and_counting_pass():
    # The estimate once took 0.6 s beyond a Java run's fill and measured time and left out C++'s
    # allocation-counting pass, a second fill: a store whose runs took what the model says has a ratio of 1,
    # one whose Java runs took 1.5 times as long says 1.5.
    java_fill, flat_fill = cost.fill_s("C", 1.0, "java"), cost.fill_s("C", 1.0, "flat")
    jemalloc_fill = cost.fill_s("B", 1.0, "cpp", allocator="jemalloc")
    index = pd.DataFrame([
        _engine_run("java", "realtime", "C", 8.0, 1.5 * cost.run_s("java", 8.0, java_fill, False)),
        _engine_run("java", "realtime", "C", 8.0, 1.5 * cost.SERIES_PROBE_OVERHEAD_S + 1.5 * 8.0, series_probe=1),
        _engine_run("cpp", "batch", "C", 4.0, cost.run_s("flat", 4.0, flat_fill, True), design="flat",
                    allocator="glibc", counted=1000),
        _engine_run("cpp", "realtime", "B", 8.0, cost.run_s("cpp", 8.0, jemalloc_fill, False), design="cpp",
                    allocator="jemalloc"),
        {"cell_kind": "binary-trees", "engine": None, "elapsed_s": 100.0}])
    check = study.modelled_against_measured(index)
    assert check.loc[("java", "realtime"), "measured_per_model"] == 1.5
    assert check.loc[("java", "realtime"), "runs"] == 2  # a later probe of a series: no JVM start, no fill
    assert check.loc[("flat", "batch"), "measured_per_model"] == 1.0  # its counting pass fills again
    assert check.loc[("cpp", "realtime"), "measured_per_model"] == 1.0  # jemalloc's slower fill
    assert check.loc[("all", ""), "runs"] == 4  # the engine runs only
    assert study.modelled_against_measured(index[index["cell_kind"] == "binary-trees"]).empty


def test_the_estimates_model_of_a_bisection_run_fills_slower_near_the_minimum_heap():
    # A minimum-heap bisection's runs (Java batch runs of the plan's search_s) thrash near the minimum heap:
    # the estimate takes their fill as near_min_fill_factor times the model's, with the profile's heap plan.
    plan = study.PROFILES["full"].heap
    slow_fill = plan.near_min_fill_factor * cost.fill_s("C", 1.0)
    index = pd.DataFrame([_engine_run("java", "batch", "C", plan.search_s,
                                      cost.run_s("java", plan.search_s, slow_fill, False))] * 3)
    assert study.modelled_against_measured(index, plan).loc[("java", "batch"), "measured_per_model"] == 1.0
    assert study.modelled_against_measured(index).loc[("java", "batch"), "measured_per_model"] > 1.5


def test_the_answers_estimate_counts_a_reference_run_per_block_unless_one_stands():
    answer = PROFILES["answer"]
    def references(prof):
        said = cost.answer_estimate(prof)
        return int(re.search(r"(\d+) blocks", said)[1]), int(re.search(r"\((\d+) reference runs\)", said)[1])
    blocks, standing = references(answer)
    assert blocks == 2 * 8 * 3 and 1 <= standing < blocks
    assert references(replace(answer, blocks=replace(answer.blocks, reference_valid_s=0))) == (blocks, blocks)


def test_the_answers_estimate_takes_a_runs_warm_up_inside_its_duration():
    # The estimate once added each run's warm-up to its length, where the engines time the warm-up inside
    # --duration-s: a longer warm-up within the same duration must not lengthen it.
    answer = PROFILES["answer"]
    def minutes(prof):
        return float(re.search(r"runs ~ ([\d.]+) min", cost.answer_estimate(prof))[1])
    warmer = replace(answer, probe_warmup_s=1.0, blocks=replace(answer.blocks, batch_warmup_s=0.9))
    assert minutes(warmer) == minutes(answer)
    assert minutes(replace(answer, probe_s=3.0)) > minutes(answer)


# A small store of real-time searches, made by the fake engine (fixtures/fake_engine.py: it loses ticks below
# 437 ns) for one C++ solution and one case, and replayed as the plan replays a profile's store. Made once for
# the tests below (their xdist group: one worker runs them all).
FAKE_ENGINE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
TINY = replace(PROFILES["ci"], name="tiny", cases=("A",), solutions=("flat-glibc",), strict=False,
               search=study.SearchPlan(high_ns=2000, longest_probe_s=2, confirm=False))
REPLAY_GROUP = pytest.mark.xdist_group("tiny-replay")


@pytest.fixture(scope="module")
def tiny_replay(tmp_path_factory) -> tuple[Path, Sweep, make_plan.Replayed]:
    store = tmp_path_factory.mktemp("tiny-store")

    def fake_run(cell, workdir, **options):
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE_ENGINE), "ok", *c.engine_args(out)])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(executor, "run_cell", fake_run)
        patch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 100.0))
        measure_realtime.realtime(Sweep(TINY, store, progress=False).executor, [SOLUTIONS_BY_NAME["flat-glibc"]])
    replay = Sweep(TINY, store, progress=False, replay=True)
    return store, replay, make_plan.replayed_searches(replay)


@REPLAY_GROUP
def test_plan_checks_its_model_against_the_profiles_store(tiny_replay, tmp_path, monkeypatch, capsys):
    # The command as a user runs it, in this process, on a store of its profile (a copy of the fixture's
    # under data/ci): its check of the model of a run and of a search, the latter on the fixture's replay
    store, _, replayed = tiny_replay
    shutil.copytree(store, tmp_path / "ci")
    monkeypatch.setattr(paths, "data_dir", lambda: tmp_path)
    monkeypatch.setattr(settings, "data_dir", lambda: None)

    def replayed_searches(sweep):
        assert sweep.replay and sweep.profile == PROFILES["ci"] and sweep.store.root == (tmp_path / "ci").resolve()
        return replayed
    monkeypatch.setattr(make_plan, "replayed_searches", replayed_searches)
    assert allocorpool_main(["plan", "--profile", "ci", "--solutions", "paper"]) == 0
    plan = capsys.readouterr().out
    runs = len(pd.read_parquet(store / "index.parquet").query("cell_kind == 'engine'"))
    assert f"against the {runs} engine runs in " in plan and "measured_per_model" in plan
    assert "model of a real-time search" in plan and "where the replayed searches' engine time goes" in plan


@REPLAY_GROUP
def test_the_replay_counts_every_search_once_with_all_its_probes(tiny_replay):
    _, replay, replayed = tiny_replay
    assert [(solution.name, case) for solution, case, _ in replayed] == [("flat-glibc", "A")] * 3  # a strategy each
    check = make_plan.searches_against_model(replay.profile, replayed)
    assert check.loc["all", "searches"] == check.loc["flat", "searches"] == 3
    assert check.loc["all", "probes"] == sum(len(probes) for _, _, probes in replayed) > 3
    # a plan whose probes the store lacks (another probe length) has no search to check
    other = replace(TINY, probe_s=9)
    assert make_plan.searches_against_model(other, make_plan.replayed_searches(
        Sweep(other, replay.store.root, progress=False, replay=True))).empty
    with pytest.raises(ValueError, match="replay"):
        make_plan.replayed_searches(Sweep(TINY, replay.store.root, progress=False, replay=False))


def test_a_search_that_took_what_the_model_says_has_a_ratio_of_one():
    # The estimate once counted a Java search's short probes and one 30 s confirmation without its fill: the
    # searches took 1.7 times that. The check sets each search against its model, by filler.
    full = PROFILES["full"]
    g1, flat = SOLUTIONS_BY_NAME["g1"], SOLUTIONS_BY_NAME["flat-glibc"]

    def probes(total_s, series):
        return pd.DataFrame({"purpose": ["bracket", "bisect", "confirm"], "duration_s": [8.0, 8.0, 30.0],
                             "elapsed_s": [total_s / 4, total_s / 4, total_s / 2], "fill_s": [1.0, 0.0, 0.0],
                             "series": [series] * 3})
    alone = replace(full, search=replace(full.search, series=False))
    replayed = [(g1, "C", probes(cost.search_s(g1, "C", full), True)),
                (flat, "B", probes(2 * cost.search_s(flat, "B", alone), False))]
    check = make_plan.searches_against_model(full, replayed)
    assert check.loc["java in series", "measured_per_model"] == 1.0  # a Java search in series: its model
    assert check.loc["flat", "measured_per_model"] == 2.0  # probes alone against the model of probes alone
    assert check.loc["all", "searches"] == 2 and check.loc["all", "probes"] == 6


@REPLAY_GROUP
def test_the_search_time_by_purpose_accounts_for_every_replayed_probe(tiny_replay):
    # The plan says where a search's time goes from the same replay as its model check: the same probes
    # and minutes, each under the purpose the search ran it for, its fill a part of its time.
    _, replay, replayed = tiny_replay
    check = make_plan.searches_against_model(replay.profile, replayed)
    by_purpose = make_plan.search_time_by_purpose(replay.profile, replayed)
    assert by_purpose.loc[("all", ""), "probes"] == check.loc["all", "probes"]
    assert by_purpose.loc[("all", ""), "min"] == pytest.approx(check.loc["all", "measured_min"], abs=0.1)
    parts = by_purpose.drop(index=("all", ""))
    assert set(parts.index.get_level_values("purpose")) <= {"bracket", "reference", "bisect", "confirm", "repeat",
                                                           "big heap"}
    assert ((parts["fill_min"] >= 0) & (parts["fill_min"] <= parts["min"])).all()
    for (purpose, length), row in parts.iterrows():
        replayed_there = sum(((probes["purpose"] == purpose)
                              & (probes["duration_s"].gt(replay.profile.probe_s) == (length == "long"))).sum()
                             for _, _, probes in replayed)
        assert row["probes"] == replayed_there, (purpose, length)
    assert parts["share"].sum() == pytest.approx(1, abs=0.02)


def test_the_estimates_fill_phase_grows_with_the_store_and_the_allocators_cost():
    # The fill phase is most of a run at the article's sizes (case C: 17-83 s before an 8 s probe): its model
    # is a time per packet, per store slot, by filler; a C++ design on another allocator than glibc fills
    # slower (the allocating design more than the flat one), a Java fill of a large store slower per slot.
    assert cost.fill_s("C", 0.5, "flat") == pytest.approx(cost.fill_s("C", 1.0, "flat") / 2)
    assert cost.fill_s("B", 1.0, "cpp", allocator="glibc") == cost.fill_s("B", 1.0, "cpp")
    for allocator in ("jemalloc", "mimalloc"):
        cpp = cost.fill_s("C", 1.0, "cpp", allocator=allocator) / cost.fill_s("C", 1.0, "cpp")
        flat = cost.fill_s("C", 1.0, "flat", allocator=allocator) / cost.fill_s("C", 1.0, "flat")
        assert cpp > flat >= 1, allocator
    per_slot = {case: cost.fill_s(case, 1.0, "java") / study.STORED_COUNT[case] for case in ("B", "C")}
    assert per_slot["C"] > per_slot["B"]


def test_a_series_is_modelled_with_one_fill_and_one_jvm_start_per_search():
    # In series (run.probe_series) a Java search's probes after its first neither start a JVM nor fill.
    full = PROFILES["full"]
    alone, series = (replace(full, search=replace(full.search, series=flag)) for flag in (False, True))
    g1 = SOLUTIONS_BY_NAME["g1"]
    later = study.expected_probes(full.search) - 1 + full.search.long_probes  # probes after a series' first
    spared = study.run_s("java", 0.0, study.fill_s("C", 1.0), False) - study.SERIES_PROBE_OVERHEAD_S
    assert study.search_s(g1, "C", alone) - study.search_s(g1, "C", series) == pytest.approx(later * spared)
    for other in ("cpp-glibc", "flat-glibc", "epsilon-25"):  # no JVM, or a heap that is never freed
        solution = SOLUTIONS_BY_NAME[other]
        assert study.search_s(solution, "C", alone) == study.search_s(solution, "C", series), other
    paper = study.solutions(None, full, study.selection("paper"))
    assert study.estimate(series, paper).seconds < study.estimate(alone, paper).seconds
    assert "each probe in its own JVM" in str(study.estimate(series, paper))
    assert "in series" in str(study.estimate(alone, paper))
    # a stored probe after the first of its series is modelled without its fill and start
    runs = pd.DataFrame({"cell_kind": "engine", "engine": "java", "design": None, "allocator": None, "case": "C",
                         "mode": "realtime", "duration_s": 8.0, "params_stored_count": 495_000,
                         "allocs_counted_packets": None, "elapsed_s": 10.0, "series_probe": [0, 1]}, index=[0, 1])
    model_s = study.modelled_against_measured(runs).loc[("java", "realtime"), "model_min"] * 60
    first = study.run_s("java", 8.0, study.fill_s("C", 1.0), False)
    assert model_s == pytest.approx(first + study.SERIES_PROBE_OVERHEAD_S + 8.0, abs=3)  # minutes to 0.1
