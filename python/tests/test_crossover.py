"""analysis/crossover.py: brackets where an order changes along the live set."""

import pandas as pd

from allocorpool.analysis.crossover import Crossover, beats, first_change


def test_a_condition_that_stops_holding_is_bracketed():
    found = first_change(pd.Series([1_000, 10_000, 100_000]), pd.Series([True, True, False]))
    assert found == Crossover(10_000, 100_000) and round(found.at) == 31_623
    assert found.describe("faster", "slower") == "faster up to 10,000, slower from 100,000"


def test_no_change_sizes_out_of_order_and_failed_runs():
    assert first_change(pd.Series([100, 10]), pd.Series([True, True])) == Crossover(100, None)
    assert first_change(pd.Series([10, 100]), pd.Series([False, True])) == Crossover(None, 10)
    skipped = first_change(pd.Series([10, 100, 1000]), pd.Series([True, None, False]))  # 100: its run failed
    assert skipped == Crossover(10, 1000)
    assert first_change(pd.Series([], dtype=int), pd.Series([], dtype=bool)).describe("a", "b") == "not measured"


def test_mix_stops_beating_pool():
    curves = pd.DataFrame({"strategy": ["mix", "pool"] * 3, "size": [1, 1, 10, 10, 100, 100],
                           "ns_per_packet": [50, 60, 70, 80, 300, 200]})
    assert beats(curves, "mix", "pool") == Crossover(10, 100)
    assert beats(curves, "alloc", "pool") == Crossover(None, None)  # no allocation curve
