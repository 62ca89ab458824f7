"""answer.py: the first screen's table and abstract, computed from the blocks' intervals."""

import pandas as pd

from allocorpool import effects
from allocorpool.chapters import answer
from allocorpool.data import reference


def _batch(samples):
    """Parallel 11's batch rows in case A from {strategy: repetitions} (a list of one: a single run)."""
    rows = []
    for strategy, runs in samples.items():
        series = pd.Series(runs, dtype=float)
        rows.append({"solution": "parallel-11", "label": "Parallel 11", "engine": "java", "baseline": False,
                     "strategy": strategy, "case": "A", "status": "ok", "ns_per_packet": float(series.median()),
                     "runs": len(runs), "boot_samples": {"b1": runs} if len(runs) > 1 else None})
    return pd.DataFrame(rows)


SEARCHES = pd.DataFrame([{"solution": "parallel-11", "strategy": s, "case": "A", "baseline": False, "outcome": o,
                          "interval_ns": i} for s, o, i in (("alloc", "found", 230), ("mix", "found", 40),
                                                           ("pool", "lost", None))])


def test_the_best_strategy_is_named_with_its_margin_over_the_next_and_the_2019_best():
    batch = _batch({"dummy": [50, 51, 49], "alloc": [400, 410, 390], "mix": [100, 104, 98], "pool": [160, 165, 158]})
    table = answer.answer_table(batch, SEARCHES, reference.load())
    cell = table.loc["Parallel 11, 2019 \"CMS\"", "batch, case A"]
    assert cell.startswith("Mix: 3") and "% less time than pooling (" in cell and cell.endswith("; 2019: mix")
    assert table.loc["Parallel 11, 2019 \"CMS\"", "real time, case A"] == "Mix 40 ns (allocation 230); 2019: mix"
    assert all(len(str(v).split()) <= 15 for v in table.to_numpy().ravel())  # a cell a reader takes in at a glance
    detail = answer.answer_table(batch, SEARCHES, reference.load(), detail=True)
    assert detail.loc["Parallel 11, 2019 \"CMS\"", "real time, case A"] == "Mix at 40 ns; allocation 230 ns; 2019: mix"
    assert detail.loc["Parallel 11, 2019 \"CMS\"", "batch, case A"].startswith("Mix, 3")


def test_an_interval_that_does_not_clear_the_margin_names_both_and_a_single_run_decides_nothing():
    even = _batch({"alloc": [400, 300, 500], "mix": [390, 480, 310], "pool": [600, 610, 590]})
    best, outcome, words = answer.batch_answer({r["strategy"]: r for r in even.to_dict("records")})
    assert outcome == effects.NO_DIFFERENCE and words.startswith("Mix or allocation: undecided")
    single = _batch({"alloc": [400], "mix": [100], "pool": [160]})
    best, outcome, words = answer.batch_answer({r["strategy"]: r for r in single.to_dict("records")})
    assert best == "mix" and outcome == effects.NOT_MEASURED and words == "Mix, one run each (not decided)"
    said = answer.abstract(single, SEARCHES, reference.load(), 0)
    assert "one run a cell, which decides nothing" in said


def test_the_abstract_counts_the_three_outcomes():
    batch = _batch({"alloc": [400, 410, 390], "mix": [100, 104, 98], "pool": [160, 165, 158]})
    said = answer.abstract(batch, SEARCHES, reference.load(), 2)
    assert "It holds in 1 of 1 solution and case pairs" in said and "across the boots that measured it (up to 2)" in said
    assert "The shortest interval came most often from mix (1 of 1 pair)" in said
    assert answer.boots_of(batch) == 1
    lost = SEARCHES.assign(outcome="lost", interval_ns=None)
    said = answer.abstract(batch, lost, reference.load(), 2)
    assert "of 3 strategy searches over 1 solution and case pair, 0 found an interval without loss. No pair has an " \
        "interval that stood." in said, said


