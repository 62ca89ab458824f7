"""analysis/crossover.py: brackets where an order changes along the live set."""

import pandas as pd

from allocorpool.analysis.crossover import Crossover, beats, first_change, order


def test_a_condition_that_stops_holding_is_bracketed():
    found = first_change(pd.Series([1_000, 10_000, 100_000]), pd.Series([True, True, False]))
    assert found == Crossover(10_000, 100_000) and round(found.at) == 31_623
    assert found.describe("faster", "slower") == "faster up to 10,000, slower from 100,000"


def test_no_change_sizes_out_of_order_and_failed_runs():
    assert first_change(pd.Series([100, 10]), pd.Series([True, True])) == Crossover(100, None)
    assert first_change(pd.Series([10, 100]), pd.Series([False, True])) == Crossover(None, 10, (100,))  # back again
    skipped = first_change(pd.Series([10, 100, 1000]), pd.Series([True, None, False]))  # 100: its run failed
    assert skipped == Crossover(10, 1000)
    assert first_change(pd.Series([], dtype=int), pd.Series([], dtype=bool)).describe("a", "b") == "not measured"


def _blocks(times: dict[tuple[str, int], list[float]]) -> pd.DataFrame:
    """Curves whose every (strategy, size) is a block's repetitions in one boot."""
    return pd.DataFrame([{"strategy": strategy, "size": size, "ns_per_packet": float(pd.Series(runs).median()),
                          "boot_samples": {"b": runs}} for (strategy, size), runs in times.items()])


def test_mix_stops_beating_pool_where_the_intervals_say_so():
    curves = _blocks({("mix", 1): [50, 51, 49], ("pool", 1): [60, 61, 59], ("mix", 10): [70, 71, 69],
                      ("pool", 10): [80, 81, 79], ("mix", 100): [300, 301, 299], ("pool", 100): [200, 201, 199]})
    assert beats(curves, "mix", "pool") == Crossover(10, 100)
    assert beats(curves, "alloc", "pool") == Crossover(None, None)  # no allocation curve
    same = _blocks({("mix", 1): [50, 51, 49], ("pool", 1): [60, 61, 59], ("mix", 10): [80, 81, 79],
                    ("pool", 10): [80, 82, 78], ("mix", 100): [300, 301, 299], ("pool", 100): [200, 201, 199]})
    assert beats(same, "mix", "pool") == Crossover(1, 100)  # 10: no difference measured, skipped
    assert list(order(same, "mix", "pool")["outcome"]) == ["holds", "undecided", "fails"]


def test_single_runs_decide_no_crossover():
    # one run against one run is never a verdict: the reading says so
    from allocorpool.chapters.continuum import batch_reading
    curves = pd.DataFrame({"strategy": ["mix", "pool"] * 2, "size": [1, 1, 10, 10], "ns_per_packet": [50, 60, 90, 80]})
    assert beats(curves, "mix", "pool") == Crossover(None, None)
    assert batch_reading(order(curves, "mix", "pool"), beats(curves, "mix", "pool")) == "one run per size: not compared"


def test_two_measurements_of_a_crossover_agree_where_their_brackets_overlap():
    quick, full = Crossover(3_000, 10_000), Crossover(10_000, 100_000)  # Parallel 11's allocation, quick and full
    assert quick.may_meet(full) is False and full.may_meet(quick) is False
    assert Crossover(30_000, 100_000).may_meet(Crossover(10_000, 100_000)) is True
    assert Crossover(None, 1_000).may_meet(Crossover(None, 1_000)) is True  # both lose from the smallest size
    assert Crossover(1_000_000, None).may_meet(Crossover(1_000_000, None)) is True  # neither ever loses
    assert Crossover(100_000, None).may_meet(Crossover(None, 1_000)) is False
    assert Crossover(None, None).may_meet(Crossover(None, 1_000)) is None  # not measured: no verdict


def test_a_small_profiles_crossovers_beside_the_full_ones():
    from allocorpool.chapters.continuum import compare_crossovers

    def curves(losing_from: int, sizes: list[int]) -> pd.DataFrame:  # one pooling line that loses from a size
        return pd.DataFrame({"label": "G1", "strategy": "pool", "strategy_label": "Pooling", "size": sizes,
                             "ns_per_packet": 100.0, "interval_ns": 1000,
                             "keeps_up": [size < losing_from for size in sizes]})
    same = compare_crossovers(curves(100_000, [1_000, 30_000, 100_000]), curves(100_000, [1_000, 10_000, 100_000]))
    row = same[same["what"] == "Pooling loses nothing at 1,000 ns"].iloc[0]
    assert row["this profile"] == "loss-free up to 30,000, loses from 100,000" and row["can agree"]
    apart = compare_crossovers(curves(3_000, [1_000, 3_000, 10_000]), curves(100_000, [1_000, 10_000, 100_000]))
    assert not apart[apart["what"] == "Pooling loses nothing at 1,000 ns"]["can agree"].iloc[0]


def test_a_line_that_changes_back_has_no_single_crossover():
    # Parallel 11's mix at the article's sizes: 0.13 % lost at 1,000, none at 10,000, lost again at 100,000
    found = first_change(pd.Series([1_000, 10_000, 100_000]), pd.Series([False, True, False]))
    assert found == Crossover(None, 1_000, (10_000,)) and not found.single and found.at is None
    assert found.describe("loss-free", "loses") == "loses at 1,000 but loss-free again at 10,000: no single crossover"
    assert found.may_meet(Crossover(None, 1_000)) is None and Crossover(None, 1_000).may_meet(found) is None
    assert first_change(pd.Series([1, 10, 100, 1000]), pd.Series([True, False, True, True])).again == (100, 1000)


def test_the_first_line_to_lose_is_one_that_loses_from_a_size_on():
    from allocorpool.chapters.continuum import loss_sentence, read_crossovers

    def line(label: str, keeps_up: list[bool]) -> pd.DataFrame:
        return pd.DataFrame({"label": label, "strategy": "mix", "strategy_label": "Mix", "size": [1_000, 10_000, 100_000],
                             "ns_per_packet": 100.0, "interval_ns": 1000, "keeps_up": keeps_up})
    said = loss_sentence(read_crossovers(pd.concat([line("Parallel 11", [False, True, False]),
                                                    line("G1 11", [True, False, False]),
                                                    line("flat C++", [True, True, True])])))
    assert said.startswith("2 of the 3 (solution, strategy) lines lose packets at some size measured.")
    assert "the first is G1 11 Mix, from 10,000 packets" in said
    assert "Parallel 11 Mix (loses at 1,000, not at 10,000)" in said
