"""search.py: the probe verdict and the search for the smallest loss-free interval, with fake probes."""

import pytest

from allocorpool.analysis.search import MISSING, Probe, find_interval, kept_up, measured_loss, on_grid, step_ns, verdict


def boundary_probe(boundary, calls, long_boundary=None, fails=(), repeat_boundary=None):
    """Loss-free from `boundary` up (from `long_boundary` for probes longer than 1 s, from
    `repeat_boundary` for repeats); `fails`: intervals whose probe crashes (each listed once per failure).
    `calls` gets (interval, duration) of first probes and (interval, duration, repetition) of repeats."""
    failures = list(fails)

    def probe(interval_ns, duration_s, repetition=0):
        calls.append((interval_ns, duration_s, repetition) if repetition else (interval_ns, duration_s))
        if interval_ns in failures:
            failures.remove(interval_ns)
            return Probe(interval_ns, duration_s, False, status="error", error="exit code 134")
        limit = long_boundary if long_boundary and duration_s > 1 else boundary
        limit = repeat_boundary if repeat_boundary and repetition else limit
        ok = interval_ns >= limit
        return Probe(interval_ns, duration_s, ok, lost=0 if ok else 1000, lost_pct=0.0 if ok else 5.0, kept_up=ok)
    return probe


def test_the_printed_resolution():
    assert [step_ns(x) for x in (15, 95, 120, 450, 999, 1000, 2000, 9999)] == [10, 10, 10, 10, 10, 100, 100, 100]
    assert [on_grid(x) for x in (101, 120, 449.2, 1001, 2345)] == [110, 120, 450, 1100, 2400]


def test_brackets_from_the_batch_figure_and_bisects_to_the_resolution():
    calls = []
    result = find_interval(boundary_probe(437, calls), probe_s=1, high_ns=10_000, batch_ns=150)
    assert result.outcome == "found" and result.good_interval_ns == 460  # within 10 % of 430, which lost
    assert calls[0] == (230, 1)  # 1.5 x the batch figure, on the grid; nothing below 150 is probed
    assert [c for c, _ in calls[:2]] == [230, 460]
    assert result.loss_pct_at_reference is None and 1000 not in [c[0] for c in calls]
    assert list(result.probes["interval_ns"]) == [c[0] for c in calls]
    assert len(calls) == 6  # two to bracket, three to bisect 230..460 to 10 %, the interval found again
    assert calls[-1] == (460, 1, 1) and list(result.probes["purpose"])[-1] == "repeat"
    # to two printed digits, as the search once ran: two more probes for a step the noise does not resolve
    calls.clear()
    finer = find_interval(boundary_probe(437, calls), probe_s=1, high_ns=10_000, batch_ns=150, resolution=0.01)
    assert finer.good_interval_ns == 440 and len(calls) == 8


def test_the_reference_interval_is_a_bracket_step_and_serves_a_cell_that_loses_everywhere():
    calls = []
    result = find_interval(boundary_probe(50_000, calls), probe_s=1, high_ns=10_000, batch_ns=300)
    assert result.outcome == "lost" and result.good_interval_ns is None
    assert [c for c, _ in calls] == [450, 900, 1000, 2000, 4000, 8000, 10_000]  # 1000 taken on the way, once
    assert "repeat" not in set(result.probes["purpose"])  # nothing found, nothing to repeat
    assert result.loss_pct_at_reference == 5.0
    assert list(result.probes["purpose"]).count("reference") == 1


def test_a_cell_that_loses_at_1000_ns_is_not_searched_below():
    calls = []
    result = find_interval(boundary_probe(1500, calls), probe_s=1, high_ns=10_000, batch_ns=600)
    assert result.good_interval_ns == 1500
    assert min(c[0] for c in calls[calls.index((1000, 1)):]) == 1000


