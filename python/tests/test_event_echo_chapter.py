"""chapters/event_echo.py and event_echo_claims.py: the copy's cost from both modes' rows, the seed's claims
decided by rule and worded as every chapter words them (effects), and a failed run failing the notebook under the
ci profile only."""

import pandas as pd
import pytest

from allocorpool.chapters import event_echo as chapter
from allocorpool.chapters.page import readability
from allocorpool.chapters import event_echo_claims as claims
from allocorpool.effects import FAILS, HOLDS, MIXED, NO_DIFFERENCE, NOT_MEASURED


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


def repeated(transport, jdk, collector, clients, mode, rates, **figures):
    """One echo row per repetition, at these events per second."""
    return [{**echo_row(transport, jdk, collector, clients, mode, rate, **figures), "repetition": i,
             "key": f"{transport}-{jdk}-{collector}-{clients}-{mode}-r{i}"} for i, rate in enumerate(rates)]


def loop_rows(jdk, collector, threads, times):
    return [{"program": "allocation", "jdk": jdk, "collector": collector, "threads": threads, "status": "ok",
             "repetition": i, "ns_per_op": t, "ops_per_s": threads * 1e9 / t, "alloc_bytes_per_s": 1e10}
            for i, t in enumerate(times)]


def by_claim(echo, allocation):
    verdicts = claims.claims(pd.DataFrame(echo), pd.DataFrame(allocation), claims.reference())
    return dict(zip(("extra", "drop", "gc", "share", "threads"), verdicts))


def test_each_claim_is_decided_by_the_interval_of_its_repetitions():
    echo = [*repeated("chronicle", 25, "g1", 4, "reuse", [4.0e6, 4.05e6, 3.95e6]),
            *repeated("chronicle", 25, "g1", 4, "copy", [3.2e6, 3.22e6, 3.18e6]),
            *repeated("chronicle", 25, "g1", 1, "reuse", [1e6, 1e6, 1e6]),  # fewer clients: not deciding
            *repeated("chronicle", 25, "g1", 1, "copy", [2e6, 2e6, 2e6])]
    allocation = [*loop_rows(25, "g1", 1, [4.0, 4.1, 3.9]), *loop_rows(25, "g1", 2, [5.0, 5.1, 4.9])]
    verdicts = by_claim(echo, allocation)
    assert {name: v.outcome for name, v in verdicts.items()} == dict.fromkeys(verdicts, HOLDS), {
        name: (v.outcome, v.cells.to_dict("records")) for name, v in verdicts.items()}
    extra = verdicts["extra"].cells.iloc[0]
    assert extra["pair"] == "JDK 25 G1, 4 clients" and extra["figure"].startswith("+250")  # 4 x (312.5 - 250) ns
    assert verdicts["extra"].summary == "holds in 1 of 1 JDK and collector pairs"
    assert "within a factor 2 of Lawrey's 166 ns" in verdicts["extra"].rule
    table = claims.verdicts(pd.DataFrame(echo), pd.DataFrame(allocation), claims.reference())
    assert table["verdict"].tolist() == ["holds"] * 5 and "True" not in table.to_string()


def test_one_run_a_side_cannot_tell_even_where_its_figure_matches():
    echo = [*repeated("chronicle", 25, "g1", 4, "reuse", [4.0e6]), *repeated("chronicle", 25, "g1", 4, "copy", [3.2e6])]
    allocation = [*loop_rows(25, "g1", 1, [4.0]), *loop_rows(25, "g1", 2, [8.0])]
    verdicts = by_claim(echo, allocation)
    assert {v.outcome for v in verdicts.values()} == {NOT_MEASURED}
    assert verdicts["extra"].words == "cannot tell"
    assert verdicts["extra"].summary == "not measured in any of 1 JDK and collector pairs"
    assert verdicts["extra"].cells["verdict"].tolist() == ["not measured"]


