"""Stores finished cells under data/ as Parquet. It only stores: run.executor runs what a store lacks.

A store is a folder (Store.named: data/<name>): cells/<key>.parquet holds one finished cell
(its periodic, gc and GC-log rows, told apart by a `table` column; header, summary, status
and stderr tail in the file's metadata), index.parquet one row per cell (cell parameters,
status, error, summary fields); the engines' raw files go to runs_dir (Store.named:
data/runs/<name>, which git ignores). Every row of both carries the machine
fingerprint (machine.fingerprint). Files are written atomically (temporary file in the same
folder, fsync, os.replace), the cell file before the index, and opening a store indexes any
cell file the index misses: a finished cell is never lost. A failed cell is stored too, with
status "error" or "timeout" and its stderr tail.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from allocorpool import kinds, machine, paths, settings
from allocorpool.data import gclog
from allocorpool.data.records import COLUMNS, CellResult, Run
from allocorpool.settings import DEFAULT_PROFILE  # noqa: F401  (the chapters import it from here)

_META_KEY = b"allocorpool"
_SCHEMAS = {**COLUMNS, "gclog": gclog.COLUMNS}
_ROW_CONSTANTS = {"table", "key", "status", *machine.FINGERPRINT_FIELDS}


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Calls write(temporary path) in path's folder, then fsyncs and renames it over path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        write(temporary)
        with open(temporary, "rb") as file:
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _write_parquet(frame: pd.DataFrame, path: Path, metadata: dict[str, Any] | None = None) -> None:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if metadata is not None:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               _META_KEY: json.dumps(metadata, default=str).encode()})
    atomic_write(path, lambda temporary: pq.write_table(table, temporary))


class StoreBusy(RuntimeError):
    """Another process is running cells into this store."""


_RUNS_LOCKS: dict[Path, int] = {}  # the stores this process has taken: root -> the locked file
_RUNS_LOCKS_GUARD = threading.Lock()  # a sweep on a cluster takes its store from several threads


class Store:
    """The finished cells of a sweep, by key."""

    def __init__(self, root: Path, runs_dir: Path | None = None) -> None:
        self.root = root
        self.cells_dir = root / "cells"
        self.runs_dir = runs_dir or root / "runs"
        self.index_path = root / "index.parquet"
        self.cells_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()  # cells that finish at once on a cluster are stored one after the other
        self._index = self._reconcile()
        self._rows: dict[str, dict[str, Any]] = {}
        self._newest: dict[str, dict[str, Any]] = {}
        self._rows_of: pd.DataFrame | None = None  # the index _rows and _newest were built from

    @classmethod
    def chosen(cls, profile_name: str, data_dir: str | Path | None = None) -> Store:
        """A profile's store: data_dir if given, else settings.DATA_VARIABLE's, else data/<profile_name>."""
        data = data_dir or settings.data_dir()
        return cls(Path(data).resolve()) if data else cls.named(profile_name)

    @classmethod
    def named(cls, name: str) -> Store:
        """The store data/<name> of the checkout; the engines' raw files go to data/runs/<name>
        (kept out of git)."""
        return cls(paths.data_dir() / name, paths.data_dir() / "runs" / name)

    def lock_for_runs(self) -> None:
        """Takes the store for this process's runs, until it exits: two sweeps writing one store would
        also measure on a machine the other one loads. Refuses, naming the holder, while another
        process has it."""
        with _RUNS_LOCKS_GUARD:
            self._lock_for_runs()

    def _lock_for_runs(self) -> None:
        root = self.root.resolve()
        if root in _RUNS_LOCKS:
            return
        fd = os.open(root / ".runs.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", errors="replace").strip() or "a process"
            os.close(fd)
            raise StoreBusy(f"the store {self.root} is taken by another sweep ({holder}); wait for it to end, "
                            f"stop it, or give this one another data folder (ALLOC_OR_POOL_DATA)") from None
        command = " ".join(Path(f"/proc/{os.getpid()}/cmdline").read_bytes().decode(errors="replace")
                           .replace("\0", " ").split())
        since = datetime.now(timezone.utc).isoformat(timespec="seconds")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, {command[:200]}, since {since}".encode(), 0)
        _RUNS_LOCKS[root] = fd

    @property
    def index(self) -> pd.DataFrame:
        return self._index.copy()

    def index_rows(self) -> dict[str, dict[str, Any]]:
        """Every index row by key, read-only: built once per state of the index (every change replaces
        the index, so a changed index builds it again), for readers that look up many keys."""
        return self._lookups()[0]

    def _lookups(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """The index rows by key and the newest row by measurement, built once per state of the index."""
        with self._lock:
            if self._rows_of is not self._index:
                records = self._index.to_dict("records") if len(self._index) else []
                self._rows = {row["key"]: row for row in records}
                newest: dict[str, dict[str, Any]] = {}
                # Oldest first, a row without its time last (as sort_values puts it): the last one stands
                for row in sorted(records, key=lambda r: (not isinstance(r.get("stored_utc"), str),
                                                          r.get("stored_utc") or "")):
                    if isinstance(row.get("measurement"), str):
                        newest[row["measurement"]] = row
                self._newest = newest
                self._rows_of = self._index
            return self._rows, self._newest

    def has(self, key: str, ok_only: bool = False) -> bool:
        row = self.index_rows().get(key)
        return row is not None and (not ok_only or row["status"] == "ok")

    def put(self, result: CellResult) -> None:
        """Stores a finished cell (replacing an earlier one of the same key), with the fingerprint of the machine
        that ran it; safe from several threads."""
        with self._lock:
            self._put(result)

    def _put(self, result: CellResult) -> None:
        key = result.cell.key
        fingerprint = result.fingerprint or machine.fingerprint(result.run.header)
        frames = [frame.assign(table=name) for name, frame in result.run.tables.items()]
        if result.gc_events is not None:
            frames.append(result.gc_events.assign(table="gclog"))
        rows = pd.concat([f for f in frames if len(f)], ignore_index=True) if any(len(f) for f in frames) \
            else pd.DataFrame({"table": pd.Series(dtype=str)})
        rows = rows.assign(key=key, status=result.status, **fingerprint)
        metadata = {"cell_kind": result.cell.kind, "measurement": getattr(result.cell, "measurement", key),
                    "attempts": self._attempts(key) + result.attempts, "cell": result.cell.params(),
                    "header": result.run.header, "summary": result.run.summary,
                    "problems": result.run.problems, "status": result.status, "exit_code": result.exit_code,
                    "error": result.error, "stderr_tail": result.stderr_tail, "elapsed_s": result.elapsed_s,
                    "stored_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": result.command,
                    "gclog_collector": None if result.gc_events is None else result.gc_events.attrs.get("collector"),
                    "fingerprint": fingerprint, "refusal": result.refusal}
        _write_parquet(rows, self.cells_dir / f"{key}.parquet", metadata)
        entry = _index_row(key, metadata)
        others = self._index[self._index["key"] != key] if len(self._index) else self._index
        self._index = pd.concat([others, pd.DataFrame([entry])], ignore_index=True) if len(others) \
            else pd.DataFrame([entry])
        self._write_index()

    def row(self, key: str) -> dict[str, Any] | None:
        """The index row of a stored cell (None: the store lacks it)."""
        row = self.index_rows().get(key)
        return dict(row) if row is not None else None

    def latest(self, measurement: str) -> dict[str, Any] | None:
        """The index row of the newest stored cell that measured this (whichever engine build ran it)."""
        row = self._lookups()[1].get(measurement)
        return dict(row) if row is not None else None

    def _attempts(self, key: str) -> int:
        """Runs of a key that failed in a row so far (0 when it is new or its last run finished ok)."""
        rows = self._index[self._index["key"] == key] if len(self._index) else self._index
        if not len(rows) or rows["status"].iloc[0] == "ok":
            return 0
        attempts = rows["attempts"].iloc[0] if "attempts" in rows else None
        return 1 if attempts is None or pd.isna(attempts) else int(attempts)

    def load(self, key: str) -> CellResult:
        """A stored cell, as run_cell returned it; its class is the one registered for its kind (kinds.cell_class)."""
        table = pq.read_table(self.cells_dir / f"{key}.parquet")
        metadata = json.loads(table.schema.metadata[_META_KEY])
        tables = {str(name): _table_rows(str(name), part)
                  for name, part in table.to_pandas().groupby("table", sort=False)}
        events = tables.pop("gclog", None)
        if events is not None:
            events.attrs["collector"] = metadata["gclog_collector"]
        run = Run(header=metadata["header"], tables=tables, summary=metadata["summary"],
                  problems=metadata["problems"])
        cell = kinds.cell_class(metadata.get("cell_kind", "engine"))(**metadata["cell"])
        return CellResult(cell, metadata["status"], metadata["exit_code"],
                          metadata["stderr_tail"], metadata["elapsed_s"], run, events, metadata["command"],
                          metadata.get("refusal"), fingerprint=metadata["fingerprint"])

    def rows(self, table: str) -> pd.DataFrame:
        """One table's rows (periodic, gc, gclog, ...) of every stored cell, with key and fingerprint."""
        frames = [pq.read_table(path, filters=[("table", "=", table)]).to_pandas()
                  for path in sorted(self.cells_dir.glob("*.parquet"))]
        frames = [f.dropna(axis=1, how="all") for f in frames if len(f)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def table(self, name: str) -> pd.DataFrame:
        """A store-wide table of records other than cells (<root>/<name>.parquet: the blocks' register,
        say); empty when there is none."""
        path = self.root / f"{name}.parquet"
        return pd.read_parquet(path) if path.is_file() else pd.DataFrame()

    def upsert(self, name: str, row: dict[str, Any], keys: tuple[str, ...]) -> None:
        """Writes row into the table `name`, replacing the row with the same values of keys (atomically,
        safe from several threads)."""
        with self._lock:
            table = self.table(name)
            if len(table) and all(k in table for k in keys):
                same = pd.Series(True, index=table.index)
                for k in keys:
                    same &= table[k] == row.get(k)
                table = table[~same]
            new = pd.DataFrame([row])
            table = pd.concat([table, new], ignore_index=True) if len(table) else new
            atomic_write(self.root / f"{name}.parquet", lambda temporary: table.to_parquet(temporary, index=False))

    def _write_index(self) -> None:
        _write_parquet(self._index, self.index_path)

    def _reconcile(self) -> pd.DataFrame:
        """The index, with every cell file in it and no entry without its file."""
        index = pq.read_table(self.index_path).to_pandas() if self.index_path.exists() else pd.DataFrame()
        on_disk = {path.stem: path for path in self.cells_dir.glob("*.parquet")}
        known = set(index["key"]) if len(index) else set()
        missing = [key for key in on_disk if key not in known]
        changed = bool(missing) or bool(known - set(on_disk))
        if len(index):
            index = index[index["key"].isin(on_disk)]
        if missing:
            entries = []
            for key in missing:
                metadata = json.loads(pq.read_schema(on_disk[key]).metadata[_META_KEY])
                entries.append(_index_row(key, metadata))
            index = pd.concat([index, pd.DataFrame(entries)], ignore_index=True) if len(index) \
                else pd.DataFrame(entries)
        self._index = index.reset_index(drop=True)
        if changed:
            self._write_index()
        return self._index


def _table_rows(name: str, part: pd.DataFrame) -> pd.DataFrame:
    """One table's rows of a cell file: its own columns (the schema's, then any others it has)."""
    frame = part.drop(columns=[c for c in part.columns if c in _ROW_CONSTANTS]).dropna(axis=1, how="all")
    known = _SCHEMAS.get(name, [])
    frame = frame.reindex(columns=known + [c for c in frame.columns if c not in known])
    return frame.infer_objects().reset_index(drop=True)


def _index_row(key: str, metadata: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"key": key}
    row.update({name: metadata[name] for name in
                ("status", "error", "exit_code", "elapsed_s", "stored_utc", "stderr_tail")})
    row["cell_kind"] = metadata.get("cell_kind", "engine")
    row["measurement"] = metadata.get("measurement", key)
    row["attempts"] = metadata.get("attempts", 1)  # runs of this key so far when the earlier ones failed
    row.update(metadata["cell"])
    for name, value in ((metadata.get("header") or {}).get("params") or {}).items():
        row[f"params_{name}"] = value
    if (metadata.get("header") or {}).get("series_probe") is not None:
        row["series_probe"] = metadata["header"]["series_probe"]  # its place in its series (run.probe_series)
    row.update(metadata["fingerprint"])
    for name, value in (metadata["summary"] or {}).items():
        row[name if name not in row else f"summary_{name}"] = value
    return row
