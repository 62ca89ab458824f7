"""chapters/jdks.py: the collectors-across-JDKs chapter's tables and sentences, from a small table."""

import pandas as pd

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
    assert lines[0] == ("**Pooling C** keeps up at 1000 ns with JDK 11: 0 of 2; "
                        "JDK 25: 2 of 3 (fastest in batch of those: G1, 300 ns).")  # a failed probe is not counted
    assert lines[1] == ("In batch, Pooling C: Parallel 400 → 200 ns (JDK 11 → 25, 2× faster); "
                        "G1 500 → 300 ns (JDK 11 → 25, 1.7× faster).")  # ZGC 11 and generational ZGC: one JDK each


def test_the_matrix_leaves_a_collector_a_jdk_lacks_empty():
    wide = jdks.matrix(TABLE, TABLE.apply(jdks.realtime_text, axis=1), "collector")
    assert list(wide.columns) == ["JDK 11", "JDK 25"]
    assert wide.loc[("Pooling C", "Parallel"), "JDK 11"] == "loses 23 %"
    assert wide.loc[("Pooling C", "G1"), "JDK 25"] == "keeps up"
    assert wide.loc[("Pooling C", "ZGC"), "JDK 11"] == "error"
    assert pd.isna(wide.loc[("Pooling C", "ZGC"), "JDK 25"]) and pd.isna(wide.loc[("Pooling C", "Generational ZGC"), "JDK 11"])
    assert len(jdks.figure(TABLE).data) == 3  # a line per collector with a batch figure


def test_cells_the_store_lacks_are_counted_and_failed_ones_listed(monkeypatch):
    from allocorpool.chapters import display as show
    said, listed = [], []
    monkeypatch.setattr(show, "note", said.append)
    monkeypatch.setattr(show, "show_failures", lambda frame, what: listed.append(frame))
    table = TABLE.assign(batch_status=["ok", "missing", "error", "ok", "ok", "missing"],
                         probe_status=["ok", "missing", "ok", "timeout", "ok", "ok"], error=None)
    show.show_unfinished(table, ["batch_status", "probe_status"], "cell across the JDKs")
    assert said == ["2 cells across the JDKs are not measured yet: the store does not hold their runs."]
    (failed,) = listed
    assert list(failed["collector"]) == ["zgc", "parallel"] and list(failed["error"]) == ["error / ok", "ok / timeout"]


def test_a_batch_time_within_five_percent_is_about_the_same_not_one_times_slower():
    table = pd.DataFrame([_row(11, "serial", 530, False, 3.0), _row(25, "serial", 545, False, 4.0)])
    assert jdks.findings(table)[1] == "In batch, Pooling C: Serial 530 → 545 ns (JDK 11 → 25, about the same)."


def test_every_panel_of_the_figure_has_the_log_axis_its_shared_values_need():
    two = pd.concat([TABLE, TABLE.assign(strategy="alloc", strategy_label="Allocation")], ignore_index=True)
    fig = jdks.figure(two)
    axes = [name for name in fig.layout.to_plotly_json() if name.startswith("yaxis")]
    assert len(axes) >= 2 and all(fig.layout[name].type == "log" for name in axes)
