"""reference.py and tables.py: the article's figures, grids beside ours, and the article's marks."""

import math
import re

import pandas as pd

from allocorpool.chapters.page import tables
from allocorpool.data import reference
from allocorpool.data.reference import OURS, REFERENCE
from allocorpool.study import SOLUTIONS, STRATEGY_LABELS

REFERENCE_ROWS = [s for s in SOLUTIONS if s.reference_name]
AS_RUN = next(s.label for s in SOLUTIONS if s.reference_name == "CMS")  # the article's "CMS" as run: Parallel
NATIVE_AS_RUN = next(s.label for s in SOLUTIONS if s.reference_name == "Native CMS")


def frame_like_ours(values, test):
    """Search or batch rows for the article's solutions, carrying the article's own figures."""
    rows = []
    for solution in REFERENCE_ROWS:
        for strategy in ("alloc", "mix", "pool"):
            for case in "ABC":
                key = (solution.reference_name, STRATEGY_LABELS[strategy], case)
                row = {"solution": solution.name, "label": solution.label, "reference_name": solution.reference_name,
                       "engine": solution.engine, "baseline": False, "strategy": strategy,
                       "strategy_label": STRATEGY_LABELS[strategy], "case": case}
                if test == "batch":
                    row.update(status="ok", ns_per_packet=values.get(key))
                else:
                    interval = values["interval_ns"].get(key, math.nan)
                    row.update(outcome="found" if not math.isnan(interval) else "lost", interval_ns=interval,
                               loss_pct=1.0, big_heap_loss_pct=None)
                rows.append(row)
    return pd.DataFrame(rows)


def marks_of(styler):
    """(solution, strategy, case, source) -> mark colour of a rendered summary table."""
    styler._compute()
    table = styler.data
    found = {}
    for (row, col), props in styler.ctx.items():
        css = dict(props)
        colour = css.get("background-color")
        if colour:
            name = {v.split(";")[0].split(": ")[1]: k for k, v in tables.MARK_STYLES.items()}[colour]
            found[(*table.index[row], *table.columns[col])] = name
    return found


def test_the_article_reference_reads_as_printed():
    ref = reference.load()
    assert reference.batch(ref)[("C++ flat", "Pooling", "A")] == 34
    realtime = reference.realtime(ref)
    assert realtime.loc[("CMS", "Allocation", "C"), "text"] == "lost: 75% (20%)"
    assert realtime.loc[("Native CMS", "Mix", "B"), "text"] == "250; lost: 0.0025%"
    assert reference.realtime(ref, with_extras=False).loc[("CMS", "Pooling", "A"), "text"] == "lost: 17%"
    assert math.isnan(realtime.loc[("G1", "Mix", "C"), "interval_ns"])
    gc = reference.gc_table(ref)
    assert gc.loc[("CMS", "Pooling", "A"), "max_pause_ms"] == 940 and gc.loc[("G1", "Mix", "C"), "gcs_per_s"] == 2.3
    assert [reference.format_pct(v) for v in (75, 4.4, 0.8, 0.0025)] == ["75", "4.4", "0.8", "0.0025"]


