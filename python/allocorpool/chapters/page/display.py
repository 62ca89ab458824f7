"""How the notebooks show things so that they survive papermill, nbconvert and JupyterLab alike.

A figure is displayed as two representations: plotly's own (interactive in JupyterLab) and
HTML that calls Plotly.newPlot without carrying plotly.js, which the article (article.py)
loads once for every figure. Tables are styled HTML. A failed or timed-out cell is shown as
such, with the tail of its stderr, and the notebook goes on.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import mistune
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from IPython.display import HTML, Markdown, display
from pandas.io.formats.style import Styler

from allocorpool.data.records import MISSING
from allocorpool.chapters.page.tables import style
from allocorpool.lists import COLLECTOR_LABELS, SOLUTIONS_BY_NAME, STRATEGY_LABELS

PLOTLY_MIMETYPE = "application/vnd.plotly.v1+json"
# Under the full profile, a section that sets a small profile beside the article's sizes has no second side.
NOTHING_SMALLER = ("This is the full profile itself: there is no smaller profile here to set beside it. The quick "
                   "profile's article (`make study PROFILE=quick`) shows this section, its small runs against this "
                   "store's.")


def figure_bundle(fig: go.Figure) -> dict[str, Any]:
    """The display bundle of a figure: plotly's JSON and plotly.js-free HTML; its axes write 2,000, not 2000."""
    fig.update_xaxes(separatethousands=True).update_yaxes(separatethousands=True)
    markup = fig.to_html(include_plotlyjs=False, full_html=False, config={"displaylogo": False, "responsive": True})
    title = fig.layout.title.text or "figure"
    return {PLOTLY_MIMETYPE: json.loads(fig.to_json()), "text/html": markup, "text/plain": f"<{title}>"}


def show_figure(fig: go.Figure) -> None:
    display(figure_bundle(fig), raw=True)


def show_table(table: pd.DataFrame | Styler, caption: str | None = None, precision: int = 1) -> None:
    """A styled table as HTML; a plain DataFrame gets the project's look and `precision` decimals. Either way
    its columns are named for the reader and yes/no stands for True/False."""
    if isinstance(table, Styler):
        styler = readable_styler(table)
    else:
        styler = numbers(readable(table), precision)
    if caption:
        styler = styler.set_caption(caption)
    display(HTML(one_heading_row(styler.to_html())))


def numbers(table: pd.DataFrame, precision: int) -> Styler:
    """The project's look with numbers written for the reader: thousands separated, `precision` decimals,
    and none in a column of whole numbers (an interval of 1,000 ns, not 1000.0, where a gap made it float)."""
    styler = style(table).format(precision=precision, na_rep="—", thousands=",")
    styler = styler.format_index(precision=precision, thousands=",", axis="index")
    whole = [column for column in table.columns if pd.api.types.is_float_dtype(table[column])
             and _whole(table[column])]
    return styler.format(precision=0, na_rep="—", thousands=",", subset=whole) if whole else styler


def _whole(values: pd.Series) -> bool:
    finite = values[np.isfinite(values)]
    return not finite.empty and bool((finite == finite.round()).all())


_ROW = re.compile(r"<tr>.*?</tr>", re.S)
_CELL = re.compile(r"<th[^>]*>.*?</th>", re.S)


def one_heading_row(markup: str) -> str:
    """A table's row labels named in the heading row's empty corner, not on a row of their own.

    Pandas writes the names of the index on an extra heading row whose other cells are empty. Where
    the corner above them is empty too (the lowest level of the columns has no name), the names move
    into that corner and the extra row goes; any other table is left as pandas wrote it."""
    head = re.search(r"<thead>(.*?)</thead>", markup, re.S)
    rows = _ROW.findall(head.group(1)) if head else []
    if len(rows) < 2:
        return markup
    names, above = _CELL.findall(rows[-1]), _CELL.findall(rows[-2])
    labels = [cell for cell in names if 'class="index_name' in cell]
    if not labels or any('class="blank col' not in cell for cell in names[len(labels):]):
        return markup
    corner = above[:len(labels)]
    if len(above) <= len(labels) or any(re.sub(r"<[^>]*>|&nbsp;|\s", "", cell) for cell in corner):
        return markup
    merged = "<tr>\n" + "\n".join(labels + above[len(labels):]) + "\n</tr>"
    rebuilt = head.group(1).replace(rows[-1], "", 1).replace(rows[-2], merged, 1)
    return markup[:head.start(1)] + rebuilt + markup[head.end(1):]