def test_the_reproducibility_table_shows_each_boots_verdict_and_where_boots_disagree():
    from allocorpool.chapters import summary
    batch = _batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]})
    batch.loc[batch["strategy"] == "alloc", "boot_samples"] = [{"b1": [400, 410, 390], "b2": [160, 170, 150]}]
    batch.loc[batch["strategy"] == "pool", "boot_samples"] = [{"b1": [160, 165, 158], "b2": [158, 166, 161]}]
    table = summary.reproducibility(batch.assign(label="Parallel 11"))
    assert table.loc[0, "boot b1"].startswith("holds: 0.4") and table.loc[0, "boot b2"].startswith("undecided")
    assert table.loc[0, "boots agree"] == "no: decided in some boots, not in others"
    named = summary.reproducibility(batch.assign(label="Parallel 11"), {"b1": "machine 2", "b2": "machine 1"})
    assert named.loc[0, "machine 2"] == table.loc[0, "boot b1"] and "boot b1" not in named.columns
    said = answer.abstract(batch.assign(label="Parallel 11"), SEARCHES, reference.load(), 2)
    assert ("is undecided in 1 of 1 solution and case pairs (boots disagree on 1, none with opposite "
            "verdicts)") in said
    # pooling faster in b1 and slower in b2: the boots give opposite verdicts, and the abstract says so
    batch.loc[batch["strategy"] == "pool", "boot_samples"] = [{"b1": [160, 165, 158], "b2": [300, 310, 305]}]
    table = summary.reproducibility(batch.assign(label="Parallel 11"))
    assert table.loc[0, "boots agree"] == "no: opposite verdicts in different boots"
    assert table.loc[0, "boot b2"].startswith("fails: 1.9")  # the newest boot alone would say pooling is slower
    assert table.loc[0, "across the boots"].startswith("undecided: 0.8")  # the verdict that stands
    said = answer.abstract(batch.assign(label="Parallel 11"), SEARCHES, reference.load(), 2)
    assert ("is undecided in 1 of 1 solution and case pairs (boots disagree on 1, 1 of them with opposite "
            "verdicts)") in said


def test_the_glossary_defines_the_terms_and_every_solution_shown():
    table = answer.glossary(["parallel-11", "flat-glibc"]).set_index("term")
    assert {"strategy", "case", "cell", "block", "boot", "search", "95 % interval", "undecided"} <= set(table.index)
    assert 'Parallel 11, 2019 "CMS"' in table.index and len(table) == len(answer.TERMS) + 2
    assert all(meaning != term for term, meaning in table["meaning"].items()), "a meaning that repeats its label"
    assert not table["meaning"].isna().any()


def test_the_abstract_opens_with_the_plain_answer_in_words():
    faster = _batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]})
    said = answer.abstract(faster, SEARCHES, reference.load(), 1)
    assert said.startswith("**In short:** Pooling took less time per packet than allocation in every solution "
                           "measured for Java on the heap where few buffers stay alive (cases A and B).")
    slower = _batch({"alloc": [160, 165, 158], "pool": [400, 410, 390]})
    said = answer.abstract(slower, SEARCHES, reference.load(), 1)
    assert said.startswith("**In short:** In no family of solutions did pooling take less time")
    single = _batch({"alloc": [400], "pool": [160]})
    assert not answer.abstract(single, SEARCHES, reference.load(), 0).startswith("**In short:**")


def test_the_machine_table_counts_a_long_commit_list_instead_of_printing_it():
    from allocorpool.chapters import summary
    facts = pd.DataFrame([{"what": "commit", "value": ", ".join(f"{i:012x}" for i in range(81))},
                          {"what": "kernel", "value": "6.18.44-fc-v657"}, {"what": "fewer than 4 CPUs", "value": "True"}])
    table = summary.machine_table(facts).set_index("what")
    assert table.loc["commit", "value"].startswith("81 commits over every run of the store")
    assert table.loc["kernel", "value"] == "6.18.44-fc-v657" and table.loc["fewer than 4 CPUs", "value"] == "yes"


def _probes(losses, case="A"):
    """Parallel 11's real-time block at 1,000 ns from {strategy: [loss % of each probe]}."""
    return pd.DataFrame([{"solution": "parallel-11", "label": "Parallel 11", "strategy": s, "case": case,
                          "interval_ns": 1000, "probes": len(values), "losses": values,
                          "keeps_up": effects.HOLDS if not any(values) else effects.FAILS}
                         for s, values in losses.items()])