def test_the_marking_rule_gives_the_articles_own_colours():
    ref = reference.load()
    batch = frame_like_ours(reference.batch(ref), "batch")
    marked = marks_of(tables.batch_summary(batch, reference.batch(ref)))
    for case in "ABC":
        assert marked[("C++ flat (glibc)", "Pooling", case, OURS)] == "green"
        assert marked[(NATIVE_AS_RUN, "Pooling", case, OURS)] == "yellow"
        assert marked[(NATIVE_AS_RUN, "Mix", case, OURS)] == "red"
        assert marked[("C++ flat (glibc)", "Pooling", case, REFERENCE)] == "green"  # the article's column too
    assert sum(1 for m in marked.values() if m == "yellow") == 6  # three cases, ours and the article's

    realtime_ref = reference.realtime(ref, with_extras=False)
    searches = frame_like_ours(realtime_ref, "realtime")
    marked = marks_of(tables.realtime_summary(searches, realtime_ref))
    ours = {k[:3]: v for k, v in marked.items() if k[3] == OURS}
    assert {k for k, v in ours.items() if v == "yellow"} == {
        ("ZGC 11", "Mix", "A"), (NATIVE_AS_RUN, "Pooling", "A"), ("Native ZGC 11", "Mix", "A"),
        ("Native ZGC 11", "Mix", "B"), ("Native ZGC 11", "Pooling", "B"), ("Native ZGC 11", "Mix", "C")}
    assert ours[("ZGC 11", "Mix", "C")] == "red" and ours[(AS_RUN, "Mix", "B")] == "red"
    assert ours[(AS_RUN, "Pooling", "A")] == "grey" and ours[(NATIVE_AS_RUN, "Mix", "B")] == "grey"
    assert {k for k, v in ours.items() if v == "green"} == {("C++ flat (glibc)", s, c)
                                                             for s, c in (("Pooling", "A"), ("Mix", "A"),
                                                                          ("Pooling", "B"), ("Pooling", "C"))}


def test_a_baseline_is_never_marked_and_failures_read_as_such():
    values = pd.DataFrame({"A": [10.0, 50.0, 60.0, 70.0]}, index=["epsilon", "cms", "g1", "flat"])
    java = pd.Series([True, True, True, False], index=values.index)
    ranked = pd.Series([False, True, True, True], index=values.index)
    marks = tables.marks(values, java, ranked)["A"].to_dict()
    assert marks == {"epsilon": "", "cms": "green", "g1": "red", "flat": ""}  # green wins over yellow
    failed = {"status": "timeout", "ns_per_packet": None}
    assert tables.batch_text(failed) == "timed out" and tables.batch_text({"status": "ok", "ns_per_packet": 99.6}) == "100"
    search = {"outcome": "lost", "interval_ns": None, "loss_pct": 4.4, "big_heap_loss_pct": 0.8}
    assert tables.realtime_text(search) == "lost: 4.4% (0.8%)" and tables.realtime_text(search, False) == "lost: 4.4%"
    assert tables.realtime_text({"outcome": "failed", "loss_pct": None}) == "failed"
    # a big-heap probe whose window saw no collection measured nothing of the big heap's pauses
    quiet = {**search, "big_heap_status": "ok", "big_heap_loss_pct": 0.0, "big_heap_collections": 0}
    assert tables.realtime_text(quiet) == "lost: 4.4% (no GC)"
    assert tables.realtime_text({**quiet, "big_heap_collections": 2}) == "lost: 4.4% (0%)"
    # a big-heap probe that failed, or that a replayed store lacks, is said so, never left out
    assert tables.realtime_text({**search, "big_heap_status": "missing", "big_heap_loss_pct": None}) == (
        "lost: 4.4% (big heap: not measured)")
    assert tables.realtime_text({**search, "big_heap_status": "error", "big_heap_loss_pct": None}) == (
        "lost: 4.4% (big heap: failed)")
    # a lost cell whose loss at 1000 ns the replayed store lacks reads lost, not failed and not 0 %
    assert tables.realtime_text({"outcome": "lost", "loss_pct": None}) == "lost (its loss at 1,000 ns not measured)"


def test_a_grid_puts_the_article_beside_ours_with_a_dash_where_it_has_nothing():
    batch = pd.DataFrame([
        {"label": "CMS (JDK 11)", "reference_name": "CMS", "strategy_label": "Mix", "case": "A", "status": "ok",
         "ns_per_packet": 120.0},
        {"label": "Parallel (JDK 25)", "reference_name": None, "strategy_label": "Mix", "case": "A", "status": "error",
         "ns_per_packet": None}])
    grid = tables.grid(batch, tables.batch_text, reference.batch(reference.load()).map(lambda v: f"{v:.0f}"))
    assert list(grid.columns) == [("A", OURS), ("A", REFERENCE)]
    assert grid.loc[("CMS (JDK 11)", "Mix")].tolist() == ["120", "108"]
    assert grid.loc[("Parallel (JDK 25)", "Mix")].tolist() == ["failed", "—"]
    best = tables.best(batch, "ns_per_packet", ["case"])
    assert best["label"].tolist() == ["CMS (JDK 11)"]


