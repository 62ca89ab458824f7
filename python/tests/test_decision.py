"""analysis/decision.py and chapters/decision.py: the decision chart on a few points."""

import pandas as pd
import pytest

from allocorpool.analysis import decision
from allocorpool.chapters import decision as chapter
from allocorpool.effects import FAILS, HOLDS
from allocorpool.study import PROFILES, SOLUTIONS_BY_NAME


def _search(solution, strategy, case, outcome, interval_ns=None, engine="java", p999_ms=None):
    return {"solution": solution, "label": solution.title(), "engine": engine, "strategy": strategy,
            "strategy_label": strategy.title(), "case": case, "outcome": outcome, "interval_ns": interval_ns,
            "reference_key": f"{solution}-{strategy}-{case}", "machine": "m",
            "latency_p999_ns": None if p999_ms is None else p999_ms * 1e6}


SEARCHES = pd.DataFrame([
    _search("parallel-11", "pool", "A", "found", 300, p999_ms=40), _search("parallel-11", "pool", "C", "lost"),
    _search("parallel-11", "alloc", "A", "found", 400), _search("parallel-11", "alloc", "C", "failed"),
    _search("flat-glibc", "pool", "A", "found", 100, "cpp", p999_ms=0.01),
    _search("flat-glibc", "pool", "C", "found", 150, "cpp", p999_ms=0.02),
])
LIVE = {"A": 2_000, "C": 990_000}
PROBES = pd.DataFrame([{"solution": "parallel-11", "label": "Parallel-11", "engine": "java", "strategy": "alloc",
                        "strategy_label": "Alloc", "live_packets": 20_000, "interval_ns": 1000, "keeps_up": True,
                        "probe_key": "probe-20k", "machine": "m"},
                       {"solution": "parallel-11", "label": "Parallel-11", "engine": "java", "strategy": "alloc",
                        "strategy_label": "Alloc", "live_packets": 50_000, "interval_ns": 1000, "keeps_up": None,
                        "probe_key": "failed", "machine": "m"}]).assign(
    **dict.fromkeys(decision.LATENCY_FIELDS))  # probes measured before the engines metered latency
POINTS = pd.concat([decision.search_points(SEARCHES, LIVE, high_ns=10_000),
                    decision.probe_points(PROBES, "continuum probe")], ignore_index=True)


def test_points_from_searches_and_probes_skip_what_says_nothing():
    assert len(POINTS) == 5 + 1  # a failed search and a failed probe say nothing
    lost = POINTS[(POINTS["solution"] == "parallel-11") & (POINTS["live_packets"] == 990_000)].iloc[0]
    assert pd.isna(lost["loss_free_ns"]) and lost["loses_at_ns"] == 10_000  # lost up to the largest interval


def test_a_pair_holds_with_a_larger_live_set_at_a_faster_rate_and_fails_with_a_smaller_one_at_a_slower():
    answer = decision.decide(POINTS, rate_per_s=1_000_000, live_packets=10_000).set_index(["solution", "strategy"])
    assert answer.loc[("flat-glibc", "pool"), "verdict"] == decision.HOLDS
    assert answer.loc[("flat-glibc", "pool"), "margin"] == pytest.approx(1000 / 150)  # proved by case C's search
    assert answer.loc[("parallel-11", "alloc"), "verdict"] == decision.HOLDS  # the probe with 20,000 live
    assert answer.loc[("parallel-11", "alloc"), "proof_key"] == "probe-20k"
    assert answer.loc[("parallel-11", "pool"), "verdict"] == decision.NOT_MEASURED  # between case A's 2,000 and C's loss
    big = decision.decide(POINTS, rate_per_s=1_000_000, live_packets=990_000).set_index(["solution", "strategy"])
    assert big.loc[("parallel-11", "pool"), "verdict"] == decision.FAILS
    assert big.loc[("parallel-11", "alloc"), "verdict"] == decision.NOT_MEASURED  # its case C search failed
    order = decision.decide(POINTS, 1_000_000, 10_000)["verdict"].tolist()
    assert order == sorted(order, key=[decision.HOLDS, decision.NOT_MEASURED, decision.FAILS].index)


