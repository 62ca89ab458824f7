"""The study's tables: strategy x case grids with the article's figure beside ours, and the
article's colour marks on the two summary tables.

A grid has one row per (solution, strategy) and two columns per case: this machine's figure
and the article's (labelled; a dash where the article has none). The marks follow the
article's rule, applied to ours and, separately, to the article's own figures: per case, the
best figure of every ranked solution is green, the best and second-best distinct figures of
the Java solutions yellow and red (green wins), and a real-time cell with no loss-free
interval grey. Baselines (Epsilon) are shown but never ranked.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from allocorpool import effects
from allocorpool.analysis.stored_probes import contradicted
from allocorpool.data.gclog_clock import ALIGNED
from allocorpool.data.reference import OURS, REFERENCE, format_pct
from allocorpool.study import CASES, STRATEGIES

MARK_STYLES = {
    "green": "background-color: #8fd98f",
    "yellow": "background-color: #ffe066",
    "red": "background-color: #ff9a9a",
    "grey": "background-color: #8a8a8a; color: #ffffff",
}
MARK_LEGEND = ("Marks, as in the article: green, the best figure of the column; yellow and red, the best and "
               "second-best Java figures; grey, no interval without loss (the figure is then the loss at 1,000 ns). "
               "Ours and the article's are marked separately; Epsilon is never ranked.")
ROW_NAMES = ["solution", "strategy"]


STATUS_TEXT = {"timeout": "timed out", "missing": "not measured"}


def batch_text(row: dict[str, Any]) -> str:
    """A batch cell's figure: the median of its block's repetitions with its 95 % interval ('212 (190-240)'),
    as many digits as the interval supports; a single run (a store measured before blocks, or the 2019 article's
    figure) as it is."""
    if row["status"] != "ok":
        return STATUS_TEXT.get(row["status"], "failed")
    value = row.get("ns_per_packet")
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    runs, low, high = row.get("runs"), row.get("ns_low"), row.get("ns_high")
    if runs is not None and not pd.isna(runs) and int(runs) >= 2 and low is not None and not pd.isna(low):
        return effects.Spread(float(value), float(low), float(high), int(runs)).text()
    return f"{value:,.0f}"


CONTRADICTED_LEGEND = ("†: a stored run of the same cell lost at this interval or a longer one, so the search's "
                       "interval does not stand and is not ranked.")


def realtime_text(row: dict[str, Any], with_big_heap: bool = True) -> str:
    """A search's result as the article writes it: the interval (with † where a stored loss contradicts it), or
    "lost: x%" (and the big heap's loss)."""
    if row["outcome"] == "found":
        return f"{row['interval_ns']:,.0f}" + (" †" if contradicted(row) else "")
    if row["outcome"] == "missing":
        return STATUS_TEXT["missing"]
    if row["outcome"] == "failed":
        return "failed"
    if row.get("loss_pct") is None or pd.isna(row.get("loss_pct")):
        return "lost (its loss at 1,000 ns not measured)"  # a replay lacks the probe that measures it
    text = f"lost: {format_pct(row['loss_pct'])}%"
    if not with_big_heap:
        return text
    big, status = row.get("big_heap_loss_pct"), row.get("big_heap_status")
    if isinstance(status, str) and status != "ok":
        return text + f" (big heap: {STATUS_TEXT.get(status, 'failed')})"
    if big is not None and not pd.isna(big):
        text += f" ({NO_COLLECTION})" if saw_no_collection(row) else f" ({format_pct(big)}%)"
    return text


NO_COLLECTION = "no GC"  # the big heap's figure where its probe's window saw no collection


def saw_no_collection(row: dict[str, Any]) -> bool:
    """Whether a search's big-heap probe ran its window without a collection: its loss then says nothing of
    the big heap's pauses (a heap five times larger collects about five times less often)."""
    collections = row.get("big_heap_collections")
    return collections is not None and not pd.isna(collections) and int(collections) == 0


def grid(frame: pd.DataFrame, ours: Callable[[dict[str, Any]], str], reference_texts: pd.Series | None) -> pd.DataFrame:
    """Rows (solution label, strategy label) in the frame's order; columns (case, OURS / REFERENCE)."""
    records = frame.to_dict("records")
    rows = list(dict.fromkeys((r["label"], r["strategy_label"]) for r in records))
    cases = [c for c in CASES if c in set(frame["case"])]
    has_reference = reference_texts is not None and any(r["reference_name"] for r in records)
    sources = [OURS, REFERENCE] if has_reference else [OURS]
    columns = pd.MultiIndex.from_product([cases, sources], names=["case", ""])
    table = pd.DataFrame("", index=pd.MultiIndex.from_tuples(rows, names=ROW_NAMES), columns=columns)
    for r in records:
        table.loc[(r["label"], r["strategy_label"]), (r["case"], OURS)] = ours(r)
        if has_reference:
            assert reference_texts is not None
            value = reference_texts.get((r["reference_name"], r["strategy_label"], r["case"])) if r["reference_name"] else None
            table.loc[(r["label"], r["strategy_label"]), (r["case"], REFERENCE)] = "—" if value is None else value
    return table


def marks(values: pd.DataFrame, java: pd.Series, ranked: pd.Series, no_solution: pd.DataFrame | None = None
          ) -> pd.DataFrame:
    """The article's marks for a table of figures (lower is better; NaN: none) indexed like java/ranked."""
    out = pd.DataFrame("", index=values.index, columns=values.columns)
    for case in values.columns:
        column = values[case].round()
        best = column[ranked].min()
        java_values = sorted(column[ranked & java].dropna().unique())
        for position, mark in zip(java_values[:2], ("yellow", "red")):
            out.loc[ranked & java & (column == position), case] = mark
        if not math.isnan(best):
            out.loc[ranked & (column == best), case] = "green"
        if no_solution is not None:
            out.loc[no_solution[case], case] = "grey"
    return out


def _figures(frame: pd.DataFrame, value: Callable[[dict[str, Any]], float]) -> pd.DataFrame:
    """One figure per (solution label, strategy label) and case."""
    records = frame.to_dict("records")
    index = pd.MultiIndex.from_tuples(list(dict.fromkeys((r["label"], r["strategy_label"]) for r in records)),
                                      names=ROW_NAMES)
    cases = [c for c in CASES if c in set(frame["case"])]
    table = pd.DataFrame(math.nan, index=index, columns=cases)
    for r in records:
        table.loc[(r["label"], r["strategy_label"]), r["case"]] = value(r)
    return table


def _row_flags(frame: pd.DataFrame, index: pd.Index, flag: Callable[[dict[str, Any]], bool]) -> pd.Series:
    by_row = {(r["label"], r["strategy_label"]): flag(r) for r in frame.to_dict("records")}
    return pd.Series([by_row[i] for i in index], index=index, dtype=bool)


def _marked(table: pd.DataFrame, ours: pd.DataFrame, reference_marks: pd.DataFrame | None) -> Styler:
    def styles(_: pd.DataFrame) -> pd.DataFrame:
        css = pd.DataFrame("", index=table.index, columns=table.columns)
        for case in ours.columns:
            css[(case, OURS)] = ours[case].map(lambda m: MARK_STYLES.get(m, ""))
            if reference_marks is not None and (case, REFERENCE) in table.columns:
                css[(case, REFERENCE)] = reference_marks[case].map(lambda m: MARK_STYLES.get(m, "color: #555555"))
        return css
    return style(table).apply(styles, axis=None)


def commits_counted(commits: list[str], where: str = "", listed: int = 3) -> str:
    """A machine table's commit cell: up to `listed` commits by name, more counted ("48 commits{where}"), with
    those built from a tree with uncommitted changes, so the table keeps to the page."""
    if len(commits) <= listed:
        return ", ".join(commits)
    dirty = sum(c.endswith("-dirty") for c in commits)
    return f"{len(commits)} commits{where}" + (f", {dirty} with uncommitted changes" if dirty else "")


LONG_CELL = 32  # characters: a cell longer than this is a sentence, and wraps
WRAPPED = "white-space: normal !important; min-width: 12em; max-width: 26em; text-align: left !important;"


def style(table: pd.DataFrame) -> Styler:
    """The project's table look: compact, figures to the right on one line, sentences wrapped to a column
    of reading width (so that no table runs off the page), the article's columns in italics."""
    styler = table.style.set_table_styles([
        {"selector": "", "props": "border-collapse: collapse; font-size: 0.9em;"},
        {"selector": "th, td", "props": "border: 1px solid #cccccc; padding: 2px 8px;"},
        {"selector": "td", "props": "text-align: right; white-space: nowrap;"},
        {"selector": "th", "props": "max-width: 26em;"},
    ])
    if len(table) and table.index.is_unique and table.columns.is_unique:  # Styler.apply needs unique labels
        styler = styler.apply(lambda frame: frame.map(lambda v: WRAPPED if len(str(v)) > LONG_CELL else ""), axis=None)
    reference_columns = [c for c in table.columns if isinstance(c, tuple) and c[-1] == REFERENCE]
    if reference_columns:
        styler = styler.set_properties(subset=reference_columns, **{"font-style": "italic"})
    return styler


def batch_summary(batch: pd.DataFrame, reference_batch: pd.Series) -> Styler:
    """The article's first summary table: batch ns/packet, no dummy, marked."""
    frame = batch[batch["strategy"] != "dummy"]
    table = grid(frame, batch_text, reference_batch.map(lambda v: f"{v:,.0f}"))
    figures = _figures(frame, lambda r: r["ns_per_packet"] if r["status"] == "ok" and r["ns_per_packet"] else math.nan)
    java = _row_flags(frame, figures.index, lambda r: r["engine"] == "java")
    ranked = _row_flags(frame, figures.index, lambda r: not r["baseline"])
    reference_values = _figures(frame, lambda r: reference_batch.get((r["reference_name"], r["strategy_label"], r["case"]),
                                                                  math.nan) if r["reference_name"] else math.nan)
    return _marked(table, marks(figures, java, ranked), marks(reference_values, java, ranked))


def realtime_summary(searches: pd.DataFrame, reference_realtime: pd.DataFrame) -> Styler:
    """The article's second summary table: the smallest loss-free interval, or the loss at 1,000 ns, marked; a
    search a stored loss contradicts is shown with † and not ranked."""
    table = grid(searches, lambda r: realtime_text(r, with_big_heap=False), reference_realtime["text"])
    figures = _figures(searches, lambda r: r["interval_ns"] if r["outcome"] == "found" and not contradicted(r)
                       else math.nan)
    lost = _figures(searches, lambda r: math.nan if r["outcome"] == "found" else 1.0).notna()
    java = _row_flags(searches, figures.index, lambda r: r["engine"] == "java")
    ranked = _row_flags(searches, figures.index, lambda r: not r["baseline"])
    ours = marks(figures, java, ranked, lost)
    known = _figures(searches, lambda r: 1.0 if r["reference_name"] and (r["reference_name"], r["strategy_label"], r["case"])
                     in reference_realtime.index else math.nan)
    reference_values = _figures(searches, lambda r: reference_realtime["interval_ns"].get(
        (r["reference_name"], r["strategy_label"], r["case"]), math.nan) if r["reference_name"] else math.nan)
    theirs = marks(reference_values, java, ranked, known.notna() & reference_values.isna())
    return _marked(table, ours, theirs)


def batch_chapter(batch: pd.DataFrame, reference_batch: pd.Series) -> Styler:
    """A chapter's batch table: ns/packet per strategy and case, the article's beside."""
    return style(grid(batch, batch_text, reference_batch.map(lambda v: f"{v:,.0f}")))


def realtime_chapter(searches: pd.DataFrame, reference_realtime: pd.DataFrame) -> Styler:
    """A chapter's real-time table, with the big heap's loss in parentheses (the article's 10 GB column)."""
    table = grid(searches, realtime_text, reference_realtime["text"])
    figures = _figures(searches, lambda r: r["interval_ns"] if r["outcome"] == "found" else math.nan)
    grey = pd.DataFrame("", index=figures.index, columns=figures.columns).mask(figures.isna(), "grey")
    return _marked(table, grey, None)


_ARTICLE_GC = {"max_pause_ms": ("Max GC pause, ms", "{:,.1f}"), "avg_pause_ms": ("Avg GC pause, ms", "{:,.1f}"),
               "gcs_per_s": ("GC count / s", "{:,.1f}"), "gc_fraction_pct": ("GC fraction, %", "{:,.0f}"),
               "live_objects_mil": ("Live objects, mil", "{:,.3f}"),
               "gc_ns_per_live_object": ("GC time / object, ns", "{:,.0f}")}
_OURS_GC = {"pauses_per_s": ("Pauses / s", "{:,.1f}"), "stops_per_s": ("Stops / s", "{:,.1f}"),
            "max_stop_ms": ("Longest stop, ms", "{:,.1f}"), "stalls": ("Stalls", "{:,.0f}"),
            "stall_total_ms": ("Stall time, ms", "{:,.1f}"), "max_stall_ms": ("Longest stall, ms", "{:,.1f}")}
GC_LOG_WORDS = {"log": "on the run's clock", "unaligned": "on its own clock", "records": "none: the engine's records",
                None: "none"}


def _gc_text(value: Any, fmt: str) -> str:
    return "" if value is None or pd.isna(value) else fmt.format(value)


def _gc_records(gc: pd.DataFrame) -> list[dict[str, Any]]:
    solution_order = {name: i for i, name in enumerate(dict.fromkeys(gc["solution"]))} if len(gc) else {}
    return sorted(gc.to_dict("records"),
                  key=lambda r: (solution_order[r["solution"]], r["case"], STRATEGIES.index(r["strategy"])))


def _gc_table(rows: list[dict[Any, str]], columns: int) -> Styler:
    table = pd.DataFrame(rows)
    table.columns = pd.MultiIndex.from_tuples(table.columns) if columns == 2 else table.columns
    table = table.set_index(list(table.columns[:3]))
    table.index.names = ["solution", "case", "strategy"]
    return style(table)


def gc_log_clock(row: dict[str, Any]) -> str:
    """Where a run's GC figures come from, in words: its GC log on the run's clock (aligned), its GC log on its
    own clock, or none (the engine's own records of its pauses)."""
    if row.get("source") == "log":
        return GC_LOG_WORDS["log" if row.get("clock") == ALIGNED else "unaligned"]
    return GC_LOG_WORDS["records" if row.get("source") == "records" else None]


def gc_chapter(gc: pd.DataFrame, reference_gc: pd.DataFrame) -> Styler:
    """The GC table per solution, case and strategy (gctable's columns and rules): the article's six columns,
    its figures beside ours."""
    rows = []
    for r in _gc_records(gc):
        key = (r["reference_name"], r["strategy_label"], r["case"])
        theirs = reference_gc.loc[key] if r["reference_name"] and key in reference_gc.index else None
        row: dict[Any, str] = {("solution", ""): r["label"], ("case", ""): r["case"],
                               ("strategy", ""): r["strategy_label"]}
        for column, (title, fmt) in _ARTICLE_GC.items():
            row[(title, OURS)] = _gc_text(r.get(column), fmt)
            row[(title, REFERENCE)] = "—" if theirs is None or pd.isna(theirs[column]) else fmt.format(theirs[column])
        rows.append(row)
    return _gc_table(rows, 2)


def gc_stops(gc: pd.DataFrame) -> Styler:
    """The GC figures the article has no column for (pauses, stops and stalls, this machine only), and where
    each run's GC figures come from."""
    rows = []
    for r in _gc_records(gc):
        row: dict[str, str] = {"solution": r["label"], "case": r["case"], "strategy": r["strategy_label"]}
        row.update({title: _gc_text(r.get(column), fmt) for column, (title, fmt) in _OURS_GC.items()})
        row["GC log"] = gc_log_clock(r)
        rows.append(row)
    return _gc_table(rows, 1)


def failures(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a batch or search frame that failed or timed out."""
    if "outcome" in frame.columns:
        failed = frame[frame["outcome"] == "failed"]
    else:
        failed = frame[~frame["status"].isin(["ok", "missing"])]
    return failed.reset_index(drop=True)


def best(frame: pd.DataFrame, value: str, by: list[str]) -> pd.DataFrame:
    """The row with the smallest figure in each group (rows without one left out)."""
    known = frame.dropna(subset=[value])
    if known.empty:
        return known
    return known.loc[known.groupby(by, sort=False)[value].idxmin()].reset_index(drop=True)


def wrapping(table: pd.DataFrame) -> Styler:
    """The project's look, with words that wrap in columns of a readable width (tables of sentences)."""
    return style(table).set_table_styles([{"selector": "td", "props": "white-space: normal; text-align: left; "
                                                                     "min-width: 12em;"}], overwrite=False)
