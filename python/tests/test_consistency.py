"""analysis/consistency.py: one configuration's figures wherever the study measured it agree, or say where not."""

import pandas as pd

from allocorpool.analysis import consistency as same
from allocorpool.chapters import summary
from allocorpool.chapters.page import readability


def _run(ns, boot="aaaaaaaa-1", measurement="java_b_pool_d10", strategy="pool", stored=1000, key=None):
    return {"key": key or f"{measurement}_{boot}_{ns}", "measurement": measurement, "mode": "batch", "status": "ok",
            "ns_per_packet": ns, "boot_id": boot, "kernel": "6.18", "engine": "java", "jdk": 11,
            "collector": "parallel", "heap": "2g", "vm_options": "[]", "compact_headers": False, "design": None,
            "allocator": None, "strategy": strategy, "source": "counter", "scale": 1.0, "params_pool_size": 1000000,
            "params_mix_pool_size": 200000, "params_internal_queue_size": 1000, "params_stored_count": stored}


def test_boots_that_do_not_overlap_make_a_configuration_boot_dependent():
    index = pd.DataFrame([_run(v) for v in (100, 104, 98)] + [_run(v, boot="bbbbbbbb-2") for v in (210, 205, 215)]
                         + [_run(v, strategy="alloc") for v in (300, 310, 290)]  # one place only: not listed
                         + [_run(v, boot="bbbbbbbb-2", stored=5) for v in (50, 52, 49)]
                         + [_run(51, stored=5, measurement="java_b_pool_d20")])  # a single run within the interval
    table = same.consistency(index).set_index("configuration")
    assert len(table) == 2
    pooled = table.loc[next(c for c in table.index if "store 1,000" in c)]
    assert pooled["outcome"] == same.BOOTS_DISAGREE and pooled["boots"] == 2 and pooled["runs"] == 6
    assert pooled["figures"] == "aaaaaaaa: 100.0 ns (98.0-104.0); bbbbbbbb: 210.0 ns (205.0-215.0)"
    small = table.loc[next(c for c in table.index if "store 5" in c)]
    assert small["outcome"] == same.AGREE  # 51 lies within the other boot's 49-52
    assert next(iter(table.index)) == "Java 11, parallel, 2g heap, pooling, queue 1,000 and store 1,000, pool " \
                                    "1,000,000, scale 1.0"


def test_a_single_run_outside_its_boots_block_disagrees_and_one_run_each_cannot_tell():
    block = [_run(v) for v in (100, 102, 98)]
    outside = pd.DataFrame(block + [_run(160, measurement="java_b_pool_d20")])
    assert same.consistency(outside)["outcome"].tolist() == [same.RUNS_DISAGREE]
    within = pd.DataFrame(block + [_run(101, measurement="java_b_pool_d20")])
    assert same.consistency(within)["outcome"].tolist() == [same.AGREE]
    single = pd.DataFrame([_run(100), _run(200, boot="bbbbbbbb-2")])
    assert same.consistency(single)["outcome"].tolist() == [same.CANNOT_TELL]
    failed = pd.DataFrame(block + [{**_run(900, boot="bbbbbbbb-2"), "status": "error"}])
    assert same.consistency(failed).empty  # a failed run is no figure


def test_the_summary_counts_every_outcome_and_names_the_first_configurations_that_differ(monkeypatch):
    said, shown = [], []
    monkeypatch.setattr(summary.show, "note", said.append)
    monkeypatch.setattr(summary.show, "show_table", lambda table, title, *a, **k: shown.append((table, title)))
    monkeypatch.setattr(summary, "SHOWN_CONFIGURATIONS", 2)
    # three configurations whose boots disagree (stores of 1, 2 and 3), one whose runs of one boot do, one
    # that agrees and one measured once in each of two boots
    rows = [_run(v, boot=boot, stored=stored) for stored in (1, 2, 3)
            for boot, figures in (("aaaaaaaa-1", (100, 104, 98)), ("bbbbbbbb-2", (210, 205, 215))) for v in figures]
    rows += [_run(v, stored=4) for v in (100, 102, 98)] + [_run(160, stored=4, measurement="java_b_pool_d20")]
    rows += [_run(v, stored=5) for v in (100, 102, 98)] + [_run(101, stored=5, measurement="java_b_pool_d20")]
    rows += [_run(100, stored=6), _run(200, boot="bbbbbbbb-2", stored=6)]
    index = pd.DataFrame(rows)
    table = same.consistency(index)
    assert sorted(table["outcome"]) == sorted([same.BOOTS_DISAGREE] * 3 + [same.RUNS_DISAGREE, same.AGREE,
                                                                          same.CANNOT_TELL])
    summary.show_consistency(index)
    assert said[0].startswith("6 configurations were measured more than once. Their figures agree in 1, depend on "
                              "the boot in 3 and differ between the runs of one boot in 1; 1 have one run")
    differ = table[table["outcome"].isin([same.BOOTS_DISAGREE, same.RUNS_DISAGREE])]
    (named, title), = shown
    assert list(named.index) == list(differ["configuration"].head(2)) and title.endswith("(the first 2 of 4)")
    for sentence in readability.sentences(said[0]):
        assert readability.words(sentence) <= readability.MAX_WORDS
    assert not any(readability.INTERNAL_NAME.search(c) for c in table["configuration"])
    said.clear()
    summary.show_consistency(index[index["params_stored_count"] == 5])
    assert said == [said[0]] and "agree in 1," in said[0] and len(shown) == 1  # nothing differs: no table


def test_a_store_measured_once_has_nothing_to_compare(monkeypatch):
    said = []
    monkeypatch.setattr(summary.show, "note", said.append)
    summary.show_consistency(pd.DataFrame([_run(100)]))
    assert said == ["No configuration was measured more than once: there is nothing to compare."]
