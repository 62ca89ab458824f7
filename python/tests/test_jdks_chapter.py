"""chapters/jdks.py: the collectors-across-JDKs chapter's tables and sentences, from a small table."""

import pandas as pd

from allocorpool import effects
from allocorpool.chapters import jdks


def _row(jdk, collector, ns, keeps_up, loss=0.0, probe_status="ok"):
    return {"strategy_label": "Pooling", "case": "C", "jdk": jdk, "collector": collector, "ns_per_packet": ns,
            "batch_status": "ok" if ns is not None else "error", "probe_status": probe_status,
            "keeps_up": keeps_up if probe_status == "ok" else None, "loss_pct": loss, "interval_ns": 1000}


TABLE = pd.DataFrame([
    _row(11, "parallel", 400, False, 23.0), _row(11, "g1", 500, False, 42.0), _row(11, "zgc", None, None, None, "error"),
    _row(25, "parallel", 200, False, 5.0), _row(25, "g1", 300, True), _row(25, "zgc-gen", 350, True),
])


def test_each_jdk_counts_the_collectors_that_keep_up_and_names_the_fastest():
    lines = jdks.findings(TABLE)
    assert lines[0] == ("**Pooling C** keeps up at 1,000 ns with JDK 11: 0 of 2; "
                        "JDK 25: 2 of 3 (fastest in batch of those: G1, 300 ns).")  # a failed probe is not counted
    # single runs: the JDKs are not compared (ZGC 11 and generational ZGC have one JDK each)
    assert lines[1] == "In batch, Pooling C: each collector ran once per JDK, too few runs to compare the JDKs."
    changes = jdks.changes_table(TABLE)
    assert list(changes.index.get_level_values("collector")) == ["Parallel", "G1"]
    assert changes.loc[("Pooling C", "Parallel"), "batch ns per packet"] == "400 → 200"
    assert changes.loc[("Pooling C", "Parallel"), "change"] == "one run each: not compared"


def _block(jdk, collector, strategy, times, boot="b1"):
    """A row of a block's cell: its median, interval and repetitions in one boot."""
    spread = effects.spread(times)
    return {**_row(jdk, collector, spread.median, True), "strategy": strategy,
            "strategy_label": {"pool": "Pooling", "alloc": "Allocation"}[strategy], "ns_low": spread.low,
            "ns_high": spread.high, "runs": spread.n, "boots": 1, "boot": boot, "samples": times,
            "boot_samples": {boot: times}}


def test_a_jdk_change_and_pooling_against_allocation_are_decided_by_their_intervals_either_way():
    table = pd.DataFrame([
        _block(11, "parallel", "pool", [400, 410, 395]), _block(25, "parallel", "pool", [200, 205, 198]),
        _block(11, "g1", "pool", [500, 505, 498]), _block(25, "g1", "pool", [499, 503, 506]),
        _block(11, "parallel", "alloc", [600, 610, 590]), _block(25, "parallel", "alloc", [150, 152, 149]),
        _block(11, "g1", "alloc", [500, 505, 497]), _block(25, "g1", "alloc", [700, 710, 690])])
    changes = jdks.changes_table(table)
    assert changes.loc[("Pooling C", "Parallel"), "change"] == "faster"
    assert changes.loc[("Pooling C", "Parallel"), "later over earlier"].startswith("0.5")
    assert changes.loc[("Pooling C", "G1"), "change"] == "undecided"
    assert changes.loc[("Allocation C", "G1"), "change"] == "slower"
    lines = jdks.findings(table)
    assert "In batch, Pooling C, from the first JDK to the last: faster with 1, undecided with 1 of 2 " \
           "collectors." in lines
    # pooling over allocation: faster with Parallel 11 and G1 25, slower with Parallel 25, no difference with G1 11
    assert lines[-1] == ("Pooling takes less time than allocation in batch, case C: holds in 2, fails in 1, "
                         "undecided in 1 of 4 JDK and collector pairs.")
    assert jdks.batch_text(pd.Series(table.iloc[0])).startswith("400")  # the median, then its interval


