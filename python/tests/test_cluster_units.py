"""What running on a cluster asks of the store and the sweep, without a cluster: cells stored from several
threads at once, the store taken from several threads, the worker's fingerprint kept, one cell never run
by two threads, the machine column, and the cluster's progress line."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from allocorpool import study
from allocorpool.data import tables
from allocorpool.data.records import read_run
from allocorpool.data.store import Store
from allocorpool.machine import host_fingerprint
from allocorpool.run import executor, sweep
from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime
from allocorpool.run.cluster import Progress
from allocorpool.run.runner import Cell, CellResult, run_cell
from allocorpool.study import SOLUTIONS_BY_NAME

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
TINY = replace(study.PROFILES["ci"], name="tiny", cases=("A",), solutions=("flat-glibc",), strict=False,
               search=study.SearchPlan(high_ns=2000, longest_probe_s=2, confirm=False))


def cpp_cell(strategy: str, duration_s: float = 0.5) -> Cell:
    return Cell(engine="cpp", design="flat", allocator="glibc", case="A", strategy=strategy, duration_s=duration_s,
                warmup_s=0.1)


def test_cells_that_finish_at_once_are_all_stored(tmp_path, runs_dir):
    store = Store(tmp_path)
    run = read_run(runs_dir / "cpp-realtime.jsonl")
    results = [CellResult(cpp_cell("pool", duration_s=0.5 + i / 100), "ok", 0, "", 1.0, run) for i in range(32)]
    start = threading.Barrier(8)

    def put(chunk: list[CellResult]) -> None:
        start.wait()
        for result in chunk:
            store.put(result)
    threads = [threading.Thread(target=put, args=(results[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    keys = {result.cell.key for result in results}
    assert set(store.index["key"]) == keys and len(store.index) == 32
    assert set(Store(tmp_path).index["key"]) == keys  # the index file too


def test_threads_of_one_sweep_take_its_store_together(tmp_path):
    from allocorpool.data import store as store_module

    start = threading.Barrier(8)
    errors = []

    def take() -> None:
        start.wait()
        try:
            Store(tmp_path).lock_for_runs()
        except Exception as error:  # noqa: BLE001 - the test reports any
            errors.append(error)
    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and tmp_path.resolve() in store_module._RUNS_LOCKS


def test_a_result_from_a_worker_keeps_that_machines_fingerprint(tmp_path):
    store = Store(tmp_path)
    worker = {**host_fingerprint(), "host": "worker-7", "cpu_model": "Worker CPU", "cpus": 64}
    crashed = CellResult(cpp_cell("mix"), "error", None, "refused", 0.0, read_run([]), fingerprint=worker, attempts=2)
    store.put(crashed)
    row = store.index.iloc[0]
    assert (row["host"], row["cpu_model"], row["cpus"], row["attempts"]) == ("worker-7", "Worker CPU", 64, 2)
    assert store.load(crashed.cell.key).fingerprint["host"] == "worker-7"
    assert store.rows("periodic").empty
    here = CellResult(cpp_cell("pool"), "error", None, "", 0.0, read_run([]))
    store.put(here)
    assert store.index.set_index("key").loc[here.cell.key, "host"] == host_fingerprint()["host"]


def test_one_cell_asked_by_two_threads_runs_once(tmp_path, monkeypatch):
    runs, behaviour = [], ["error"]

    def fake_run(cell, workdir, **options):
        runs.append(cell.key)
        time.sleep(0.3)  # both threads ask while it runs
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour[0], *c.engine_args(out)])

    def ask_twice(chapter: sweep.Sweep, cell: Cell) -> list[str]:
        rows = []
        threads = [threading.Thread(target=lambda: rows.append(chapter.executor.row(cell))) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return [row["status"] for row in rows]

    monkeypatch.setattr(executor, "run_cell", fake_run)
    cell = study.batch_cell(SOLUTIONS_BY_NAME["flat-glibc"], "pool", "A", TINY)
    assert ask_twice(sweep.Sweep(TINY, tmp_path, progress=False), cell) == ["error", "error"] and runs == [cell.key]
    behaviour[0] = "ok"  # the failure is retried once, not once per thread
    assert ask_twice(sweep.Sweep(TINY, tmp_path, progress=False, retry_failed=True), cell) == ["ok", "ok"]
    assert runs == [cell.key, cell.key]


def test_the_tables_name_the_machine_of_each_row(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "run_cell", lambda cell, workdir, **options: run_cell(
        cell, workdir, **options, build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out)]))
    chapter = sweep.Sweep(TINY, tmp_path, progress=False)
    flat = SOLUTIONS_BY_NAME["flat-glibc"]
    batch, searches = measure_batch.batch(chapter.executor, [flat]), measure_realtime.realtime(chapter.executor, [flat])
    assert batch.columns[-1] == "machine" and set(batch["machine"]) == {"Fake CPU, 2 CPUs"}
    assert set(searches.table["machine"]) == set(searches.probes["machine"]) == {"Fake CPU, 2 CPUs"}
    assert tables.machine_names([{"cpu_model": "A", "cpus": 2}, {"cpu_model": "B", "cpus": 8.0}, {"status": "missing"}]) \
        == "A, 2 CPUs + B, 8 CPUs"  # a search whose probes ran on two machines says so
    replayed = measure_batch.batch(sweep.Sweep(TINY, tmp_path / "empty", progress=False, replay=True).executor, [flat])
    assert replayed["machine"].isna().all()


def test_the_progress_line_counts_the_phase_and_shows_each_workers_cell():
    lines = []
    progress = Progress(lines.append)
    progress.begin(3, "searches")
    progress.started((0.0, {"task": "a attempt 1", "cell": "a", "name": "w1"}))
    progress.started((0.0, {"task": "b attempt 1", "cell": "b", "name": "w2"}))
    assert "0/3 searches done" in lines[-1] and "w1: a (0 s), w2: b (0 s)" in lines[-1]
    assert lines[-1].endswith("time left not known yet")
    tracked = progress.track(lambda item: progress.finished(f"{item} attempt 1", item, "w1", "ok"))
    tracked("a")
    assert lines[-1] == "1/3 searches done; 1 cell runs (0 failed or refused); running: w2: b (0 s); about 0.0 min left"
    progress.finished("b attempt 1", "b", "w2", "timeout")
    assert lines[-1] == "b: timeout on w2; 1/3 searches done; 2 cell runs (1 failed or refused); running: nothing; " \
        "about 0.0 min left"
    progress.started((0.0, {"task": "a attempt 1", "cell": "a", "name": "w1"}))  # came after its result
    assert "w1" not in progress._running