def test_an_interval_across_the_band_edge_is_undecided_and_one_outside_fails():
    wide = [*repeated("chronicle", 25, "g1", 1, "reuse", [4.0e6, 4.0e6, 4.0e6]),
            *repeated("chronicle", 25, "g1", 1, "copy", [2.5e6, 3.3e6, 3.7e6])]  # 21 to 150 ns: across 83
    across = by_claim(wide, [])["extra"]
    assert across.outcome == NO_DIFFERENCE and across.words == "undecided"
    assert across.summary == "undecided in 1 of 1 JDK and collector pairs"
    same = [*repeated("chronicle", 25, "g1", 1, "reuse", [4.0e6, 4.02e6, 3.98e6]),
            *repeated("chronicle", 25, "g1", 1, "copy", [3.99e6, 4.01e6, 3.97e6])]  # about 0 ns: far below 83
    assert by_claim(same, [])["extra"].outcome == FAILS and by_claim(same, [])["drop"].outcome == FAILS


def test_pairs_that_differ_are_counted_never_decided_by_a_majority():
    loops = []
    for jdk, two in ((11, [5.0, 5.1, 4.9]), (17, [5.0, 5.1, 4.9]), (25, [4.0, 4.1, 3.9])):  # 25 % slower, twice
        loops += [*loop_rows(jdk, "g1", 1, [4.0, 4.1, 3.9]), *loop_rows(jdk, "g1", 2, two)]
    threads = by_claim([], loops)["threads"]
    assert threads.outcome == MIXED and threads.words == "partly"
    assert threads.summary == "holds in 2, fails in 1 of 3 JDK and collector pairs"
    assert threads.cells["verdict"].tolist() == ["holds", "holds", "fails"]  # effects.OUTCOMES


def test_a_pair_not_measured_is_counted_apart_not_against_the_claim():
    """A pair with one run a side decides nothing: the claim holds on the pairs judged, and says how many were
    not measured (effects.Tally, as every chapter counts)."""
    loops = [*loop_rows(25, "g1", 1, [4.0, 4.1, 3.9]), *loop_rows(25, "g1", 2, [5.0, 5.1, 4.9]),
             *loop_rows(17, "g1", 1, [4.0]), *loop_rows(17, "g1", 2, [5.0])]
    threads = by_claim([], loops)["threads"]
    assert threads.outcome == HOLDS
    assert threads.summary == "holds in 1 of 1 JDK and collector pairs (1 not measured)"


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
    # the full article's note ran to a 56-word sentence: every sentence stays under the page's 50 words
    assert max(readability.words(sentence) for sentence in readability.sentences(note)) <= readability.MAX_WORDS, note


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


def test_pairs_a_jdk_lacks_are_said_in_words_not_as_the_launchers_error():
    """The page showed the launcher's message ("JDK 11 has no collector 'zgc-gen' ...") in a table."""
    echo = pd.DataFrame([echo_row("nio", jdk, "zgc-gen", 1, "copy", 0, status="unsupported") for jdk in (17, 11)])
    said = chapter.unsupported(echo, pd.DataFrame(columns=echo.columns))
    assert said == "Not run, since the JDK lacks the collector: Generational ZGC on JDK 11 and 17."
    assert chapter.unsupported(pd.DataFrame(columns=echo.columns)) is None


def test_a_store_without_a_run_of_the_chapter_says_so_once_and_leaves_the_sections_out(monkeypatch):
    """The full-size article showed six empty sections and 'Every run finished.' for a chapter it never ran."""
    from allocorpool.analysis.search import MISSING
    from allocorpool.chapters.page import display
    said, dropped = [], []
    monkeypatch.setattr(chapter.show, "note", said.append)
    monkeypatch.setattr(chapter.show, "nothing_measured", said.append)  # the article shows it in the chapter's place
    monkeypatch.setattr(chapter.show, "nothing_to_show", dropped.append)
    monkeypatch.setattr(display, "display", lambda *a, **k: said.append("displayed"))
    echo = pd.DataFrame([echo_row("nio", 25, "g1", 4, mode, 1.0, status=MISSING) for mode in ("reuse", "copy")]
                        + [echo_row("nio", 11, "zgc-gen", 4, "copy", 1.0, status="unsupported")])
    loops = pd.DataFrame([{"program": "allocation", "jdk": 25, "collector": "g1", "threads": 1, "status": MISSING}])
    assert not chapter.stored(echo, loops)
    chapter.show_runs(echo, loops)
    assert said == ["None of this chapter's 3 runs has been measured at these sizes, so it shows no figures."]
    chapter.show_latency(echo)
    chapter.show_gc(echo)
    assert len(dropped) == 2 and said[1:] == []
    assert chapter.stored(echo.assign(status=["ok", MISSING, "unsupported"]), loops)