def count(n: int, word: str, plural: str | None = None) -> str:
    """'1 run', '3 runs', '2 cells across the JDKs': a number with its noun (the word before a phrase's
    ' across', ' of' or ' in' takes the plural), never 'run(s)'."""
    if n == 1:
        return f"{n:,} {word}"
    if plural is None:
        head, sep, rest = next(((word[:i], word[i:i + len(m)], word[i + len(m):]) for m in (" across ", " of ", " in ")
                                if (i := word.find(m)) > 0), (word, "", ""))
        plural = (head[:-1] + "ies" if head.endswith("y") and head[-2:-1] not in "aeiou" else
                  head + "es" if head.endswith(("s", "sh", "ch", "x")) else head + "s") + sep + rest
    return f"{n:,} {plural}"


def duration(ns: float) -> str:
    """A time in the unit that reads best, three significant digits: '473 ns', '3.2 µs', '298 ms', '1.5 s'."""
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= size:
            return f"{ns / size:.3g} {unit}"
    return f"{ns:.3g} ns"


def series(items) -> str:
    """'1', '1 and 2', '2, 4 and 8': a short list in a sentence ('' for none)."""
    said = [str(item) for item in items]
    return " and ".join([", ".join(said[:-1]), said[-1]]) if len(said) > 1 else "".join(said)


def strategies(names) -> str:
    """'allocation, mix and pooling': the article's strategies by their labels, in a sentence."""
    return series(STRATEGY_LABELS.get(name, name).lower() for name in names)


def cases(names) -> str:
    """'case C', 'cases A, B and C'."""
    listed = list(names)
    return f"case{'s' if len(listed) > 1 else ''} {series(listed)}"


def listing(intro: str, items: list[str]) -> str:
    """An enumeration for the reader: its introduction, then one bullet per item (never one long sentence)."""
    return intro.rstrip(":. ") + ":\n\n" + "\n".join(f"- {item}" for item in items) + "\n"


def note(text: str) -> None:
    """A sentence or two of prose computed from the results."""
    display(Markdown(text))


# The metadata of a section's only output when the section has nothing to show under this profile: the
# notebook says why, and the article leaves the section out (article.merge).
NOTHING_METADATA = {"allocorpool": {"nothing_to_show": True}}


def nothing_to_show(text: str) -> None:
    """The one sentence of a section with nothing to show here; the article leaves the section out."""
    display(Markdown(text), metadata=NOTHING_METADATA)


def is_nothing_to_show(output: dict[str, Any]) -> bool:
    return bool(output.get("metadata", {}).get("allocorpool", {}).get("nothing_to_show"))


# The metadata of the sentence of a chapter whose store holds none of its runs: the article shows the chapter's
# title and that sentence only (article.merge).
NOTHING_MEASURED_METADATA = {"allocorpool": {"nothing_measured": True}}


def nothing_measured(text: str) -> None:
    """The one sentence of a chapter none of whose runs the store holds: the article shows it in place of the
    chapter."""
    display(Markdown(text), metadata=NOTHING_MEASURED_METADATA)


def is_nothing_measured(output: dict[str, Any]) -> bool:
    return bool(output.get("metadata", {}).get("allocorpool", {}).get("nothing_measured"))