def test_a_search_that_found_an_interval_also_fails_where_its_probes_lost():
    # Full size: native G1's pooling C kept up from 1600 ns and its probes lost at 1500 ns; asked at 1000 ns
    # with case C's live set, the pair read "not measured" though its own search had lost at a slower rate.
    searches = pd.DataFrame([_search("native-g1", "pool", "C", "found", 1600)])
    probes = pd.DataFrame([
        {"solution": "native-g1", "strategy": "pool", "case": "C", "interval_ns": i, "ok": ok, "status": status,
         "key": f"probe-{i}-{status}", "machine": "m"}
        for i, ok, status in ((1000, False, "ok"), (1500, False, "ok"), (1600, True, "ok"), (1700, False, "error"))])
    points = decision.search_points(searches, LIVE, high_ns=2000, probes=probes)
    assert points["loses_at_ns"].tolist()[1] == 1500 and points["key"].tolist()[1] == "probe-1500-ok"  # not the crash
    answer = decision.decide(points, rate_per_s=1_000_000, live_packets=990_000).iloc[0]
    assert answer["verdict"] == decision.FAILS and answer["proof_key"] == "probe-1500-ok"
    without = decision.decide(decision.search_points(searches, LIVE, high_ns=2000), 1_000_000, 990_000).iloc[0]
    assert without["verdict"] == decision.NOT_MEASURED


def test_a_question_out_of_range_is_refused_naming_what_is_valid():
    with pytest.raises(ValueError, match="must be positive"):
        decision.decide(POINTS, 0, 1000)
    for bad in ("10 ms", "p95 <= 3 ms", "p99.9 < 5 ms", "p99.9 <= 5 s"):
        with pytest.raises(ValueError, match="either 'no loss' or a latency percentile .* p50, p99, p99.9, max"):
            chapter.check_question(1e6, 1000, bad)
    assert chapter.check_question(1e6, 1000, "p99.9 <= 5 ms") == decision.Budget("p99.9", 5.0)
    assert chapter.check_question(1e6, 1000, "max ≤ 0.5 ms") == decision.Budget("max", 0.5)
    assert str(chapter.check_question(1e6, 1000, "no loss")) == "no loss"


def test_a_latency_budget_holds_only_on_metered_points_within_it_and_fails_on_one_too_late():
    budget = decision.parse_budget("p99.9 <= 5 ms")
    answer = decision.decide(POINTS, rate_per_s=1_000_000, live_packets=10_000, budget=budget).set_index(
        ["solution", "strategy"])
    assert answer.loc[("flat-glibc", "pool"), "verdict"] == decision.HOLDS  # case C: loss-free, 0.02 ms late
    assert "p99.9 0.02 ms late" in answer.loc[("flat-glibc", "pool"), "proof"]
    # The probe with 20,000 live kept up but metered no latency (an older engine build): it proves nothing.
    assert answer.loc[("parallel-11", "alloc"), "verdict"] == decision.NOT_MEASURED
    # Loss-free in case A at 300 ns but 40 ms late at p99.9: packets every 250 ns are no easier, so it fails
    # there; at 1000 ns (slower) that point decides nothing.
    fast = decision.decide(POINTS, rate_per_s=4_000_000, live_packets=2_000, budget=budget).set_index(
        ["solution", "strategy"])
    assert fast.loc[("parallel-11", "pool"), "verdict"] == decision.FAILS
    assert fast.loc[("parallel-11", "pool"), "proof_key"] == "parallel-11-pool-A"
    slow = decision.decide(POINTS, rate_per_s=1_000_000, live_packets=2_000, budget=budget).set_index(
        ["solution", "strategy"])
    assert slow.loc[("parallel-11", "pool"), "verdict"] == decision.NOT_MEASURED
    loose = decision.decide(POINTS, 1_000_000, 2_000, decision.parse_budget("p99.9 <= 50 ms")).set_index(
        ["solution", "strategy"])
    assert loose.loc[("parallel-11", "pool"), "verdict"] == decision.HOLDS


