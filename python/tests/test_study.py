"""study.py: the solutions, their chapters, heaps that scale, cells, profiles and the estimate."""

import functools
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import study
from allocorpool.__main__ import main as allocorpool_main
from allocorpool.run import cost, jdks
from allocorpool.run import plan as make_plan
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


def test_plan_rejects_an_unknown_selection_naming_the_valid_ones():
    result = subprocess.run([sys.executable, "-m", "allocorpool", "plan", "--solutions", "mine"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "'all', 'paper'" in result.stderr
    paper = subprocess.run([sys.executable, "-m", "allocorpool", "plan", "--profile", "ci", "--solutions", "paper"],
                           capture_output=True, text=True, check=True).stdout
    assert "SOLUTIONS=paper" in paper and "every solution" not in paper


def test_the_estimates_model_of_a_run_is_that_of_the_committed_full_runs():
    # The estimate once took 0.6 s beyond a Java run's fill and measured time (1.4 s measured) and left
    # out C++'s allocation-counting pass, a second fill: allocating C++ probes took 1.67 times that model.
    index = pd.read_parquet(ROOT / "data" / "full" / "index.parquet")
    check = study.modelled_against_measured(index)
    for filler in ("java", "cpp", "flat"):
        assert 0.8 < check.loc[(filler, "realtime"), "measured_per_model"] < 1.25, filler
    # Java's batch runs include chapter 13's bisections, which the estimate models near the minimum heap:
    # the table once took them as runs in the solution's heap, twice too short.
    near_min = study.modelled_against_measured(index, study.PROFILES["full"].heap)
    assert 0.8 < near_min.loc[("java", "batch"), "measured_per_model"] < 1.25
    assert check.loc[("all", ""), "runs"] == (index["cell_kind"] == "engine").sum()
    assert study.modelled_against_measured(index[index["cell_kind"] == "binary-trees"]).empty


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


# The committed full-size searches of the article's solutions, replayed as the full profile runs them: several
# seconds of reading GC logs, done once for the tests below (one worker runs them all: their xdist group).
REPLAY_GROUP = pytest.mark.xdist_group("full-replay")


@functools.cache
def full_paper_replay() -> tuple[Sweep, make_plan.Replayed]:
    replay = Sweep(PROFILES["full"], ROOT / "data" / "full", progress=False, replay=True, selection="paper")
    return replay, REPLAYED_SEARCHES(replay)


REPLAYED_SEARCHES = make_plan.replayed_searches  # the function itself, where a test stands in for it


@REPLAY_GROUP
def test_plan_checks_its_model_against_the_profiles_store(monkeypatch, capsys):
    # The command as a user runs it, in this process: its replay of the searches is the one the tests below
    # check, read once
    def replayed(sweep):
        assert sweep.replay and sweep.profile == PROFILES["full"] and sweep.solutions() == full_paper_replay()[
            0].solutions()
        return full_paper_replay()[1]
    monkeypatch.setattr(make_plan, "replayed_searches", replayed)
    assert allocorpool_main(["plan", "--profile", "full", "--solutions", "paper"]) == 0
    plan = capsys.readouterr().out
    assert "engine runs in data/full" in plan and "measured_per_model" in plan
    assert "model of a real-time search" in plan and "where the replayed searches' engine time goes" in plan


@REPLAY_GROUP
def test_the_estimates_model_of_a_search_is_that_of_the_committed_full_searches():
    # The estimate once counted a Java search's short probes and one 30 s confirmation without its fill:
    # the committed searches took 1.7 times that. A confirmation that loses sends the search on with long
    # probes, and every probe fills its store first. The check replays the plan's own searches: the store
    # also holds the probes above 2000 ns of the searches up to 10,000 ns, which are no part of them.
    full = PROFILES["full"]
    replay, replayed = full_paper_replay()
    check = make_plan.searches_against_model(full, replayed)
    # every replayed search is counted once, with all its probes; a search the store lacks a probe of is not
    # replayed, so the Java searches counted are at most the plan's (the article's Java solutions, every
    # real-time strategy and case)
    assert check.loc["all", "searches"] == len(replayed) > 0
    assert check.loc["all", "probes"] == sum(len(probes) for _, _, probes in replayed)
    paper = study.solutions(None, full, study.selection("paper"))
    planned = sum(s.engine == "java" for s in paper) * len(study.REALTIME_STRATEGIES) * len(full.cases)
    assert 0 < check.filter(like="java", axis=0)["searches"].sum() <= planned
    for row in ("java", "all"):
        assert 0.8 < check.loc[row, "measured_per_model"] < 1.25, row
    # C++: a repeat that loses sends the search doubling above with repeats (2 of the 9 allocating C++
    # searches ran 16 and 24 probes), which the model of a search does not count
    for filler in ("cpp", "flat"):
        assert 0.5 < check.loc[filler, "measured_per_model"] < 1.5, filler
    assert (replay.store.index["interval_ns"] > full.search.high_ns).any()  # the wider plan's, not counted
    # a plan whose probes the store lacks (another probe length) has no search to check
    other = replace(full, probe_s=9)
    other_replay = Sweep(other, ROOT / "data" / "full", progress=False, replay=True)
    assert make_plan.searches_against_model(other, make_plan.replayed_searches(other_replay)).empty
    with pytest.raises(ValueError, match="replay"):
        make_plan.replayed_searches(Sweep(full, ROOT / "data" / "full", progress=False, replay=False))


@REPLAY_GROUP
def test_the_search_time_by_purpose_accounts_for_every_replayed_probe():
    # The plan says where a search's time goes from the same replay as its model check: the same probes
    # and minutes, each under the purpose the search ran it for, its fill a part of its time.
    replay, replayed = full_paper_replay()
    check = make_plan.searches_against_model(replay.profile, replayed)
    by_purpose = make_plan.search_time_by_purpose(replay.profile, replayed)
    assert by_purpose.loc[("all", ""), "probes"] == check.loc["all", "probes"]
    assert by_purpose.loc[("all", ""), "min"] == pytest.approx(check.loc["all", "measured_min"], abs=0.1)
    parts = by_purpose.drop(index=("all", ""))
    assert set(parts.index.get_level_values("purpose")) <= {"bracket", "reference", "bisect", "confirm", "repeat",
                                                           "big heap"}
    assert set(parts.index.get_level_values("length")) == {"short", "long"}
    assert ((parts["fill_min"] > 0) & (parts["fill_min"] <= parts["min"])).all()
    # each probe under the purpose and length it was replayed with; only Java searches confirm an interval
    for (purpose, length), row in parts.iterrows():
        replayed_there = sum(((probes["purpose"] == purpose)
                              & (probes["duration_s"].gt(replay.profile.probe_s) == (length == "long"))).sum()
                             for _, _, probes in replayed)
        assert row["probes"] == replayed_there, (purpose, length)
    confirming = [solution for solution, _, probes in replayed if (probes["purpose"] == "confirm").any()]
    assert confirming and all(solution.engine == "java" for solution in confirming)
    assert parts["share"].sum() == pytest.approx(1, abs=0.02)


def test_the_estimates_fill_phase_is_that_of_the_committed_full_runs():
    # The fill phase is most of a run at the article's sizes (case C: 17-83 s before an 8 s probe); the
    # estimate once took 150 ns per packet for it, a third of what the stored runs took.
    index = pd.read_parquet(ROOT / "data" / "full" / "index.parquet")
    done = index[(index["status"] == "ok") & (index["case"] == "C") & index["internal_queue_size"].isna()
                 & (index["fill_packets"] > 0)]
    # The allocating C++ design fills slower than the flat one (its stores allocate); on jemalloc,
    # mimalloc and tcmalloc it is 1.65 to 1.85 times slower than on glibc, the flat design up to 1.3.
    fillers = [done["design"].fillna(done["engine"]), done["allocator"].fillna("")]
    for (filler, allocator), rows in done.groupby(fillers):
        measured = rows["fill_s"].median()
        assert measured / 1.5 < study.fill_s("C", 1.0, filler, allocator=allocator) < measured * 1.5, \
            (filler, allocator)


def test_the_estimates_near_minimum_fill_is_that_of_the_committed_bisections():
    # A minimum-heap bisection's runs (5 s, case C) thrash near the minimum heap: the estimate took their
    # fill as 3 times the model's, from quick, which put a bisection run at half the time the full-size ones took.
    index = pd.read_parquet(ROOT / "data" / "full" / "index.parquet")
    plan = study.PROFILES["full"].heap
    runs = index[(index["engine"] == "java") & (index["mode"] == "batch") & (index["case"] == "C")
                 & (index["duration_s"] == plan.search_s)]
    assert len(runs) >= 20
    fill = (runs["elapsed_s"] - study.RUN_OVERHEAD_S["java"] - plan.search_s).mean()
    measured = fill / study.fill_s("C", 1.0)
    assert measured / 1.25 < plan.near_min_fill_factor < measured * 1.25, measured


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