def test_a_real_time_block_names_the_strategy_that_loses_least_only_where_its_interval_clears_zero():
    probes = _probes({"alloc": [0.10, 0.14, 0.30], "mix": [0.0, 0.01, 0.0], "pool": [0.0, 0.0, 0.0]})
    best, outcome, words = answer.block_answer({r["strategy"]: r for r in probes.to_dict("records")})
    assert (best, outcome) == ("pool", effects.NO_DIFFERENCE)  # mix lost in one probe of three: not decided
    assert words == ("at 1,000 ns (3 probes each): pooling keeps up, mix loses in 1 of 3 probes (up to 0.01 %), "
                     "allocation loses 0.14 % (0.10-0.30); pooling or mix: undecided")
    rows = {r["strategy"]: r for r in _probes({"alloc": [0.10, 0.14, 0.30], "pool": [0.0, 0.0, 0.0]}).to_dict("records")}
    best, outcome, words = answer.block_answer(rows)
    assert (best, outcome) == ("pool", effects.HOLDS)
    assert words == "at 1,000 ns (3 probes each): pooling keeps up, allocation loses 0.14 % (0.10-0.30)"
    rows = {r["strategy"]: r for r in _probes({"alloc": [0.0] * 3, "mix": [0.0] * 3, "pool": [0.0] * 3}).to_dict("records")}
    assert answer.block_answer(rows) == (None, effects.NO_DIFFERENCE, "at 1,000 ns (3 probes each): all keep up")
    # the other way round: allocation loses less than pooling in every resample
    comparisons = answer.pooling_against_allocation_in_real_time(_probes({"alloc": [0.0] * 3, "pool": [0.2, 0.3, 0.25]}))
    assert [c.outcome() for c in comparisons] == [effects.FAILS]


def test_a_real_time_block_decided_in_one_boot_and_not_in_another_says_the_boots_disagree():
    by_boot = {"alloc": {"b1": [0.10, 0.14, 0.30], "b2": [0.0] * 3}, "pool": {"b1": [0.0] * 3, "b2": [0.0] * 3}}
    probes = _probes({s: [v for boot in losses.values() for v in boot] for s, losses in by_boot.items()})
    probes["boot_losses"] = [by_boot[s] for s in probes["strategy"]]
    probes["boot_keeps_up"] = [{b: effects.HOLDS if not any(v) else effects.FAILS for b, v in by_boot[s].items()}
                               for s in probes["strategy"]]
    best, outcome, words = answer.block_answer({r["strategy"]: r for r in probes.to_dict("records")})
    assert (best, outcome) == ("pool", effects.NO_DIFFERENCE)  # across both boots: in b2 both kept up
    assert words == ("at 1,000 ns (6 probes each in 2 boots): pooling keeps up, allocation loses in 3 of 6 probes "
                     "(up to 0.3 %), yet kept up in every probe of 1 of 2 boots; pooling or allocation: "
                     "undecided (decided in some boots, not in others)")
    comparison = answer.pooling_against_allocation_in_real_time(probes)[0]
    assert {b: d.outcome() for b, d in comparison.by_boot.items()} == {"b1": effects.HOLDS, "b2": effects.NO_DIFFERENCE}
    said = answer.abstract(_batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]}), SEARCHES, reference.load(), 2,
                           probes)
    assert "boots disagree on 1" in said and "over 3 probes a strategy and its 95 % interval, taken across the boots that measured it (up to 2)" in said


