"""store.py: Parquet cells and index, atomic writes, resumable sweeps, fingerprints on every row."""

import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from allocorpool.data import gclog
from allocorpool.data.records import read_run
from allocorpool.data.store import Store, atomic_write
from allocorpool.machine import FINGERPRINT_FIELDS
from allocorpool.profiles import PROFILES
from allocorpool.run.executor import Executor
from allocorpool.run.runner import Cell, CellResult, run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
REALTIME = Cell(engine="java", jdk=21, collector="g1", case="B", strategy="alloc", mode="realtime",
                interval_ns=1000, duration_s=6, warmup_s=2, gc_log=True)


def cpp_cell(case, strategy):
    return Cell(engine="cpp", design="flat", allocator="glibc", case=case, strategy=strategy, duration_s=0.5,
                warmup_s=0.1)


def sample_result(runs_dir, cell=REALTIME):
    run = read_run(runs_dir / "java-realtime.jsonl")
    return CellResult(cell, "ok", 0, "", 6.5, run, gclog.parse(runs_dir / "java-realtime.gc.log"), ["java"])


def test_a_cell_round_trips(tmp_path, runs_dir):
    store = Store(tmp_path)
    original = sample_result(runs_dir)
    store.put(original)
    loaded = Store(tmp_path).load(REALTIME.key)
    assert loaded.cell == REALTIME and loaded.status == "ok" and loaded.command == ["java"]
    assert loaded.run.header == original.run.header and loaded.run.summary == original.run.summary
    pd.testing.assert_frame_equal(loaded.run.periodic, original.run.periodic, check_dtype=False)
    pd.testing.assert_frame_equal(loaded.run.gc, original.run.gc, check_dtype=False)
    columns = ["kind", "name", "start_s", "duration_ms"]
    pd.testing.assert_frame_equal(loaded.gc_events[columns], original.gc_events[columns], check_dtype=False)
    assert loaded.gc_events.attrs["collector"] == "g1"


def test_a_log_without_pauses_keeps_its_columns(tmp_path, gclogs_dir, runs_dir):
    store = Store(tmp_path)
    events = gclog.parse(gclogs_dir / "11-epsilon.log")
    cell = Cell(engine="java", jdk=11, collector="epsilon", case="A", strategy="dummy", gc_log=True)
    store.put(CellResult(cell, "ok", 0, "", 1.0, read_run(runs_dir / "java-batch.jsonl"), events))
    loaded = store.load(cell.key).gc_events
    assert list(loaded.columns) == gclog.COLUMNS and len(loaded) == len(events) > 0
    assert loaded.attrs["collector"] == "epsilon" and loaded["cycle"].dtype == bool
    assert store.load(cell.key).run.periodic["warmup"].dtype == bool


def test_every_row_carries_the_fingerprint(tmp_path, runs_dir):
    store = Store(tmp_path)
    store.put(sample_result(runs_dir))
    rows = pq.read_table(store.cells_dir / f"{REALTIME.key}.parquet").to_pandas()
    assert set(FINGERPRINT_FIELDS) <= set(rows.columns)
    assert (rows["cpu_model"] == "AMD EPYC 7B13").all() and (rows["jdk_build"] == "21.0.8+9-LTS").all()
    assert (rows["commit"] == "0123456789ab").all() and rows["vm_flags"].str.contains("-XX:+UseG1GC", regex=False).all()
    assert set(rows["table"]) == {"periodic", "gc", "gclog"}
    index = store.index
    assert index.loc[0, "kernel"] == "Linux 6.1.0-18-amd64" and index.loc[0, "lost_measured"] == 85_000
    assert index.loc[0, "summary_status"] == "ok" and index.loc[0, "collector"] == "g1"
    periodic = store.rows("periodic")
    assert len(periodic) == 6 and (periodic["key"] == REALTIME.key).all() and "cpu_model" in periodic


def test_a_failed_cell_is_stored_with_its_stderr(tmp_path):
    store = Store(tmp_path)
    cell = cpp_cell("A", "pool")
    result = run_cell(cell, store.runs_dir, progress=False,
                      build=lambda c, out, log: [sys.executable, str(FAKE), "crash", *c.engine_args(out)])
    store.put(result)
    entry = store.index.iloc[0]
    assert entry["status"] == "error" and entry["exit_code"] == 134 and entry["error"] == "exit code 134"
    assert "simulated crash" in entry["stderr_tail"] and entry["cpu_model"] == "Fake CPU"
    assert len(store.load(cell.key).run.periodic) == 2


def test_the_index_rows_by_key_follow_every_change(tmp_path, runs_dir):
    store = Store(tmp_path)
    assert store.index_rows() == {}
    store.put(sample_result(runs_dir))
    rows = store.index_rows()
    assert list(rows) == [REALTIME.key] and rows[REALTIME.key]["status"] == "ok"
    assert store.index_rows() is rows  # unchanged index: the same rows, not built again
    other = Cell(engine="java", jdk=21, collector="g1", case="C", strategy="pool", mode="realtime", interval_ns=1000,
                 duration_s=6, warmup_s=2, gc_log=True)
    store.put(sample_result(runs_dir, other))
    assert set(store.index_rows()) == {REALTIME.key, other.key}


