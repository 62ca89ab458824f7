"""Reads a run's JSON Lines records (fields: engine-facts.json's records; meanings: docs/records.md) into a
header, DataFrames and a summary, and holds what one run of a cell left (CellResult).

A run is one `header`, then `periodic` and `gc` records (queue-bench: `probe` and `result`),
then one `summary`. A run without a summary is a failed run: its records are kept. Lines
that are not JSON objects (a line cut short when the engine died mid-write) are set aside
as problems, never raised. A failed run's summary says why in a code (`failure`, one of
engine-facts.json's failures), which the study matches; its error's text is for the reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from allocorpool import lists

_RECORDS: dict[str, Any] = lists.ENGINE_FACTS["records"]
SCHEMA: int = _RECORDS["schema"]
# The codes a failed run's summary gives in its `failure` field (engine-facts.json says what each means).
FAILURES: tuple[str, ...] = tuple(lists.ENGINE_FACTS["failures"])
# A stored row's status beside a run's own ("ok", "error", "timeout"): a run of a registered block or a
# listed cell that the store does not hold, and a combination the runtime cannot run (a row, never a run).
MISSING, UNSUPPORTED = "missing", "unsupported"

# The fields of the table record types (their `type` aside): the engines' run records in engine-facts.json's
# order, the queue benchmark's in docs/records.md's.
COLUMNS: dict[str, list[str]] = {
    **{kind: [name for name in _RECORDS[kind]["fields"] if name != "type"] for kind in ("periodic", "gc")},
    "probe": ["pair", "interval_ns", "duration_s", "emitted", "received", "dropped", "lost", "ok", "capacity_rule",
              "queue_size", "ticks_due", "kept_up"],
    "result": ["pair", "write_ns", "good_interval_ns", "target_ns", "met_target", "capacity_rule", "queue_size",
               "probe_s"],
}


def failure(code: str) -> str:
    """A failure code as engine-facts.json has it; a code it lacks is an error naming the valid ones."""
    if code not in FAILURES:
        raise ValueError(f"no failure code {code!r} in engine-facts.json; valid: {', '.join(FAILURES)}")
    return code


# Runs stored before the engines gave a failure code: the engines' words for the failures the study tells
# apart, which stood for the code. A run recorded since meets them only when its engine died before its
# summary (the JVM's own words then, which analysis.min_heap reads in its standard error too).
_BEFORE_CODES = {"the fill phase did not finish": failure("fill_timeout"),
                 "the run does not fit in the heap": failure("heap_full"),
                 "OutOfMemoryError": failure("out_of_memory")}


def row_failure(row: Any) -> str | None:
    """The failure code of a stored run (an index row, or any mapping with its summary's fields): its summary's
    `failure`; for a run without one (stored before the engines gave codes), the code its error stood for
    (None: none of those)."""
    code = row.get("failure")
    if isinstance(code, str):
        return code
    error = row.get("error")
    if row.get("status") == "ok" or not isinstance(error, str):
        return None
    return next((said for words, said in _BEFORE_CODES.items() if words in error), None)


@dataclass
class Run:
    """The records of one run, as read so far."""

    header: dict[str, Any] | None
    tables: dict[str, pd.DataFrame]
    summary: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)

    def table(self, record_type: str) -> pd.DataFrame:
        """The records of one type (without their `type` field); empty with the schema's columns if none."""
        if record_type in self.tables:
            return self.tables[record_type]
        return pd.DataFrame(columns=COLUMNS.get(record_type, []))

    @property
    def periodic(self) -> pd.DataFrame:
        return self.table("periodic")

    @property
    def gc(self) -> pd.DataFrame:
        return self.table("gc")

    @property
    def status(self) -> str:
        """`ok`, `error` (the engine said so) or `incomplete` (no summary: the run died)."""
        if self.summary is None:
            return "incomplete"
        return "ok" if self.summary.get("status") == "ok" else "error"

    @property
    def failed(self) -> bool:
        return self.status != "ok"


@dataclass
class CellResult:
    """What one run of a cell left: its records, how it ended, its GC log's events. The cell is of any kind
    the store holds (kinds.cell_class): an engine's run.runner.Cell, an event echo's, a binary tree's."""

    cell: Any
    status: str  # "ok", "error" (failed, crashed or said so) or "timeout"
    exit_code: int | None
    stderr_tail: str  # the end of its stderr; of its stdout when it failed and said nothing on stderr
    elapsed_s: float
    run: Run
    gc_events: pd.DataFrame | None = None
    command: list[str] = field(default_factory=list)
    refusal: str | None = None  # why a run that ended well cannot count (another engine build ran it)
    # The machine that ran it when that is not this one (a cluster's worker, run.cluster); None: this machine,
    # with what the run's header says (machine.fingerprint).
    fingerprint: dict[str, Any] | None = None
    attempts: int = 1  # the runs it stands for: a cluster stores a cell that failed on two workers as one result

    @property
    def error(self) -> str | None:
        """Why the cell failed, in a line (None when it did not)."""
        if self.status == "ok":
            return None
        if self.refusal:
            return self.refusal
        if self.status == "timeout":
            engine = getattr(self.cell, "kind", None) == "engine"  # the engines' runs fill a model first
            filling = " in its fill phase" if engine and not len(self.run.periodic) else ""
            return f"timed out after {self.elapsed_s:.0f} s{filling}"
        if self.run.summary is not None and self.run.summary.get("error"):
            return str(self.run.summary["error"])
        if self.exit_code not in (0, None):
            return f"exit code {self.exit_code}"
        lines = self.stderr_tail.strip().splitlines()
        return lines[-1] if lines else f"run {self.run.status}"


class RecordReader:
    """Collects records line by line (a whole file or a file still being written)."""

    def __init__(self) -> None:
        self._header: dict[str, Any] | None = None
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._summary: dict[str, Any] | None = None
        self._problems: list[str] = []
        self._lines = 0
        self._snapshot: Run | None = None

    def feed(self, line: str) -> dict[str, Any] | None:
        """Takes one line; returns the record it held, or None (blank or malformed line)."""
        self._lines += 1
        text = line.strip()
        if not text:
            return None
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            self._problems.append(f"line {self._lines}: not JSON ({error.msg}): {text[:80]}")
            return None
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            self._problems.append(f"line {self._lines}: not a record with a type: {text[:80]}")
            return None
        self._snapshot = None
        kind = record["type"]
        body = {name: value for name, value in record.items() if name != "type"}
        if self._summary is not None:
            self._problems.append(f"line {self._lines}: {kind} record after the summary")
        if kind == "header":
            if self._header is not None or self._rows:
                self._problems.append(f"line {self._lines}: header is not the first record")
            if record.get("schema") != SCHEMA:
                self._problems.append(f"line {self._lines}: schema {record.get('schema')!r}, expected {SCHEMA}")
            self._header = body
        elif kind == "summary":
            self._summary = body
        else:
            if self._header is None and not self._rows:
                self._problems.append(f"line {self._lines}: {kind} record before any header")
            self._rows.setdefault(kind, []).append(body)
        return record

    def feed_all(self, lines: Iterable[str]) -> RecordReader:
        for line in lines:
            self.feed(line)
        return self

    def run(self) -> Run:
        """The records so far (rebuilt only after new records arrived)."""
        if self._snapshot is None:
            tables = {kind: pd.DataFrame.from_records(rows, columns=_columns(kind, rows))
                      for kind, rows in self._rows.items()}
            self._snapshot = Run(header=self._header, tables=tables, summary=self._summary,
                                 problems=list(self._problems))
        return self._snapshot


def _columns(kind: str, rows: list[dict[str, Any]]) -> list[str]:
    known = COLUMNS.get(kind, [])
    extra = dict.fromkeys(name for row in rows for name in row if name not in known)
    return known + list(extra)


def read_run(source: str | Path | Iterable[str]) -> Run:
    """Reads a run from a file path or from an iterable of lines (an open file, a list)."""
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8") as lines:
            return RecordReader().feed_all(lines).run()
    return RecordReader().feed_all(source).run()