def test_the_answer_shows_the_real_time_block_beside_the_search_and_the_abstract_counts_it():
    batch = _batch({"alloc": [400, 410, 390], "mix": [100, 104, 98], "pool": [160, 165, 158]})
    probes = _probes({"alloc": [0.10, 0.14, 0.30], "mix": [0.0] * 3, "pool": [0.0] * 3})
    cell = answer.answer_table(batch, SEARCHES, reference.load(), probes, detail=True).loc[
        "Parallel 11, 2019 \"CMS\"", "real time, case A"]
    assert cell == ("Mix at 40 ns; allocation 230 ns; at 1,000 ns (3 probes each): mix and pooling keep up, allocation "
                    "loses 0.14 % (0.10-0.30); 2019: mix")
    short = answer.answer_table(batch, SEARCHES, reference.load(), probes).loc["Parallel 11, 2019 \"CMS\"",
                                                                                 "real time, case A"]
    assert short == "Mix 40 ns (allocation 230); mix/pooling keep up at 1 µs; 2019: mix"
    lost = _probes({"alloc": [0.10, 0.14, 0.30], "mix": [0.2, 0.1, 0.3], "pool": [0.01, 0.02, 0.01]})
    assert answer.probes_cell({r["strategy"]: r for r in lost.to_dict("records")}) == "all lose at 1 µs, pooling least"
    said = answer.abstract(batch, SEARCHES, reference.load(), 1, probes)
    assert ("At one packet every 1,000 ns, does pooling lose fewer packets than allocation? It holds in 1 of 1 "
            "solution and case pairs") in said and "over 3 probes a strategy" in said


def test_the_conclusions_read_the_real_time_blocks_where_measured_and_the_searches_elsewhere():
    from allocorpool.chapters import realtime_blocks, summary
    probes = _probes({"alloc": [0.10, 0.14, 0.30], "mix": [0.0, 0.01, 0.0], "pool": [0.0] * 3}).assign(
        engine="java", baseline=False, strategy_label=lambda f: f["strategy"].map(
            {"alloc": "Allocation", "mix": "Mix", "pool": "Pooling"}))
    helps = summary.fewer_allocations_help_java_in_real_time(SEARCHES.assign(engine="java", label="Parallel 11"),
                                                             probes=probes)
    assert helps.summary == "holds in 1 of 1 Java solution and case pairs"
    assert helps.cells.loc[0, "mix or pooling, best"] == "pooling kept up in 3 of 3 probes"
    keeps = summary.java_keeps_up_in_every_case(SEARCHES, probes=probes)
    assert keeps.summary == "in 1 of 1 cases" and keeps.cells.loc[0, "cells that kept up in every probe"] == 1
    losing = probes.assign(losses=[[0.2, 0.1, 0.3]] * 3, keeps_up=effects.FAILS)
    assert summary.java_keeps_up_in_every_case(SEARCHES, probes=losing).summary == "in 0 of 1 cases"
    row = realtime_blocks.table(probes).iloc[0]
    assert row["pooling's loss - allocation's"].startswith("pooling loses less: -0.14 points")
    # without blocks, the searches decide (as on the 2019 article's figures)
    searched = summary.java_keeps_up_in_every_case(SEARCHES.assign(engine="java", label="Parallel 11"), probes=None)
    assert "Java cells that keep up at 1,000 ns or less" in searched.cells.columns


def test_every_conclusion_says_how_it_is_decided_and_the_blocks_rule_replaces_the_searches():
    from allocorpool.chapters import summary
    assert all(claim.rule or claim.check is summary.pooling_beats_allocation_everywhere
               for claim in summary.CONCLUSIONS)
    probes = _probes({"alloc": [0.10, 0.14, 0.30], "mix": [0.0] * 3, "pool": [0.0] * 3}).assign(
        engine="java", baseline=False, strategy_label=lambda f: f["strategy"].map(
            {"alloc": "Allocation", "mix": "Mix", "pool": "Pooling"}))
    searches = SEARCHES.assign(engine="java", label="Parallel 11", strategy_label="Mix")
    by_blocks = summary.fewer_allocations_help_java_in_real_time(searches, probes=probes)
    assert by_blocks.rule.startswith("Per Java solution and case, probed repeatedly at 1,000 ns")
    assert summary.fewer_allocations_help_java_in_real_time(searches, probes=None).rule == ""  # the claim's own
    batch = _batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]}).assign(
        strategy_label=lambda f: f["strategy"].map({"alloc": "Allocation", "pool": "Pooling"}))
    both = summary.pooling_beats_allocation_everywhere(batch, searches, probes=probes)
    assert both.summary == "holds in 2 of 2 solution and case pairs of both tests"
    assert "Real time: pooling's median loss at 1,000 ns minus allocation's" in both.rule


