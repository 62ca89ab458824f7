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
    assert cell.startswith("Mix, 3") and "less time than pooling" in cell and cell.endswith("; 2019: mix")
    assert table.loc["Parallel 11, 2019 \"CMS\"", "real time, case A"] == "Mix at 40 ns; allocation 230; 2019: mix"


def test_an_interval_that_does_not_clear_the_margin_names_both_and_a_single_run_decides_nothing():
    even = _batch({"alloc": [400, 300, 500], "mix": [390, 480, 310], "pool": [600, 610, 590]})
    best, outcome, words = answer.batch_answer({r["strategy"]: r for r in even.to_dict("records")})
    assert outcome == effects.NO_DIFFERENCE and words.startswith("Mix = allocation: no difference measured")
    single = _batch({"alloc": [400], "mix": [100], "pool": [160]})
    best, outcome, words = answer.batch_answer({r["strategy"]: r for r in single.to_dict("records")})
    assert best == "mix" and outcome == effects.NOT_MEASURED and words == "Mix, one run each (not decided)"
    said = answer.abstract(single, SEARCHES, reference.load(), 0)
    assert "one run a cell, which decides nothing" in said


def test_the_abstract_counts_the_three_outcomes():
    batch = _batch({"alloc": [400, 410, 390], "mix": [100, 104, 98], "pool": [160, 165, 158]})
    said = answer.abstract(batch, SEARCHES, reference.load(), 2)
    assert "It holds in 1 of 1 solution and case pairs" in said and "in 2 boots of the machine" in said
    assert "the shortest was mix in 1" in said
    assert answer.boots_of(batch) == 1


def test_the_reproducibility_table_shows_each_boots_verdict_and_where_boots_disagree():
    from allocorpool.chapters import summary
    batch = _batch({"alloc": [400, 410, 390], "pool": [160, 165, 158]})
    batch.loc[batch["strategy"] == "alloc", "boot_samples"] = [{"b1": [400, 410, 390], "b2": [160, 170, 150]}]
    batch.loc[batch["strategy"] == "pool", "boot_samples"] = [{"b1": [160, 165, 158], "b2": [158, 166, 161]}]
    table = summary.reproducibility(batch.assign(label="Parallel 11"))
    assert table.loc[0, "boot b1"].startswith("holds: 0.4") and table.loc[0, "boot b2"].startswith("no difference")
    assert table.loc[0, "boots agree"] == "no: the boots disagree"


def test_the_glossary_defines_the_terms_and_every_solution_shown():
    table = answer.glossary(["parallel-11", "flat-glibc"]).set_index("term")
    assert {"strategy", "case", "block", "interval", "no difference measured"} <= set(table.index)
    assert 'Parallel 11, 2019 "CMS"' in table.index and len(table) == len(answer.TERMS) + 2
    assert not table["meaning"].isna().any()


def test_the_machine_table_counts_a_long_commit_list_instead_of_printing_it():
    from allocorpool.chapters import summary
    facts = pd.DataFrame([{"what": "commit", "value": ", ".join(f"{i:012x}" for i in range(81))},
                          {"what": "kernel", "value": "6.18.44-fc-v657"}, {"what": "fewer than 4 CPUs", "value": "True"}])
    table = summary.machine_table(facts).set_index("what")
    assert table.loc["commit", "value"] == "81 commits (listed in the Methods appendix)"
    assert table.loc["kernel", "value"] == "6.18.44-fc-v657" and table.loc["fewer than 4 CPUs", "value"] == "yes"
