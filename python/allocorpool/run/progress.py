"""What a sweep shows while it works and when a chapter ends: its progress line, what the session ran
and read, the record of the stored cells a chapter read, and a strict profile's failure.

Progress is the executor's named collaborator (run.executor.Executor.progress): an experiment begins and
ends its line through it, and notes every stored row it read that the executor did not hand it (a
block's runs: saw); the executor notes each run it makes and each row it hands out. The line is one
line: updated in place in a notebook, printed on the terminal (the kernel's own stderr, which is
papermill's or JupyterLab's terminal).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from allocorpool.analysis.min_heap import TOO_SMALL, heap_verdict
from allocorpool.data.records import MISSING, row_failure
from allocorpool.data.tables import value

# A chapter's record of the stored cells it read (Sweep.finish): an output no viewer shows, from which the
# article's first screen says which runs, machines and engine time its figures come from.
READ_CELLS_MIMETYPE = "application/vnd.allocorpool.cells-read+json"
# The metadata of a progress line's display: the article drops it from whichever cell showed it.
PROGRESS_METADATA = {"allocorpool": {"progress": True}}


def is_progress(output: dict[str, Any]) -> bool:
    return bool(output.get("metadata", {}).get("allocorpool", {}).get("progress"))


class ChapterFailed(RuntimeError):
    """A chapter under a strict profile whose runs failed or that has no result."""


def in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


class Status:
    """One progress line: a display updated in place in a notebook, a printed line on the terminal."""

    def __init__(self, enabled: bool, prefix: str) -> None:
        self._enabled = enabled
        self._prefix = prefix
        self._handle: Any = None
        self._started = time.monotonic()
        self._lock = threading.Lock()  # on a cluster, threads report

    def show(self, text: str) -> None:
        if not self._enabled:
            return
        line = f"[{self._prefix} {time.monotonic() - self._started:6.0f} s] {text}"
        with self._lock:
            print(line, file=sys.__stderr__, flush=True)
            if in_notebook():
                from IPython.display import Pretty, display
                if self._handle is None:
                    self._handle = display(Pretty(line), display_id=True, metadata=PROGRESS_METADATA)
                else:
                    self._handle.update(Pretty(line), metadata=PROGRESS_METADATA)


class Progress:
    """One session's progress line (begin, show, end), how many runs it made, and every stored row it ran or
    read (seen: the latest by key), from which its failures and the cells it read come."""

    def __init__(self, enabled: bool, name: str, where: str = "the store",
                 sink: Callable[[str], None] | None = None) -> None:
        self.enabled = enabled
        self.sink = sink  # where the line goes instead of a Status (a command's own printer)
        self.name = name  # the line's prefix: the profile's name
        self.where = where  # the store, as the closing line names it
        self.ran = 0
        self.seen: dict[str, dict[str, Any]] = {}
        # cells that failed because their heap was too small (a bisection's step, a continuum line's end, an
        # Epsilon cell that fills its heap): the measurement's answer, not failures
        self.heap_too_small: set[str] = set()
        self._status = Status(False, "")
        self._lock = threading.Lock()  # on a cluster, threads report

    def begin(self, what: str) -> None:
        self._status = Status(self.enabled, f"{self.name} {what}")

    def show(self, text: str) -> None:
        if self.sink is not None:
            self.sink(text)
        else:
            self._status.show(text)

    def end(self, what: str) -> None:
        self.show(f"done: {what}; {self.ran} cell(s) run in this session, the rest read from {self.where}")

    def counted(self) -> int:
        """Counts one run made; the runs so far."""
        with self._lock:
            self.ran += 1
            return self.ran

    def note(self, key: str, row: dict[str, Any]) -> None:
        """Notes the row handed out for a cell, by the cell's key (a replay's may be another build's row); one
        the store lacks (status MISSING) too: a cell asked for and not found fails a strict chapter."""
        with self._lock:
            self.seen[key] = row

    def saw(self, rows: Iterable[dict[str, Any]]) -> None:
        """Notes stored rows read besides (a block's runs), those the store lacks left out."""
        with self._lock:
            for row in rows:
                if row["status"] != MISSING:
                    self.seen[row["key"]] = row

    def heap_verdict(self, key: str, row: dict[str, Any]) -> str | None:
        """The heap verdict of a run's row (analysis.min_heap); one that ran out of heap is a measurement's answer
        (a bisection's step, a continuum line's end), not a failure of the chapter."""
        found = heap_verdict(row["status"], row_failure(row), value(row, "stderr_tail"))
        if found == TOO_SMALL:
            with self._lock:
                self.heap_too_small.add(key)
        return found

    def failures(self) -> pd.DataFrame:
        """The cells this session ran or read whose latest run failed or timed out (or that a replay lacks)."""
        rows = [{"key": key, "status": row["status"], "error": value(row, "error"),
                 "stderr_tail": value(row, "stderr_tail")} for key, row in self.seen.items()
                if row["status"] != "ok" and key not in self.heap_too_small]
        return pd.DataFrame(rows, columns=["key", "status", "error", "stderr_tail"])

    def cells_read(self) -> list[str]:
        """The keys of the stored cells this session ran or read (a replay's older build of a measurement
        included: the cell it showed), those the store lacks left out."""
        return sorted({row["key"] for row in self.seen.values() if row["status"] != MISSING})


def show_cells_read(profile_name: str, selection_name: str, keys: list[str], engine_s: float) -> None:
    """In a notebook, the record of the stored cells a chapter read (READ_CELLS_MIMETYPE), with a line for people."""
    if not in_notebook():
        return
    from IPython.display import display
    record = {"profile": profile_name, "selection": selection_name, "keys": keys}
    display({READ_CELLS_MIMETYPE: record,
             "text/plain": f"This chapter read {len(keys)} stored cells of profile {profile_name}: "
                           f"{engine_s / 60:.1f} min of engine time."}, raw=True)


def has_result(frame: pd.DataFrame) -> bool:
    """A batch, search, probe-block, continuum, JDK or queue table with at least one finished row."""
    if "outcome" in frame.columns:
        return bool(frame["outcome"].isin(["found", "lost"]).any())
    if "keeps_up" in frame.columns and "probes" in frame.columns:
        return bool((frame["probes"] > frame["failed"]).any())
    for status in ("status", "batch_status"):
        if status in frame.columns:
            return bool((frame[status] == "ok").any())
    return len(frame) > 0


def fail_if_strict(profile_name: str, strict: bool, failed: pd.DataFrame, results: tuple[pd.DataFrame, ...]) -> None:
    """Under a strict profile, ChapterFailed when a run failed (failed: key, status, error) or a result table
    has no finished row: a chapter whose runs all failed must not pass its test."""
    empty = [i for i, frame in enumerate(results, 1) if not has_result(frame)]
    if strict and (len(failed) or empty):
        lines = [f"{row.key}: {row.status}: {row.error}" for row in failed.itertuples()]
        lines += [f"result table {i} of {len(results)} has no finished row" for i in empty]
        raise ChapterFailed(f"profile {profile_name}: " + "; ".join(lines))