def test_a_claim_at_1000_ns_reads_the_repeated_probes_over_the_search():
    from allocorpool.chapters import realtime
    searches = SEARCHES.assign(label="Parallel 11", strategy_label=SEARCHES["strategy"].map(
        {"alloc": "Allocation", "mix": "Mix", "pool": "Pooling"}), loss_pct=None)
    by_search = realtime.mix_keeps_up_in_a_and_b(searches)  # the search kept up at 40 ns, so at 1,000 ns too
    assert by_search.summary == "in 1 of 1 cells" and by_search.cells.loc[0, "decided by"] == "its search"
    probes = _probes({"alloc": [0.0] * 3, "mix": [2.1, 2.4, 2.6], "pool": [14.0] * 3}).assign(baseline=False)
    by_block = realtime.mix_keeps_up_in_a_and_b(searches, probes=probes)  # its three probes there all lost
    assert by_block.summary == "in 0 of 1 cells" and by_block.cells.loc[0, "decided by"] == "repeated probes at 1,000 ns"
    assert by_block.rule.startswith("Each cell at 1,000 ns: by its repeated probes")
    # the figure shown beside the verdict is the probes' own, not the search's single run there
    assert by_block.cells.loc[0, "repeated probes at 1,000 ns"] == "loses 2.40 % (2.10-2.60)"
    assert by_search.cells.loc[0, "repeated probes at 1,000 ns"] == "—"


def test_a_search_that_a_stored_loss_at_a_longer_interval_contradicts_does_not_stand():
    from allocorpool.analysis.stored_probes import losses_above
    runs = pd.DataFrame([{"solution": "parallel-11", "strategy": "mix", "case": "A", "interval_ns": i, "keeps_up": k}
                         for i, k in ((30, False), (1000, False), (1000, False), (1000, True), (2000, None))]
                        + [{"solution": "parallel-11", "strategy": "alloc", "case": "A", "interval_ns": 100,
                            "keeps_up": False}])  # below allocation's 230 ns: the search saw it too
    marked = losses_above(SEARCHES, runs).set_index("strategy")
    assert marked.loc["mix", "lost_above_ns"] == 1000 and marked.loc["mix", "lost_above_runs"] == 2
    assert pd.isna(marked.loc["alloc", "lost_above_ns"]) and pd.isna(marked.loc["pool", "lost_above_ns"])
    best, words = answer.realtime_answer({r["strategy"]: r for r in marked.reset_index().to_dict("records")})
    assert best == "alloc"
    assert words == "Allocation at 230 ns; mix's 40 ns contradicted by a stored run that lost at 1,000 ns"
    said = answer.abstract(_batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]}), marked.reset_index(),
                           reference.load(), 1)
    assert ("of 3 strategy searches over 1 solution and case pair, 2 found an interval without loss; for 1 of them a "
            "stored run lost packets at that interval or a longer one, so 1 stands. The shortest standing interval came most often from allocation (1 of 1 pair)") in said


def test_where_every_search_is_contradicted_none_stands_and_each_is_named():
    rows = {s: {"strategy": s, "outcome": "found", "interval_ns": i, "lost_above_ns": 1000.0}
            for s, i in (("alloc", 520), ("mix", 810), ("pool", 670))}
    assert answer.realtime_answer(rows) == (None, "no search stands: allocation's 520 ns, pooling's 670 ns and mix's 810 ns "
                                                  "contradicted by a stored run that lost at up to 1,000 ns")


