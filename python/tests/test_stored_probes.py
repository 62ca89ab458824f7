"""analysis/stored_probes.py: every stored run of a configuration, judged as a probe."""

import pandas as pd

from allocorpool.analysis.stored_probes import stored_probes
from allocorpool.run.runner import Cell

BUILD, OLD, LISTED = "15abe37b387a", "0123456789ab", "60f6c1cfa87d"


def _cell(**changes):
    fields = dict(engine="java", case="C", strategy="pool", mode="realtime", duration_s=8, warmup_s=2, jdk=11,
                  collector="zgc", heap="2g", gc_log=True, interval_ns=1000, build=BUILD)
    return Cell(**{**fields, **changes})


def _row(cell, lost=0, packets=1_000_000, status="ok"):
    return {"key": cell.key, "mode": "realtime", "interval_ns": cell.interval_ns, "duration_s": cell.duration_s,
            "status": status, "lost_measured": lost, "measured_packets": packets, "measured_ticks_due": packets,
            "params_input_queue_size": 100_000, "cpu_model": "EPYC", "cpus": 2}


def test_every_run_of_the_configuration_counts_and_nothing_else():
    search_probe = _cell(interval_ns=900)
    index = pd.DataFrame([
        _row(search_probe),
        _row(_cell(duration_s=120), lost=29),                        # a long run at 1000 ns that lost
        _row(_cell(repetition=2, boot="e611ccc0")),                  # a probe block's repeat
        _row(_cell(build=LISTED), lost=5),                           # a build that measures the same
        _row(_cell(build=OLD), lost=7),                              # a build that does not
        _row(_cell(heap="10g"), lost=1),                             # the big heap: another configuration
        _row(_cell(strategy="mix")),                                 # another strategy
        _row(_cell(interval_ns=700), status="timeout"),              # a failed run says nothing
    ])
    found = stored_probes(index, [search_probe.key], same_builds=[LISTED]).set_index("key")
    assert set(found.index) == {search_probe.key, _cell(duration_s=120).key, _cell(repetition=2, boot="e611ccc0").key,
                                _cell(build=LISTED).key, _cell(interval_ns=700).key}
    assert not found.loc[_cell(duration_s=120).key, "keeps_up"] and found.loc[search_probe.key, "keeps_up"]
    assert pd.isna(found.loc[_cell(interval_ns=700).key, "keeps_up"])
    assert found["configuration"].nunique() == 1 == len({search_probe.configuration})


def test_the_configuration_drops_only_what_varies_between_runs():
    cell = _cell()
    assert cell.configuration == _cell(interval_ns=1500, duration_s=60, warmup_s=5, repetition=3, boot="abcdef01",
                                       build=OLD).configuration
    for other in (_cell(case="B"), _cell(heap="10g"), _cell(collector="g1"), _cell(capture_delay_ms=10)):
        assert other.configuration != cell.configuration
