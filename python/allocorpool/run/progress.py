"""What a sweep shows while it works and when a chapter ends: its progress line, the record of the
stored cells a chapter read, and a strict profile's failure.

Progress is one line: updated in place in a notebook, printed on the terminal (the kernel's own
stderr, which is papermill's or JupyterLab's terminal).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import pandas as pd

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
