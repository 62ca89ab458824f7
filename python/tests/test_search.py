"""search.py: bisection for the smallest loss-free interval, with fake probes and a fake engine."""


import pytest

from allocorpool.analysis.search import Probe, find_interval, measured_loss



def boundary_probe(boundary, calls):
    def probe(interval_ns):
        calls.append(interval_ns)
        ok = interval_ns >= boundary
        return Probe(interval_ns, ok, 0 if ok else 1000, 0.0 if ok else 5.0)
    return probe


def test_finds_the_boundary_within_the_tolerance_and_records_every_probe():
    calls = []
    result = find_interval(boundary_probe(437, calls), low_ns=20, high_ns=10_000, tolerance_ns=10)
    assert 437 <= result.good_interval_ns <= 447 and not result.lost_everywhere
    assert list(result.probes["interval_ns"]) == calls
    assert list(result.probes["purpose"][:2]) == ["bound", "bound"]
    assert result.probes["purpose"].iloc[-1] == "reference" and calls[-1] == 1000
    assert result.loss_pct_at_reference == 0.0
    assert len(calls) < 20


def test_lost_even_at_the_largest_interval():
    calls = []
    result = find_interval(boundary_probe(50_000, calls), high_ns=10_000)
    assert result.good_interval_ns is None and result.lost_everywhere
    assert calls == [10_000, 1000] and result.loss_pct_at_reference == 5.0


def test_loss_free_at_the_smallest_interval_and_reference_reused():
    calls = []
    result = find_interval(boundary_probe(10, calls), low_ns=20, high_ns=1000)
    assert result.good_interval_ns == 20
    assert calls == [1000, 20, 20]  # bounds, one confirmation; 1000 was probed already


def test_a_boundary_that_does_not_hold_on_a_second_look():
    seen = {}

    def flaky(interval_ns):  # 437..499 passes once, then loses
        seen[interval_ns] = seen.get(interval_ns, 0) + 1
        ok = interval_ns >= 500 or (interval_ns >= 437 and seen[interval_ns] == 1)
        return Probe(interval_ns, ok)

    result = find_interval(flaky, low_ns=20, high_ns=10_000, tolerance_ns=10)
    assert 500 <= result.good_interval_ns <= 510
    confirms = result.probes[result.probes["purpose"] == "confirm"]
    assert not confirms["ok"].all() and confirms["ok"].iloc[-1]


def test_a_short_search_stops_at_a_relative_tolerance_from_a_known_lossy_low_bound():
    calls = []
    result = find_interval(boundary_probe(437, calls), low_ns=300, high_ns=2000, confirmations=0,
                           relative_tolerance=0.5, low_known_lossy=True, reference_only_if_lost=True)
    assert calls == [2000, 775, 482, 380]  # the low bound is taken as lossy, not probed
    assert result.good_interval_ns == 482  # 482 - 380 is within half of 380
    assert result.loss_pct_at_reference is None  # a loss-free interval exists: 1000 ns is not probed
    assert "reference" not in set(result.probes["purpose"])


def test_the_reference_is_probed_when_everything_loses_even_in_a_short_search():
    calls = []
    result = find_interval(boundary_probe(50_000, calls), low_ns=100, high_ns=2000, confirmations=0,
                           relative_tolerance=0.5, low_known_lossy=True, reference_only_if_lost=True)
    assert result.lost_everywhere and calls == [2000, 1000] and result.loss_pct_at_reference == 5.0


def test_a_first_guess_bounds_the_search_from_either_side():
    calls = []
    above = find_interval(boundary_probe(437, calls), low_ns=300, high_ns=2000, confirmations=0,
                          relative_tolerance=0.5, low_known_lossy=True, reference_only_if_lost=True, start_ns=600)
    assert calls == [600, 424] and above.good_interval_ns == 600  # 2000 is never probed
    calls.clear()
    below = find_interval(boundary_probe(437, calls), low_ns=100, high_ns=2000, confirmations=1, start_ns=200)
    assert calls[:2] == [200, 2000] and 437 <= below.good_interval_ns <= 447  # 100 is never probed
    assert list(below.probes["purpose"][:2]) == ["start", "bound"]


def test_measured_loss_is_the_engines_own_count():
    # The engines count drops after the last received tick in lost_measured themselves.
    lost, pct = measured_loss({"lost_measured": 68_000_000, "trailing_dropped": 68_000_000, "measured_packets": 480_000})
    assert lost == 68_000_000 and pct == pytest.approx(68_000_000 / 68_480_000 * 100)
    assert measured_loss({"lost_measured": 5, "trailing_dropped": None, "measured_packets": 95}) == (5, 5.0)
    assert measured_loss({"lost_measured": None}) == (None, None)