def test_a_longer_confirmation_that_loses_sends_the_search_above():
    calls = []
    # Loss-free from 437 in short probes, but a rare long pause needs 900 ns: only long probes see it.
    result = find_interval(boundary_probe(437, calls, long_boundary=900), probe_s=1, high_ns=10_000, batch_ns=150,
                           confirm_s=lambda interval: 12.0)
    assert result.good_interval_ns == 910
    confirms = result.probes[result.probes["purpose"] == "confirm"]
    assert list(confirms["duration_s"]) == [12.0] and not confirms["ok"].iloc[0]
    after = result.probes.iloc[list(result.probes["purpose"]).index("confirm") + 1:]
    assert len(after) and (after["duration_s"] == 12.0).all()  # the rest of the search, as long as the confirmation
    assert after[after["ok"]]["interval_ns"].min() == 910
    # above 460 it gallops (1.1, then 1.21, 1.46 times the last), then bisects 620..910 to 10 %
    assert [c[0] for c in calls if c[1] == 12.0] == [460, 510, 620, 910, 760, 840, 910]
    # no longer probe runs after it, so the interval rests on a repeat of its 12 s probe
    assert calls[-1] == (910, 12.0, 1)


def test_a_confirmation_lost_just_below_the_interval_costs_few_long_probes():
    # Most lost confirmations are found loss-free again within 1.35 x: a step or two of the gallop (four long
    # probes here), where doubling to 880 ns and bisecting back to two digits took eight.
    calls = []
    result = find_interval(boundary_probe(437, calls, long_boundary=480), probe_s=1, high_ns=10_000, batch_ns=150,
                           confirm_s=lambda interval: 12.0)
    assert result.good_interval_ns == 490
    assert [c for c in calls if c[1] == 12.0] == [(460, 12.0), (510, 12.0), (490, 12.0), (490, 12.0, 1)]


def test_a_cell_whose_long_probes_always_lose_is_not_walked_up_step_by_step():
    calls = []
    # Short probes keep up from 2700 ns; every long one loses (a full collection longer than the queue):
    # after the first failed confirmation the search gallops with long probes and reports the loss.
    result = find_interval(boundary_probe(2700, calls, long_boundary=50_000), probe_s=1, high_ns=10_000,
                           batch_ns=70, confirm_s=lambda interval: 30.0)
    assert result.outcome == "lost" and result.loss_pct_at_reference == 5.0
    long_probes = [call[0] for call in calls if call[1] == 30.0]
    assert long_probes == [2700, 3000, 3700, 5500, 10_000]


def test_a_cell_that_kept_up_at_1000_ns_only_in_a_short_probe_reports_the_long_probes_loss_there():
    # Short probes keep up from 900 ns, long ones never: the first probe at 1000 ns lost nothing, but the cell
    # loses. Its loss at 1000 ns is measured as long as the probes that found it losing (it read 0 % before).
    calls = []
    result = find_interval(boundary_probe(900, calls, long_boundary=50_000), probe_s=1, high_ns=2000,
                           batch_ns=300, confirm_s=lambda interval: 30.0)
    assert result.outcome == "lost" and (1000, 1) in calls
    assert calls[-1] == (1000, 30.0) and result.loss_pct_at_reference == 5.0
    assert list(result.probes["purpose"])[-1] == "reference"

    # A replayed store from before this rule lacks that probe: the cell still reads lost, its loss not measured.
    def replayed(interval_ns, duration_s, repetition=0):
        if (interval_ns, duration_s) == (1000, 30.0):
            return Probe(interval_ns, duration_s, False, status=MISSING)
        return boundary_probe(900, [], long_boundary=50_000)(interval_ns, duration_s, repetition)
    replay = find_interval(replayed, probe_s=1, high_ns=2000, batch_ns=300, confirm_s=lambda interval: 30.0)
    assert replay.outcome == "lost" and replay.loss_pct_at_reference is None and replay.error is None


def test_a_failed_probe_is_retried_once_then_fails_the_search():
    calls = []
    once = find_interval(boundary_probe(437, calls, fails=(460,)), probe_s=1, high_ns=10_000, batch_ns=150)
    assert once.outcome == "found" and once.good_interval_ns == 460
    retried = once.probes[(once.probes["interval_ns"] == 460) & (once.probes["repetition"] == 0)]
    assert list(retried["attempt"]) == [1, 2] and list(retried["status"]) == ["error", "ok"]
    calls.clear()
    twice = find_interval(boundary_probe(437, calls, fails=(460, 460)), probe_s=1, high_ns=10_000, batch_ns=150)
    assert twice.outcome == "failed" and twice.good_interval_ns is None and twice.error == "exit code 134"
    assert twice.loss_pct_at_reference is None  # a failure is never a loss


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="need 0 < low_ns < high_ns"):
        find_interval(boundary_probe(1, []), probe_s=1, high_ns=10, low_ns=20)