def test_the_cells_that_would_decide_an_open_pair_probe_its_rate_and_live_set():
    answer = decision.decide(POINTS, rate_per_s=1_000_000, live_packets=10_000)
    quick = PROFILES["quick"]
    (cell,) = chapter.cells_to_run(answer, SOLUTIONS_BY_NAME, 1_000_000, 10_000, quick)
    assert (cell.strategy, cell.mode, cell.interval_ns) == ("pool", "realtime", 1000)
    assert cell.internal_queue_size + cell.stored_count == 10_000 and cell.jdk == 11


def test_the_regions_name_the_largest_live_set_each_engine_kept_up_with():
    lines = chapter.regions(POINTS, 1_000_000)
    assert "**Pool** loss-free at 1,000,000 packets/s — Java: up to 2,000 packets live (Parallel-11); " \
           "C++: up to 990,000 packets live (Flat-Glibc)." in lines
    frontier = decision.frontier(POINTS)
    assert frontier[(frontier["solution"] == "flat-glibc")]["rate_per_s"].max() == pytest.approx(1e7)
    # a stored run that lost at 1000 ns with the same live set outweighs the loss-free search there
    lossy = pd.DataFrame([{**POINTS.iloc[0].to_dict(), "solution": "flat-glibc", "label": "Flat-Glibc", "engine": "cpp",
                           "strategy": "pool", "strategy_label": "Pool", "live_packets": 990_000, "loss_free_ns": None,
                           "loses_at_ns": 1000, "key": "lost-c"}])
    lines = chapter.regions(pd.concat([POINTS, lossy], ignore_index=True), 1_000_000)
    assert "**Pool** loss-free at 1,000,000 packets/s — Java: up to 2,000 packets live (Parallel-11); " \
           "C++: up to 2,000 packets live (Flat-Glibc)." in lines, lines


def _point(live, free=None, loses=None, key="k"):
    return {"solution": "zgc", "label": "ZGC", "engine": "java", "strategy": "pool", "strategy_label": "Pooling",
            "live_packets": live, "loss_free_ns": free, "loses_at_ns": loses, **dict.fromkeys(decision.LATENCY_FIELDS),
            "source": "s", "key": key, "machine": "m"}


def test_a_long_run_that_lost_outweighs_the_search_that_kept_up_at_the_same_live_set():
    # Full size: ZGC pooling C was found loss-free at 1000 ns by its search's short probes, and chapter 12's
    # 120 s run of the same cell at 1000 ns lost 0.029 %: the chart said "holds" from the search alone.
    points = pd.DataFrame([_point(990_000, free=1000, key="search"), _point(990_000, loses=1000, key="long run"),
                           _point(2_000, free=300, key="case A")], columns=decision.POINT_COLUMNS)
    answer = decision.decide(points, rate_per_s=1_000_000, live_packets=990_000).iloc[0]
    assert answer["verdict"] == decision.FAILS and answer["proof_key"] == "long run"
    # the same live set and interval: chance at the cell's edge, not a contradiction of the premise
    assert answer["rule"] == decision.MONOTONIC and decision.contradictions(points) == []


def test_a_premise_the_store_contradicts_decides_nothing_away_from_the_measured_live_sets():
    # Loss-free with a million packets live at 1000 ns but lossy with a hundred thousand at 1500 ns: a larger live
    # set was easier here, so the million-packet run proves nothing for 200,000 packets.
    points = pd.DataFrame([_point(1_000_000, free=1000, key="big"), _point(100_000, loses=1500, key="small")],
                          columns=decision.POINT_COLUMNS)
    assert decision.contradictions(points) == [(0, 1)]
    within_edge = points.assign(loses_at_ns=[None, 1050])  # within the search's resolution: chance, not a contradiction
    assert decision.contradictions(within_edge) == []
    answer = decision.decide(points, rate_per_s=1_000_000, live_packets=200_000).iloc[0]
    assert answer["verdict"] == decision.NOT_MEASURED and answer["rule"] == decision.SAME_LIVE_SET
    at_small = decision.decide(points, rate_per_s=1_000_000 / 1.5, live_packets=100_000).iloc[0]
    assert at_small["verdict"] == decision.FAILS
    # without the contradiction the premise decides, as before
    monotonic = decision.decide(points.iloc[:1], rate_per_s=1_000_000, live_packets=200_000).iloc[0]
    assert monotonic["verdict"] == decision.HOLDS and monotonic["rule"] == decision.MONOTONIC