def test_the_copys_time_per_event_is_an_effect_over_both_modes_repetitions():
    echo = pd.DataFrame([*repeated("chronicle", 25, "g1", 4, "reuse", [4.0e6, 4.05e6, 3.95e6]),
                         *repeated("chronicle", 25, "g1", 4, "copy", [3.2e6, 3.22e6, 3.18e6]),  # slower
                         *repeated("nio", 11, "parallel", 1, "reuse", [1.0e6, 1.01e6, 0.99e6]),
                         *repeated("nio", 11, "parallel", 1, "copy", [1.3e6, 1.31e6, 1.29e6]),  # faster
                         *repeated("nio", 25, "g1", 1, "reuse", [1.0e6, 1.3e6, 0.8e6]),
                         *repeated("nio", 25, "g1", 1, "copy", [1.1e6, 0.85e6, 1.25e6]),  # overlapping: undecided
                         *repeated("nio", 17, "g1", 1, "reuse", [1.0e6]),
                         *repeated("nio", 17, "g1", 1, "copy", [0.5e6])])  # one run a side: not measured
    cost = chapter.costs(echo).set_index(["transport", "jdk"])
    slower = cost.loc[("chronicle", 25), "copy_time"]
    assert slower.ratio == pytest.approx(4.0 / 3.2) and 1.05 < slower.low <= slower.ratio <= slower.high
    assert cost["copy_outcome"].to_dict() == {("chronicle", 25): FAILS, ("nio", 11): HOLDS, ("nio", 17): NOT_MEASURED,
                                              ("nio", 25): NO_DIFFERENCE}
    note = chapter.copy_note(chapter.costs(echo))
    assert note.startswith("Against reuse, the copy is faster in 1, slower in 1, undecided in 1 of 3 rows compared "
                           "(1 not measured)"), note
    assert note.endswith("faster: nio on JDK 11 Parallel with 1 client."), note


def test_the_claims_show_a_line_each_and_fold_each_pairs_figure(monkeypatch):
    echo = [*repeated("chronicle", 25, "g1", 4, "reuse", [4.0e6, 4.05e6, 3.95e6]),
            *repeated("chronicle", 25, "g1", 4, "copy", [3.2e6, 3.22e6, 3.18e6]),
            *repeated("chronicle", 11, "parallel", 4, "reuse", [4.0e6, 4.05e6, 3.95e6]),
            *repeated("chronicle", 11, "parallel", 4, "copy", [4.0e6, 4.05e6, 3.95e6])]
    allocation = [*loop_rows(25, "g1", 1, [4.0, 4.1, 3.9]), *loop_rows(25, "g1", 2, [5.0, 5.1, 4.9])]
    shown = []
    monkeypatch.setattr(claims.show, "show_table", lambda table, caption=None: shown.append(("table", table.data)))
    monkeypatch.setattr(claims.show, "show_details_group", lambda summary, tables: shown.append((summary, tables)))
    claims.show_verdicts(claims.claims(pd.DataFrame(echo), pd.DataFrame(allocation), claims.reference()))
    (_, table), (summary, folded) = shown
    assert len(table) == 5 and "each pair" not in table.columns
    assert table["this machine"].map(lambda cell: len(cell.split()) <= 15).all(), table["this machine"].tolist()
    assert summary == "Each JDK and collector pair's figure, by claim" and len(folded) == 5
    extra = folded[0][1]
    assert extra["JDK and collector"].tolist() == ["JDK 11 Parallel, 4 clients", "JDK 25 G1, 4 clients"]
    assert extra["figure (95 % interval)"].iloc[1] == "+250 ns (+230 to +270)", extra