def failure_html(frame: pd.DataFrame, what: str) -> str:
    """Failed cells as an HTML list: what failed, why, and its stderr tail folded under it."""
    if frame.empty:
        return f"<p>Every {what} finished.</p>"
    items = []
    for row in frame.to_dict("records"):
        name = " ".join(str(row[c]) for c in ("label", "strategy_label", "case") if row.get(c) is not None)
        why = row.get("error") or row.get("status") or "failed"
        tail = row.get("stderr_tail") or ""
        items.append(f"<li><b>{html.escape(name)}</b>: {html.escape(str(why))}"
                     + (f"<details><summary>stderr tail</summary><pre>{html.escape(str(tail)[-2000:])}</pre>"
                        f"</details>" if tail else "") + "</li>")
    return (f"<p style='color:#a00000'>{count(len(frame), what)} failed or timed out; the study goes on "
            f"without them:</p><ul>{''.join(items)}</ul>")


def error_text(error: Any) -> str:
    """A run's error as the reader reads it: the JVM's exception without its package."""
    text = str(error)
    for package in ("java.lang.", "java.util."):
        text = text.replace(package, "")
    return text.replace("OutOfMemoryError:", "out of memory:").replace("OutOfMemoryError", "out of memory")


def show_failures(frame: pd.DataFrame, what: str) -> None:
    display(HTML(failure_html(frame, what)))


def not_measured(count: int, total: int, detail: str) -> str:
    """A replay's count of the profile's runs its store does not hold (they are no failures), with which."""
    return f"{count} of the profile's {total} runs are not measured: the store does not hold them ({detail})."


def show_unfinished(frame: pd.DataFrame, statuses: list[str], what: str) -> None:
    """Rows whose runs (any of the status columns) did not finish: those the store lacks (a replay of
    a store the sweep has not filled yet) are counted, the others listed as failures."""
    status = frame[statuses]
    missing = status.eq(MISSING).any(axis=1)
    failed = ~status.isin(["ok", MISSING]).all(axis=1) & ~missing
    if missing.any():
        note(f"{count(int(missing.sum()), what)} are not measured yet: the store does not hold their runs.")
    if failed.any():
        rows = frame[failed]
        statuses_said = status[failed].agg(" / ".join, axis=1)
        show_failures(rows.assign(error=rows["error"].fillna(statuses_said) if "error" in rows else statuses_said),
                      what)


# The reader's names of the data's columns where reader_name's rule (words, then the unit after a comma)
# would not give them.
READER_NAMES = {
    "label": "solution", "strategy_label": "strategy", "interval_ns": "loss-free interval, ns",
    "loss_pct": "lost at 1,000 ns, %", "batch_ns": "batch, ns per packet", "big_heap_status": "big-heap probe",
    "big_heap": "big heap, MB", "big_heap_loss_pct": "big heap: lost, %", "big_heap_collections": "big heap: collections in its window",
    "max_pause_ms": "longest pause, ms", "queue_ms": "input queue, ms", "gc_fraction_pct": "time in GC, %",
    "p999_ms": "p99.9, ms", "gc_time": "time in GC", "gc_pause_pct": "time paused, %",
    "gc_pause_ms_per_min": "paused, ms per minute", "gc_pause_max_ms": "longest pause, ms", "extra_ns": "extra ns",
    "event_bytes": "event, bytes", "best_flat_ns": "best flat C++, ns", "ns_per_packet_g1": "G1, ns per packet",
    "ns_per_packet_flat": "flat C++, ns per packet", "ns_per_packet_cpp": "C++, ns per packet",
    "jdk": "JDK",
}
# Columns whose values are the data's keys, shown by the reader's labels (a key with no label is shown as is).
KEY_LABELS = {"solution": {name: s.label for name, s in SOLUTIONS_BY_NAME.items()}, "collector": COLLECTOR_LABELS,
              "strategy": STRATEGY_LABELS}
_UNITS = (("_pct", ", %"), ("_ms", ", ms"), ("_ns", ", ns"), ("_s", ", s"))


def reader_name(name: Any) -> Any:
    """A column's name for the reader: READER_NAMES, else its words without underscores and its unit after a comma."""
    if not isinstance(name, str) or name in READER_NAMES:
        return READER_NAMES.get(name, name) if isinstance(name, str) else name
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return name[: -len(suffix)].replace("_", " ") + unit
    return name.replace("_", " ")