def test_measured_loss_is_the_engines_own_count():
    lost, pct = measured_loss({"lost_measured": 68_000_000, "measured_packets": 480_000})
    assert lost == 68_000_000 and pct == pytest.approx(68_000_000 / 68_480_000 * 100)
    assert measured_loss({"lost_measured": 5, "measured_packets": 95}) == (5, 5.0)
    assert measured_loss({"lost_measured": None}) == (None, None)


def test_a_consumer_that_fell_behind_without_losing_is_not_loss_free():
    # 2.5 s at 1000 ns: 2,500,000 ticks due, one queue array holds 100,000 (100 ms). A consumer 5 % slower
    # than the clock processed 2,375,000 and lost nothing yet (the second array held the rest): it did not
    # keep up. (Over 1.5 s it would be 75,000 behind, less than the queue: a probe must be long enough.)
    slow = {"lost_measured": 0, "measured_packets": 2_375_000, "measured_ticks_due": 2_500_000, "measured_s": 2.5}
    assert kept_up(slow, 1000, 100_000) is False
    assert not verdict("ok", slow, 1000, 2.5, 100_000).ok
    steady = {**slow, "measured_packets": 2_499_990}
    assert verdict("ok", steady, 1000, 2.5, 100_000).ok
    # An older record without measured_ticks_due: the ticks due come from the window's length.
    assert kept_up({"measured_packets": 2_375_000, "measured_s": 2.5}, 1000, 100_000) is False
    crashed = verdict("error", {"lost_measured": 0}, 1000, 1.5, 100_000, error="exit code 134")
    assert not crashed.ok and crashed.lost is None and crashed.error == "exit code 134"


def test_the_slowest_collections_period_is_that_of_the_window():
    import pandas as pd
    events = pd.DataFrame({
        "kind": ["pause", "pause", "pause", "pause", "pause", "pause", "concurrent", "pause", "pause"],
        "name": ["Pause Full (Ergonomics)", "Pause Young (Allocation Failure)", "Pause Full (Ergonomics)",
                 "Pause Young (Allocation Failure)", "Pause Young (Allocation Failure)", "Pause Full (Ergonomics)",
                 "Concurrent Mark", "Pause Full (System.gc())", "Pause Full (Heap Inspection Initiated GC)"],
        "t_s": [0.2, 0.5, 1.0, 1.5, 2.5, 5.0, 5.5, 9.05, 9.1],
        "duration_ms": [600.0, 20.0, 800.0, 25.0, 22.0, 900.0, 300.0, 1000.0, 700.0]})
    from allocorpool.analysis.search import slowest_collection_period_s
    # the window from 0.4 to 9 s: two full pauses, 4 s apart; the fill's (0.2 s) and the engine's own after
    # the run (9.05 and 9.1 s, which alone gave 0.05 s) do not count
    assert slowest_collection_period_s(events, 0.4, 9.0) == pytest.approx(5.0 - 1.0)
    assert slowest_collection_period_s(events, 0.4, 4.0) is None  # one full pause in the window: period unknown
    assert slowest_collection_period_s(events, 1.2, 4.0) is None  # young pauses only: the old generation's unknown
    # G1's concurrent cycle shows the old generation collected: its young pauses, the slowest, set the period
    g1 = pd.DataFrame({"kind": ["pause"] * 4, "t_s": [1.0, 1.5, 2.0, 3.0], "duration_ms": [60.0, 2.0, 1.0, 80.0],
                       "name": ["Pause Young (Normal)", "Pause Remark", "Pause Cleanup", "Pause Young (Mixed)"]})
    assert slowest_collection_period_s(g1, 0.0, 4.0) == pytest.approx(3.0 - 1.0)
    assert slowest_collection_period_s(events.iloc[0:0], 0.0, 9.0) is None


def test_a_coarser_resolution_takes_fewer_probes():
    calls = []
    result = find_interval(boundary_probe(437, calls), probe_s=1, high_ns=10_000, batch_ns=150, digits=1)
    assert result.good_interval_ns == 500 and [c[0] for c in calls] == [300, 600, 500, 400, 500]