def test_a_search_a_stored_loss_contradicts_is_shown_with_its_mark_and_not_ranked():
    ref = reference.load()
    realtime_ref = reference.realtime(ref, with_extras=False)
    searches = frame_like_ours(realtime_ref, "realtime")
    flat = (searches["label"] == "C++ flat (glibc)") & (searches["strategy_label"] == "Pooling") & (
        searches["case"] == "A")
    searches = searches.assign(lost_above_ns=[1000.0 if f else None for f in flat])
    styler = tables.realtime_summary(searches, realtime_ref)
    marked = marks_of(styler)
    assert ("C++ flat (glibc)", "Pooling", "A", OURS) not in marked  # unmarked: neither green nor grey
    assert marked[("C++ flat (glibc)", "Mix", "A", OURS)] == "green"
    assert styler.data.loc[("C++ flat (glibc)", "Pooling"), ("A", OURS)].endswith(" †")


def test_a_sentence_in_a_table_wraps_to_a_reading_width_and_a_figure_stays_on_one_line():
    table = pd.DataFrame({"figure": ["2,299 (2,106-2,307)"],
                          "decided by": ["Per case, the shortest loss-free interval of flat C++ against every solution's."]},
                         index=["claim"])
    page = tables.style(table).to_html()
    cells = dict(re.findall(r"#T_\w+_row0_col(\d) \{\s*([^}]*)\}", page))
    # it must win over the table's own nowrap, whose selector (the table's id and td) is the more specific
    assert "white-space: normal !important" in cells["1"] and "max-width: 26em" in cells["1"]
    assert "white-space" not in cells.get("0", "")
    assert "white-space: nowrap" in page  # the default of every other cell


def test_numbers_of_a_thousand_and_more_are_written_with_separators_and_whole_ones_without_decimals():
    # An interval column with a gap is float: it printed "1000.0"; the article's own figures printed "4042".
    assert tables.realtime_text({"outcome": "found", "interval_ns": 1100.0}) == "1,100"
    assert tables.batch_text({"status": "ok", "ns_per_packet": 4042.0}) == "4,042"
    assert reference.realtime(reference.load()).loc[("G1", "Allocation", "B"), "text"] == "2,000"
    from allocorpool.chapters.page import display
    table = pd.DataFrame({"interval, ns": [1000.0, math.nan, 1100.0], "lost, %": [0.25, 12.5, 1.0],
                          "runs": [1033, 2, 3]})
    markup = display.numbers(table, precision=2).to_html()
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", markup)
    assert cells == ["1,000", "0.25", "1,033", "—", "12.50", "2", "1,100", "1.00", "3"]


def test_a_timeline_table_cut_to_its_first_rows_says_so(monkeypatch):
    from types import SimpleNamespace
    from allocorpool.chapters.page import display, figures, sections
    periods = pd.DataFrame({"period ends, s": [0.1 * i for i in range(20)], "ticks lost": [250_601] * 20})
    monkeypatch.setattr(figures, "pause_timeline", lambda result, title: (None, periods))
    monkeypatch.setattr(figures, "attribution_table", lambda attribution: attribution)
    monkeypatch.setattr(display, "show_figure", lambda fig: None)
    monkeypatch.setattr(display, "note", lambda text: None)
    shown = []
    monkeypatch.setattr(display, "show_table", lambda table, caption=None, **options: shown.append((table, caption)))
    solution = SimpleNamespace(label="G1 11")
    sections.show_timelines([(solution, "pool", "A", SimpleNamespace(status="ok", run=SimpleNamespace(summary={})))])
    ((table, caption),) = shown
    assert len(table) == sections.SHOWN_PERIODS and caption.endswith(f"(the first {sections.SHOWN_PERIODS} of 20)")
    # the periods are the table's row labels: they get the separators too
    markup = display.numbers(periods.head(2).set_index(["period ends, s", "ticks lost"]), precision=2).to_html()
    assert "250,601" in markup and ">0.10<" in markup
