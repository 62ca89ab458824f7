"""Chapter 13's tables and sentences on repeated runs: medians with their range, and the spread said."""

import pandas as pd

from allocorpool.analysis.min_heap import lower_bound_overhead
from allocorpool.chapters import heap


def _multiples(costs: dict[tuple[str, float], list[float]]) -> pd.DataFrame:
    rows = [{"label": label, "solution": label, "strategy": "pool", "strategy_label": "Pooling", "case": "C",
             "factor": factor, "heap_mb": round(100 * factor), "repetition": repetition, "status": "ok",
             "ns_per_packet": cost, "cpu_ns_per_packet": cost * 2}
            for (label, factor), runs in costs.items() for repetition, cost in enumerate(runs)]
    frame = pd.DataFrame(rows)
    frame["overhead_wall"] = lower_bound_overhead(frame, "ns_per_packet")
    frame["overhead_cpu"] = lower_bound_overhead(frame, "cpu_ns_per_packet")
    return frame


def test_repeated_runs_show_their_median_and_range_and_the_sentence_says_how_far_they_spread():
    # G1 at 6x is the cheapest configuration (median 100); its repeats at 1.5x cost 150, 200 and 400
    multiples = _multiples({("G1", 1.5): [150.0, 200.0, 400.0], ("G1", 6): [90.0, 100.0, 110.0],
                            ("ZGC", 1.5): [300.0, 300.0, 300.0], ("ZGC", 6): [120.0, 120.0, 120.0]})
    table = heap.overhead_table(multiples, "overhead_wall").set_index("solution")
    assert table.loc["G1", "1.5×"] == "100 (50 to 300)" and table.loc["G1", "6×"] == "0 (-10 to 10)"
    assert table.loc["ZGC", "1.5×"] == "200 (200 to 200)" and list(table.index) == ["G1", "ZGC"]
    collectors = heap.collector_overheads(multiples).set_index("solution")
    assert list(collectors.columns) == ["wall time at 1.5×", "CPU time at 1.5×", "wall time at 6×", "CPU time at 6×"]
    assert collectors.loc["G1"].tolist() == [100, 100, 0, 0] and collectors.loc["ZGC", "wall time at 1.5×"] == 200
    said = heap.overhead_sentence(multiples)
    assert "differ by up to 250 percentage points (G1 Pooling C at 1.5×)" in said
    assert "by a median 10," in said  # spreads 250, 20, 0 and 0


def test_single_runs_keep_numbers_and_say_nothing_of_a_spread():
    multiples = _multiples({("G1", 1.5): [150.0], ("G1", 6): [100.0]})
    table = heap.overhead_table(multiples, "overhead_wall").set_index("solution")
    assert table.loc["G1", "1.5×"] == 50 and table.loc["G1", "6×"] == 0
    assert "differ" not in heap.overhead_sentence(multiples)


def test_the_cost_figure_draws_the_median_of_each_factor_with_bars_to_its_cheapest_and_dearest_run():
    multiples = _multiples({("G1", 1.5): [150.0, 200.0, 400.0], ("G1", 6): [90.0, 100.0, 110.0]})
    (line,) = heap.cost_figure(multiples, "ns_per_packet").data
    assert list(line.x) == [1.5, 6] and list(line.y) == [200, 100]
    assert list(line.error_y.array) == [200, 10] and list(line.error_y.arrayminus) == [50, 10]


def test_the_caption_speaks_of_ranges_only_where_the_table_shows_them(monkeypatch):
    # each factor ran twice, but every second run failed: one finished run per factor, so no range
    multiples = _multiples({("G1", 1.5): [150.0, float("nan")], ("G1", 6): [100.0, float("nan")]})
    shown = []
    monkeypatch.setattr(heap.show, "show_table", lambda table, caption, **options: shown.append((table, caption)))
    monkeypatch.setattr(heap.show, "note", lambda text: None)
    heap.show_overheads(multiples)
    per_cell = [table for table, caption in shown if "each collector" not in caption]
    assert [table.loc[("G1", "Pooling", "C"), "1.5×"] for table in per_cell] == [50, 50]
    (collectors,) = [table for table, caption in shown if "each collector" in caption]
    assert collectors.loc["G1"].tolist() == [50, 50, 0, 0]
    assert not any("lowest to highest" in caption for _, caption in shown)


def test_every_panel_of_the_cost_figure_has_the_log_axis_its_shared_values_need():
    # Two panels sharing one y axis: with the log type on the first only, the second drew 393 ns at the
    # height of 1843 ns.
    multiples = _multiples({("G1", 1.5): [150.0], ("G1", 6): [100.0]})
    multiples = pd.concat([multiples, multiples.assign(strategy="alloc", strategy_label="Allocation")])
    fig = heap.cost_figure(multiples, "ns_per_packet")
    axes = [name for name in fig.layout.to_plotly_json() if name.startswith("yaxis")]
    assert len(axes) == 2 and all(fig.layout[name].type == "log" for name in axes)


def test_a_solution_has_one_colour_in_every_panel_so_the_legend_names_every_line():
    # The legend is drawn from the first panel; plotly coloured the second panel's lines anew, so its
    # lines had colours the legend did not name.
    from allocorpool.chapters.page.figures import legend_matches_panels
    pool = _multiples({("G1", 1.5): [150.0], ("ZGC", 1.5): [300.0]})
    alloc = _multiples({("ZGC", 1.5): [200.0], ("G1", 1.5): [400.0]}).assign(strategy="alloc",
                                                                             strategy_label="Allocation")
    fig = heap.cost_figure(pd.concat([pool, alloc], ignore_index=True), "ns_per_packet")
    assert len(fig.data) == 4 and legend_matches_panels(fig)
    colour = {(trace.name, trace.showlegend is not False): trace.line.color for trace in fig.data}
    assert colour[("G1", True)] == colour[("G1", False)] != colour[("ZGC", True)] == colour[("ZGC", False)]
