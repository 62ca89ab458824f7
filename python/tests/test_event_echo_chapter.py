"""chapters/event_echo.py: the copy's cost from both modes' rows, the seed's claims decided by rule,
and a failed run failing the notebook under the ci profile only."""

import pandas as pd
import pytest

from allocorpool.chapters import event_echo as chapter


def echo_row(transport, jdk, collector, clients, mode, events_per_s, status="ok", **figures):
    events = events_per_s * 2  # a 2 s window
    return {"program": "echo", "jdk": jdk, "collector": collector, "transport": transport, "mode": mode,
            "clients": clients, "threads": None, "key": f"{transport}-{jdk}-{collector}-{clients}-{mode}",
            "status": status, "error": None if status == "ok" else "exit code 1", "stderr_tail": "boom",
            "events": events, "events_per_s": events_per_s, "process_cpu_s": 4.0, "gc_pause_ms": 4.0,
            "gc_pause_pct": 0.2, "gc_pause_ms_per_min": 120.0, "gc_pauses_per_min": 30.0,
            "service_alloc_bytes_per_event": 56.0 if mode == "copy" else 0.0, "cpus_busy": 2.0, **figures}


def test_the_copy_costs_what_the_two_modes_differ_by():
    echo = pd.DataFrame([echo_row("chronicle", 25, "g1", 4, "reuse", 4e6), echo_row("chronicle", 25, "g1", 4, "copy", 3e6),
                         echo_row("nio", 25, "g1", 4, "reuse", 10e6, status="error")])
    cost = chapter.costs(echo)
    assert len(cost) == 1  # the NIO pair has no measured reuse row
    row = cost.iloc[0]
    assert row["throughput_drop_pct"] == pytest.approx(25)
    assert row["extra_ns_seed"] == pytest.approx(4 * (1e9 / 3e6 - 1e9 / 4e6))  # 333 ns: the seed's measure
    assert row["extra_cpu_ns"] == pytest.approx(1e9 * (4 / 6e6 - 4 / 8e6))
    assert row["copy_gc_pause_ns_per_event"] == pytest.approx(4e6 / 6e6)
    assert chapter.copy_check(cost).empty


def test_each_claim_gets_a_verdict_by_its_rule():
    figures = chapter.reference()
    echo = pd.DataFrame([echo_row("chronicle", 25, "g1", 4, "reuse", 4e6), echo_row("chronicle", 25, "g1", 4, "copy", 3.2e6),
                         echo_row("chronicle", 25, "g1", 1, "reuse", 1e6), echo_row("chronicle", 25, "g1", 1, "copy", 1e6)])
    allocation = pd.DataFrame([
        {"program": "allocation", "jdk": 25, "collector": "g1", "threads": 1, "status": "ok", "ns_per_op": 4.0,
         "ops_per_s": 2.5e8, "alloc_bytes_per_s": 1.4e10},
        {"program": "allocation", "jdk": 25, "collector": "g1", "threads": 2, "status": "ok", "ns_per_op": 5.0,
         "ops_per_s": 4e8, "alloc_bytes_per_s": 2.2e10}])
    table = chapter.verdicts(chapter.costs(echo), allocation, figures).set_index("Lawrey's claim")
    verdict = table["verdict"]
    assert verdict.iloc[0] == "holds here: within a factor 2 of Lawrey's"  # 250 ns against 166, 4 clients only
    assert verdict.iloc[1] == "holds here: within a factor 2 of Lawrey's"  # 20 % against 25
    assert verdict.iloc[2] == "holds here: under 1 % of the time"
    assert verdict.iloc[3] == "holds here: pauses are under half the extra time"
    assert verdict.iloc[4].startswith("holds here on 1 of 1")  # 5 ns against 4: 25 % slower on 2 threads
    assert "4c: 250" in table["deciding rows"].iloc[0] and "1c" not in table["deciding rows"].iloc[0]


def test_rows_that_disagree_in_sign_decide_nothing():
    verdict = chapter._ratio_verdict(50, 166, pd.Series([300.0, -200.0, 50.0, -10.0]))
    assert verdict.startswith("not decided: the rows disagree (2 of 4 show a cost)")


def test_no_cost_and_a_large_cost_do_not_hold():
    assert chapter._ratio_verdict(-5, 166) == "does not hold here: no cost measured"
    assert chapter._ratio_verdict(400, 166) == "does not hold here: larger by more than 2x"
    assert chapter._ratio_verdict(80, 166) == "does not hold here: smaller by more than 2x"


def test_a_failed_run_fails_the_notebook_under_ci_only():
    echo = pd.DataFrame([echo_row("nio", 11, "g1", 1, "copy", 1e6, status="timeout"),
                         echo_row("nio", 11, "zgc-gen", 1, "copy", 0, status="unsupported")])
    allocation = pd.DataFrame(columns=echo.columns)
    failed = chapter.failures(echo, allocation)
    assert failed["label"].tolist() == ["JDK 11 G1, nio, copy, 1 client"]  # unsupported is not a failure
    chapter.raise_if_failed(echo, allocation, "quick")
    with pytest.raises(RuntimeError, match="1 event-echo run\\(s\\) failed under the ci profile: JDK 11 G1, nio"):
        chapter.raise_if_failed(echo, allocation, "ci")


def test_the_note_on_shared_cores_says_what_more_clients_did():
    rows = [echo_row(t, 25, "g1", c, m, eps, cpus_busy=1.9)
            for t in ("chronicle", "nio") for m in ("reuse", "copy") for c, eps in ((1, 2e6), (2, 2.2e6), (4, 2.4e6))]
    note = chapter.sharing_note(pd.DataFrame(rows), 2)
    assert "this machine's 2 CPUs" in note and "median of 1.90 CPUs busy" in note
    assert "From 1 to 4 clients, events per second changed by a median factor of 1.20: more clients did not add" in note
    assert "at 4 clients it gives a median" in note


def test_runs_the_store_lacks_are_counted_and_not_listed_as_failures():
    # the full article listed 140 runs the store does not hold as "failed or timed out", each "nan", and said
    # Chronicle "did not serve" on every JDK and collector
    echo = pd.DataFrame([echo_row("chronicle", 25, "g1", 1, "copy", 0, status="missing"),
                         echo_row("nio", 25, "g1", 1, "copy", 0, status="missing"),
                         echo_row("nio", 25, "g1", 1, "reuse", 1e6)])
    allocation = pd.DataFrame([{"program": "allocation", "jdk": 25, "collector": "g1", "threads": 1,
                                "status": "missing"}])
    assert chapter.failures(echo, allocation).empty
    assert chapter.not_measured(echo, allocation) == (
        "3 of the profile's 4 runs are not measured: the store does not hold them (2 of the echo runs, 1 of the "
        "allocation loops).")
    assert chapter.not_measured(echo[echo["status"] == "ok"]) is None