def executor(store, run, retry_failed=False):
    """An executor of the ci profile over store whose runs go through run (the fake engine's results)."""
    return Executor(store, PROFILES["ci"], run=run, retry_failed=retry_failed)


def test_an_interrupted_sweep_resumes_with_the_remaining_cells(tmp_path, runs_dir):
    cells = [cpp_cell(case, strategy) for case, strategy in (("A", "pool"), ("A", "mix"), ("B", "pool"), ("B", "mix"))]
    run = read_run(runs_dir / "cpp-realtime.jsonl")
    calls = []

    def interrupted(cell):
        calls.append(cell.key)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return CellResult(cell, "ok", 0, "", 1.0, run)

    with pytest.raises(KeyboardInterrupt):
        executor(Store(tmp_path), interrupted).rows(cells)
    assert len(Store(tmp_path).index) == 2
    resumed = []
    done = executor(Store(tmp_path), lambda cell: resumed.append(cell.key) or CellResult(cell, "ok", 0, "", 1.0, run)).rows(cells)
    assert resumed == [cells[2].key, cells[3].key]
    assert [row["key"] for row in done] == [c.key for c in cells] and {row["status"] for row in done} == {"ok"}


def test_failures_are_skipped_unless_retried(tmp_path, runs_dir):
    cell = cpp_cell("C", "alloc")
    store = Store(tmp_path)
    store.put(CellResult(cell, "timeout", -15, "", 60.0, read_run([])))
    calls = []
    fresh = CellResult(cell, "ok", 0, "", 1.0, read_run(runs_dir / "cpp-realtime.jsonl"))
    assert executor(store, lambda c: calls.append(c) or fresh).row(cell)["status"] == "timeout"
    assert calls == []
    again = executor(store, lambda c: calls.append(c) or fresh, retry_failed=True)
    assert again.row(cell)["status"] == "ok" and again.row(cell)["status"] == "ok"
    assert len(calls) == 1 and len(store.index) == 1


def test_the_index_is_rebuilt_from_the_cell_files(tmp_path, runs_dir):
    store = Store(tmp_path)
    store.put(sample_result(runs_dir))
    store.index_path.unlink()  # as if the sweep died between the cell file and the index
    reopened = Store(tmp_path)
    assert reopened.has(REALTIME.key, ok_only=True) and reopened.index_path.exists()
    (store.cells_dir / f"{REALTIME.key}.parquet").unlink()
    assert not Store(tmp_path).has(REALTIME.key)


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "index.parquet"
    target.write_bytes(b"old")

    def half_then_fail(path):
        path.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, half_then_fail)
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["index.parquet"]
    with pytest.raises(OSError):
        atomic_write(tmp_path / "new.parquet", half_then_fail)
    assert not (tmp_path / "new.parquet").exists()
    atomic_write(target, lambda path: path.write_bytes(b"new"))
    assert target.read_bytes() == b"new" and len(list(tmp_path.iterdir())) == 1


def test_named_stores_keep_raw_files_out_of_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("ALLOC_OR_POOL_HOME", str(tmp_path))
    store = Store.named("sweep-1")
    assert store.root == tmp_path / "data" / "sweep-1" and store.runs_dir == tmp_path / "data" / "runs" / "sweep-1"


def test_a_stored_cell_comes_back_as_its_own_kind(tmp_path, monkeypatch):
    from dataclasses import dataclass
    from typing import ClassVar

    from allocorpool import kinds

    @dataclass(frozen=True)
    class ProgramCell:
        kind: ClassVar[str] = "program"
        variant: str
        depth: int

        @property
        def key(self) -> str:
            return f"program_{self.variant}_{self.depth}"

        def params(self) -> dict:
            return {"variant": self.variant, "depth": self.depth}

    monkeypatch.setitem(kinds._KINDS, "program", ProgramCell)  # registered for this test only
    cell = ProgramCell("c-glibc", 12)
    store = Store(tmp_path)
    store.put(CellResult(cell, "ok", 0, "", 0.5, read_run(['{"type": "header", "schema": 1}',
                                                           '{"type": "summary", "status": "ok"}'])))
    loaded = Store(tmp_path).load(cell.key)
    assert loaded.cell == cell and loaded.status == "ok"
    assert Store(tmp_path).index.set_index("key").loc[cell.key, "cell_kind"] == "program"
    with pytest.raises(ValueError, match="unknown cell kind 'nope'; known: binary-trees, engine, event-echo, program"):
        kinds.cell_class("nope")


def test_a_second_process_cannot_run_cells_into_a_taken_store(tmp_path):
    import subprocess
    import time

    from allocorpool.data.store import StoreBusy

    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path\n"
                               "from allocorpool.data.store import Store\n"
                               f"Store(Path({str(tmp_path)!r})).lock_for_runs(); print('taken', flush=True)\n"
                               "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "taken"
        with pytest.raises(StoreBusy, match=rf"taken by another sweep \(pid {holder.pid}, .*ALLOC_OR_POOL_DATA"):
            Store(tmp_path).lock_for_runs()
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    Store(tmp_path).lock_for_runs()  # free again once the holder is gone


def test_nothing_to_run_on_an_empty_store(tmp_path):
    assert executor(Store(tmp_path), lambda cell: 1 / 0).rows([]) == []