def test_the_answer_lists_the_pairs_that_hold_and_folds_those_that_fail(monkeypatch):
    from allocorpool.chapters import decision as chapter
    answer = pd.DataFrame([
        {"label": "C++ flat (glibc)", "strategy_label": "Mix", "verdict": HOLDS, "margin": 10.0, "rule": "any live set",
         "proof": "search, case C: loss-free at 100 ns"},
        {"label": "G1 11", "strategy_label": "Pooling", "verdict": FAILS, "margin": None, "rule": "any live set",
         "proof": "stored run: loses at 1,000 ns"},
        {"label": "G1 11", "strategy_label": "Mix", "verdict": FAILS, "margin": None, "rule": "any live set",
         "proof": "stored run: loses at 1,100 ns"}])
    tables, folded, notes = [], [], []
    monkeypatch.setattr(chapter.show, "note", notes.append)
    monkeypatch.setattr(chapter.show, "show_table", lambda table, caption=None, **o: tables.append((table, caption)))
    monkeypatch.setattr(chapter.show, "show_details", lambda summary, table, **o: folded.append((summary, table)))
    chapter.show_answer(answer, 1_000_000, 990_000)
    ((table, caption),) = tables
    assert list(table.index) == [("C++ flat (glibc)", "Mix")] and caption.endswith("the pairs that hold")
    ((summary, fails),) = folded
    assert summary == "The 2 pairs that fail, with the run that decides each" and len(fails) == 2
    assert "Of 3 solutions and strategies, 1 holds and 2 fail. The widest" in notes[0]  # nothing left undecided


def test_the_chart_is_a_panel_per_solution_with_a_legend_entry_per_strategy():
    # the chart drew 27 lines in 3 colours in one panel, with a legend that scrolled
    fig = chapter.chart(POINTS, 1_000_000, 990_000)
    titles = [a.text for a in fig.layout.annotations]
    assert titles == list(dict.fromkeys(decision.frontier(POINTS)["label"]))
    shown = [t.name for t in fig.data if t.showlegend]
    assert sorted(shown) == sorted(set(POINTS["strategy_label"]) | {"your question"})  # each once
    stars = [t for t in fig.data if t.name == "your question"]
    assert len(stars) == len(titles) and {t.xaxis for t in stars} == {f"x{i}" if i > 1 else "x"
                                                                    for i in range(1, len(titles) + 1)}


def test_one_configuration_is_one_pair_whatever_its_chapter_calls_it():
    # chapter 16 listed "ZGC (JDK 11) pooling holds" beside "ZGC 11 pooling fails": one JVM, collector and heap
    from allocorpool import study
    jdks = study.jdk_solutions(study.profile("full").jdks)
    across = pd.DataFrame({"solution": ["zgc-11", "parallel-11", "shenandoah-11"],
                           "label": ["ZGC (JDK 11)", "Parallel (JDK 11)", "Shenandoah (JDK 11)"]})
    named = chapter.as_named(across, jdks, [study.SOLUTIONS_BY_NAME["zgc"], study.SOLUTIONS_BY_NAME["parallel-11"]])
    assert named["solution"].tolist() == ["zgc", "parallel-11", "shenandoah-11"]
    assert named["label"].tolist() == ["ZGC 11", study.SOLUTIONS_BY_NAME["parallel-11"].label, "Shenandoah (JDK 11)"]