def test_the_best_real_time_figure_is_that_of_a_search_that_stands(monkeypatch):
    from allocorpool.chapters.page import display as show
    from allocorpool.chapters import summary
    said, shown = [], []
    monkeypatch.setattr(show, "note", said.append)
    monkeypatch.setattr(show, "show_table", lambda table, caption=None, **_: shown.append(table))
    searches = SEARCHES.assign(engine="java", label="Parallel 11", baseline=False,
                               strategy_label=SEARCHES["strategy"].str.capitalize(),
                               lost_above_ns=[None, 1000.0, None])  # mix's 40 ns contradicted
    batch = _batch({"alloc": [400, 410, 390]}).assign(strategy_label="Allocation")
    summary.show_best(batch, searches, ("A",))
    (table,) = shown
    assert table.loc[("real time", "A"), "best"] == "Parallel 11, alloc: 230"
    assert table.loc[("batch", "A"), "best Java"] == "Parallel 11, allocation: 400"
    assert said == ["In real time, 1 of 3 searched cells have no loss-free interval, and a stored run that lost at a "
                    "longer interval contradicts the loss-free interval of 1 more."]


def test_the_real_time_block_table_says_both_kept_up_rather_than_a_zero_difference():
    from allocorpool.chapters import realtime_blocks
    kept = realtime_blocks.table(_probes({"alloc": [0.0] * 3, "pool": [0.0] * 3}))
    assert kept["pooling's loss - allocation's"].tolist() == ["both kept up in every probe: no difference"]
    lost = realtime_blocks.table(_probes({"alloc": [0.10, 0.14, 0.30], "pool": [0.0] * 3}))
    assert lost["pooling's loss - allocation's"].iloc[0].startswith("pooling loses less: ")


def test_a_tie_for_the_shortest_interval_is_counted_as_a_tie_not_for_one_strategy():
    tied = SEARCHES.assign(interval_ns=[40, 40, None])
    said = answer.abstract(_batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]}), tied, reference.load(), 1)
    assert "The shortest interval came most often from allocation and mix tied (1 of 1 pair). Each is one search" in said, said


def test_where_nothing_kept_up_in_2019_the_answer_names_the_strategy_that_lost_least():
    """Real-time case C of the 2019 "CMS" lost at 1,000 ns with every strategy: the cell named no 2019 best."""
    table = answer.answer_table(_batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]}).assign(case="C"),
                                SEARCHES.assign(case="C"), reference.load())
    assert table.loc["Parallel 11, 2019 \"CMS\"", "real time, case C"].endswith("; 2019: mix lost least")
    detail = answer.answer_table(_batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]}).assign(case="C"),
                                 SEARCHES.assign(case="C"), reference.load(), detail=True)
    assert detail.loc["Parallel 11, 2019 \"CMS\"", "real time, case C"].endswith(
        "; 2019: none kept up, mix lost least (9 %)")


def test_the_abstract_names_the_winner_of_most_pairs_not_every_winner():
    # the first screen listed six winners with their counts ("mix in 8, mix and pooling tied in 3, ..."), an
    # enumeration the real-time table already gives pair by pair
    assert answer.most_often({"mix": 8, "mix and pooling tied": 3, "allocation": 2}) == "mix (8 of 13 pairs)"
    assert answer.most_often({"mix": 2, "pooling": 2, "allocation": 1}) == "mix or pooling (2 of 5 pairs each)"
    assert answer.most_often({}) == ""


def test_a_real_time_cell_drops_its_runners_up_before_it_runs_over_fifteen_words():
    # "Allocation 200 ns (mix 200, pooling 80†); allocation and mix keep up at 1 µs; 2019: pooling": 16 words
    searched = {s: {"outcome": "found", "interval_ns": ns, "lost_above_ns": lost}
                for s, ns, lost in (("alloc", 1200, None), ("mix", 1300, None), ("pool", 80, 1000))}
    probed = {r["strategy"]: r for r in _probes({"alloc": [0.10, 0.14, 0.30], "mix": [0.2, 0.1, 0.3],
                                                 "pool": [0.01, 0.02, 0.01]}).to_dict("records")}
    full = answer.realtime_cell(searched, probed)
    assert full == "Allocation 1.2 µs (mix 1.3, pooling 80†); all lose at 1 µs, pooling least"
    cut = answer.realtime_cell(searched, probed, "2019: mix lost least")
    assert cut == "Allocation 1.2 µs; all lose at 1 µs, pooling least; 2019: mix lost least"
    assert len(cut.split()) <= answer.WORDS_IN_A_CELL