def _is_flag(column: pd.Series) -> bool:
    values = column.dropna()
    return column.dtype == bool or (len(values) > 0 and values.map(lambda v: isinstance(v, (bool, np.bool_))).all())


def yes_no(value: Any) -> Any:
    return ("yes" if value else "no") if isinstance(value, (bool, np.bool_)) else value


def labelled(table: pd.DataFrame) -> pd.DataFrame:
    """The table with its keys (solution, collector, strategy) shown by their labels, in columns and index levels;
    a key column beside its own label column (solution beside label, strategy beside strategy_label) is dropped."""
    levels = [name for name in table.index.names if name]
    present = set(table.columns) | set(levels)
    beside = {"solution": "label", "strategy": "strategy_label"}
    dropped = [key for key, label in beside.items() if key in present and label in present]
    table = table.drop(columns=[c for c in dropped if c in table.columns])
    gone = [level for level in dropped if level in table.index.names]
    if gone:
        table = table.droplevel(gone) if table.index.nlevels > len(gone) else table.reset_index(drop=True)
    mapped = {key: labels for key, labels in KEY_LABELS.items() if key not in dropped}
    columns = [c for c in table.columns if c in mapped]
    if columns:
        table = table.assign(**{c: table[c].map(lambda v, m=mapped[c]: m.get(v, v) if isinstance(v, str) else v)
                                for c in columns})
    if any(name in mapped for name in table.index.names):
        frame = table.index.to_frame(index=False)
        for name in frame.columns:
            if name in mapped:
                frame[name] = frame[name].map(lambda v, m=mapped[name]: m.get(v, v) if isinstance(v, str) else v)
        table = table.set_axis(pd.MultiIndex.from_frame(frame) if table.index.nlevels > 1
                               else pd.Index(frame.iloc[:, 0], name=frame.columns[0]), axis="index")
    return table


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """The table as the reader sees it: keys by their labels, yes/no for True/False, and every column and index
    level named for the reader."""
    table = labelled(table)
    flags = [column for column in table.columns if _is_flag(table[column])]
    if flags:
        table = table.copy()
        for column in flags:
            table[column] = table[column].map(yes_no)
    renamed = table.rename(columns=reader_name)
    names = [reader_name(name) if name else name for name in table.index.names]
    return renamed.rename_axis(index=names)


def readable_styler(styler: Styler) -> Styler:
    """A styled table's True/False shown as yes/no and its column labels named for the reader."""
    flags = [column for column in styler.data.columns if _is_flag(styler.data[column])]
    if flags:
        styler = styler.format(yes_no, subset=flags)
    if not isinstance(styler.data.columns, pd.MultiIndex) and not styler.hidden_columns:
        styler = styler.relabel_index([str(reader_name(c)) for c in styler.data.columns], axis="columns")
    return styler


def show_details_text(summary: str, text: str) -> None:
    """Prose (markdown) folded under a one-line summary: what a reader may skip."""
    if text:
        display(HTML(f"<details><summary>{html.escape(summary)}</summary>{mistune.html(text)}</details>"))


def show_details_group(summary: str, tables: list[tuple[str, pd.DataFrame]], precision: int = 1) -> None:
    """Several folded tables, each under its own line, folded together under one line."""
    inner = "".join(f"<details><summary>{html.escape(title)}</summary>{_folded(table, precision)}</details>"
                    for title, table in tables)
    display(HTML(f"<details><summary>{html.escape(summary)}</summary>{inner}</details>"))


def show_details(summary: str, table: pd.DataFrame, precision: int = 1) -> None:
    """A table folded under a one-line summary (the cells behind a verdict), its columns named for the reader."""
    display(HTML(f"<details><summary>{html.escape(summary)}</summary>{_folded(table, precision)}</details>"))


def _folded(table: pd.DataFrame, precision: int) -> str:
    """A folded table's HTML: its row labels kept where its index names them (a solution, case and strategy), left
    out where it is the unnamed row count."""
    styler = numbers(readable(table), precision)
    if all(name is None for name in table.index.names):
        return styler.hide(axis="index").to_html()
    return one_heading_row(styler.to_html())