def test_the_matrix_leaves_a_collector_a_jdk_lacks_empty():
    wide = jdks.matrix(TABLE, TABLE.apply(jdks.realtime_text, axis=1), "collector")
    assert list(wide.columns) == ["JDK 11", "JDK 25"]
    assert wide.loc[("Pooling C", "Parallel"), "JDK 11"] == "loses 23 %"
    assert wide.loc[("Pooling C", "G1"), "JDK 25"] == "keeps up"
    assert wide.loc[("Pooling C", "ZGC"), "JDK 11"] == "error"
    assert pd.isna(wide.loc[("Pooling C", "ZGC"), "JDK 25"]) and pd.isna(wide.loc[("Pooling C", "Generational ZGC"), "JDK 11"])
    assert len(jdks.figure(TABLE).data) == 3  # a line per collector with a batch figure


def test_cells_the_store_lacks_are_counted_and_failed_ones_listed(monkeypatch):
    from allocorpool.chapters.page import display as show
    said, listed = [], []
    monkeypatch.setattr(show, "note", said.append)
    monkeypatch.setattr(show, "show_failures", lambda frame, what: listed.append(frame))
    table = TABLE.assign(batch_status=["ok", "missing", "error", "ok", "ok", "missing"],
                         probe_status=["ok", "missing", "ok", "timeout", "ok", "ok"], error=None)
    show.show_unfinished(table, ["batch_status", "probe_status"], "cell across the JDKs")
    assert said == ["2 cells across the JDKs are not measured yet: the store does not hold their runs."]
    (failed,) = listed
    assert list(failed["collector"]) == ["zgc", "parallel"] and list(failed["error"]) == ["error / ok", "ok / timeout"]


def test_a_batch_time_within_five_percent_is_no_difference_not_one_times_slower():
    table = pd.DataFrame([_block(11, "serial", "pool", [530, 531, 529]), _block(25, "serial", "pool", [545, 546, 540])])
    assert jdks.changes_table(table).loc[("Pooling C", "Serial"), "change"] == "undecided"


def test_every_panel_of_the_figure_has_the_log_axis_its_shared_values_need():
    two = pd.concat([TABLE, TABLE.assign(strategy="alloc", strategy_label="Allocation")], ignore_index=True)
    fig = jdks.figure(two)
    axes = [name for name in fig.layout.to_plotly_json() if name.startswith("yaxis")]
    assert len(axes) >= 2 and all(fig.layout[name].type == "log" for name in axes)


def test_the_chapter_says_how_much_of_its_plan_it_shows_and_which_pairs_were_measured():
    assert jdks.coverage(TABLE, 6) == ("This page shows 6 of the plan's 6 JDK and collector pairs. The store holds a "
                                       "finished batch block or run for 5 of them (Parallel on JDK 11, G1 on JDK 11, "
                                       "Parallel on JDK 25, G1 on JDK 25, Generational ZGC on JDK 25).")
    one = TABLE[TABLE["collector"] == "parallel"].head(1)
    assert jdks.coverage(one, 23) == ("This page shows 1 of the plan's 23 JDK and collector pairs: the others are "
                                      "outside the selection of solutions shown.")


def test_a_collector_has_one_colour_in_every_panel_so_the_legend_names_every_line():
    from allocorpool.chapters.page.figures import legend_matches_panels
    two = pd.concat([TABLE, TABLE.iloc[::-1].assign(strategy="alloc", strategy_label="Allocation")], ignore_index=True)
    fig = jdks.figure(two)
    assert len(fig.data) > 3 and legend_matches_panels(fig)


def test_a_probe_that_kept_up_where_another_chapters_run_of_it_lost_does_not_stand():
    # chapter 15 said ZGC 11 pooling keeps up in case C at 1,000 ns, which the searches' stored runs contradict
    table = TABLE.assign(solution=[f"{c}-{j}" for j, c in zip(TABLE["jdk"], TABLE["collector"])], strategy="pool")
    runs = pd.DataFrame([{"solution": "g1-25", "strategy": "pool", "case": "C", "interval_ns": 2000, "keeps_up": False},
                         {"solution": "zgc-gen-25", "strategy": "pool", "case": "C", "interval_ns": 500,
                          "keeps_up": False}])  # a loss at a shorter interval contradicts nothing
    marked = jdks.standing(table, runs)
    assert marked["contradicted"].tolist() == [False, False, False, False, True, False]
    assert jdks.realtime_text(marked.iloc[4]) == "kept up†" and not marked["keeps_up"].iloc[4]
    assert jdks.realtime_text(marked.iloc[5]) == "keeps up"
    assert jdks.findings(marked)[0].endswith("JDK 25: 1 of 3 (fastest in batch of those: Generational ZGC, 350 ns).")