def test_a_probe_carries_its_metered_latency_and_the_search_reports_that_of_its_proof():
    summary = {"lost_measured": 0, "measured_packets": 1_000_000, "measured_ticks_due": 1_000_000, "measured_s": 1.0,
               "latency_p50_ns": 900, "latency_p99_ns": 4000, "latency_p999_ns": 2_500_000,
               "latency_max_ns": float("nan")}
    probe = verdict("ok", summary, 1000, 1.0, 100_000)
    assert (probe.latency_p50_ns, probe.latency_p999_ns, probe.latency_max_ns) == (900, 2_500_000, None)
    assert verdict("ok", {**summary, "latency_p50_ns": None}, 1000, 1.0, 100_000).latency_p50_ns is None
    assert verdict("error", summary, 1000, 1.0, 100_000).latency_p999_ns is None  # a failed run meters nothing

    def probe_fn(interval_ns, duration_s, repetition=0):  # loss-free from 500 ns, later in long probes
        ok = interval_ns >= 500
        return Probe(interval_ns, duration_s, ok, lost=0 if ok else 9, lost_pct=0.0 if ok else 1.0, kept_up=ok,
                     latency_p999_ns=int(duration_s * 1000), latency_max_ns=int(duration_s * 2000))
    result = find_interval(probe_fn, probe_s=1, high_ns=10_000, batch_ns=300, confirm_s=lambda interval: 8.0)
    assert result.good_interval_ns == 500
    assert result.latency_at_interval()["latency_p999_ns"] == 8000  # the confirmation, the longest proof
    assert result.latency_at_interval()["latency_p50_ns"] is None
    lost = find_interval(lambda i, d, r: Probe(i, d, False, lost=1, lost_pct=1.0, kept_up=True), probe_s=1,
                         high_ns=2000, batch_ns=300)
    assert lost.latency_at_interval() == dict.fromkeys(
        ("latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns"))


def test_the_interval_found_rests_on_two_loss_free_probes():
    # One short probe at 1000 ns kept up, its repeat did not (quick Parallel pooling B: a 21 ms pause in a
    # 21.74 ms queue, then 32 ms): 1000 ns is lossy, and the search goes on above it.
    calls = []
    result = find_interval(boundary_probe(1000, calls, repeat_boundary=1300), probe_s=1, high_ns=2000, batch_ns=120)
    assert (1000, 1, 1) in calls
    assert result.outcome == "found" and result.good_interval_ns == 1300
    repeats = result.probes[result.probes["purpose"] == "repeat"]
    assert list(repeats["interval_ns"]) == [1000, 1100, 1400, 1300, 1200]
    assert list(repeats["ok"]) == [False, False, True, True, False] and (repeats["repetition"] == 1).all()
    # Above the lossy repeat it gallops and bisects, each loss-free probe believed once its repeat is too.
    assert calls[calls.index((1000, 1, 1)) + 1:] == [(1100, 1), (1100, 1, 1), (1400, 1), (1400, 1, 1), (1300, 1),
                                                     (1300, 1, 1), (1200, 1), (1200, 1, 1)]


def test_a_confirmation_is_the_second_probe_and_a_repeat_that_loses_everywhere_ends_as_lost():
    calls = []
    found = find_interval(boundary_probe(437, calls), probe_s=1, high_ns=10_000, batch_ns=150,
                          confirm_s=lambda interval: 8.0)
    assert found.good_interval_ns == 460 and calls[-1] == (460, 8.0)  # the confirmation, no repeat
    calls.clear()
    lost = find_interval(boundary_probe(437, calls, repeat_boundary=50_000), probe_s=1, high_ns=2000,
                         batch_ns=150)
    assert lost.outcome == "lost" and lost.good_interval_ns is None
    assert lost.loss_pct_at_reference == 5.0  # its first probe at 1000 ns kept up, the repeat lost 5 %
    repeated = [c[0] for c in calls if len(c) == 3]
    assert repeated[-2:] == [2000, 1000]  # every repeat lost, up to the largest interval; then 1000 ns's for its loss
    assert len(calls) < 20  # not one step at a time
