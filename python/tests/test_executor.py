"""executor.py: the one door for cells (rows) and for blocks (measure), on a fake run function (no engine):
a cell is run once and read back after, a replay runs nothing, a failure runs again once when failures are
retried, a build that measures the same stands for this one, and a block's runs are made once per boot."""

from dataclasses import replace

import pytest

from allocorpool import lists, study
from allocorpool.data.records import MISSING, CellResult, read_run
from allocorpool.data.store import Store
from allocorpool.run import blocks
from allocorpool.run.executor import Executor
from allocorpool.run.progress import Progress
from allocorpool.run.runner import Cell

PROFILE = replace(study.PROFILES["ci"], name="executor", strict=False)
CELL = Cell(engine="cpp", design="flat", allocator="glibc", case="A", strategy="pool", duration_s=0.5, warmup_s=0.1,
            build="aaaaaaaaaaaa")


class Engine:
    """A fake engine: each run's status by key ("ok" unless set), every run listed."""

    def __init__(self) -> None:
        self.statuses: dict[str, str] = {}
        self.ran: list[str] = []

    def __call__(self, cell: Cell) -> CellResult:
        self.ran.append(cell.key)
        status = self.statuses.get(cell.key, "ok")
        lines = ['{"type": "header", "schema": 1}', f'{{"type": "summary", "status": "{status}"}}']
        return CellResult(cell, "ok" if status == "ok" else "error", 0 if status == "ok" else 1,
                          "" if status == "ok" else "it failed", 1.0, read_run(lines))


def executor(store: Store, engine: Engine, **options) -> Executor:
    return Executor(store, PROFILE, run=engine, progress=Progress(False, PROFILE.name), slots=1,
                    calibrate=lambda: {"reference_ns_per_packet": 1.0}, boot_id=lambda: "b00t", **options)


def test_a_cell_runs_once_and_is_read_back_after_in_the_cells_order(tmp_path):
    engine = Engine()
    cells = [CELL, replace(CELL, strategy="mix"), replace(CELL, case="B")]
    first = executor(Store(tmp_path), engine).rows(cells)
    assert [row["key"] for row in first] == [cell.key for cell in cells] and {row["status"] for row in first} == {"ok"}
    assert engine.ran == [cell.key for cell in cells]
    again = executor(Store(tmp_path), engine)
    assert [row["key"] for row in again.rows(reversed(cells))] == [cell.key for cell in reversed(cells)]
    assert len(engine.ran) == 3 and again.progress.ran == 0 and again.progress.cells_read() == sorted(c.key for c in cells)


def test_a_replay_runs_nothing_shows_the_newest_of_a_measurement_and_notes_what_it_lacks(tmp_path):
    engine = Engine()
    older = replace(CELL, build="bbbbbbbbbbbb")
    executor(Store(tmp_path), engine).rows([older])
    replay = executor(Store(tmp_path), engine, replay=True)
    shown, lacking = replay.rows([CELL, replace(CELL, case="C")])
    assert shown["key"] == older.key and shown["status"] == "ok"  # another build's run of the same measurement
    assert lacking["status"] == MISSING and engine.ran == [older.key]
    assert replay.progress.failures()["key"].tolist() == [replace(CELL, case="C").key]  # a strict chapter fails
    assert replay.progress.cells_read() == [older.key]
    assert replay.measure([blocks.Block("b", (CELL,), 2)])[0].empty and engine.ran == [older.key]


def test_a_failure_is_kept_and_runs_again_once_when_failures_are_retried(tmp_path):
    engine = Engine()
    engine.statuses[CELL.key] = "error"
    assert executor(Store(tmp_path), engine).row(CELL)["status"] == "error"
    assert executor(Store(tmp_path), engine).row(CELL)["status"] == "error" and len(engine.ran) == 1  # kept
    retrying = executor(Store(tmp_path), engine, retry_failed=True)
    assert retrying.row(CELL)["status"] == "error" and retrying.row(CELL)["status"] == "error"
    assert len(engine.ran) == 2  # once per executor
    engine.statuses.clear()
    assert executor(Store(tmp_path), engine, retry_failed=True).row(CELL)["status"] == "ok" and len(engine.ran) == 3
    assert Store(tmp_path).row(CELL.key)["attempts"] == 3  # the runs it took: two failures, then this one


def test_a_search_asks_for_a_probes_second_attempt_once(tmp_path):
    engine = Engine()
    engine.statuses[CELL.key] = "error"
    ex = executor(Store(tmp_path), engine)
    ex.row(CELL)
    assert ex.row(CELL, retry_failure=True)["attempts"] == 2
    assert ex.row(CELL, retry_failure=True)["attempts"] == 2 and len(engine.ran) == 2  # the store counts them


def test_a_build_that_measures_the_same_stands_for_this_one_failures_too(tmp_path, monkeypatch):
    engine = Engine()
    listed, unlisted = replace(CELL, build="bbbbbbbbbbbb"), replace(CELL, build="cccccccccccc")
    engine.statuses[listed.key] = "error"
    executor(Store(tmp_path), engine).rows([listed, unlisted])
    monkeypatch.setitem(lists.SAME_MEASUREMENT_BUILDS, "cpp", {"bbbbbbbbbbbb": "the same instructions"})
    row = executor(Store(tmp_path), engine).row(CELL)
    assert row["key"] == listed.key and row["status"] == "error" and len(engine.ran) == 2  # not run under this build
    block = blocks.Block("b", (CELL,), 1)
    assert executor(Store(tmp_path), engine).stored(block.runs("b00t")[0]) is None  # a block's run has its boot
    monkeypatch.setitem(lists.SAME_MEASUREMENT_BUILDS, "cpp", {})
    assert executor(Store(tmp_path), engine).row(CELL)["key"] == CELL.key and len(engine.ran) == 3


def test_a_block_is_measured_once_per_boot_calibrated_at_its_start_and_read_back(tmp_path):
    engine = Engine()
    block = blocks.Block("batch, flat-glibc, case A", (CELL, replace(CELL, strategy="alloc")), 3)
    ex = executor(Store(tmp_path), engine)
    assert ex.pending(block)
    runs = ex.measure([block])[0]
    assert sorted(engine.ran) == sorted(cell.key for cell in block.runs("b00t")) and len(engine.ran) == 6
    assert runs["complete"].all() and set(runs["boot"]) == {"b00t"} and (runs["status"] == "ok").all()
    register = Store(tmp_path).table(blocks.BLOCKS_TABLE)
    assert register[["boot", "reference_ns_per_packet"]].values.tolist() == [["b00t", 1.0]]
    assert register["finished_utc"].notna().all()
    again = executor(Store(tmp_path), engine)
    assert not again.pending(block) and len(again.measure([block, block])[1]) == 6 and len(engine.ran) == 6
    longer = replace(block, repetitions=4)  # more repetitions extend the same block in the same boot
    assert len(executor(Store(tmp_path), engine).measure([longer])[0]) == 8 and len(engine.ran) == 8


def test_a_blocks_failed_run_runs_again_once_when_failures_are_retried(tmp_path):
    engine = Engine()
    block = blocks.Block("b", (CELL,), 2)
    failing = block.runs("b00t")[1].key
    engine.statuses[failing] = "error"
    executor(Store(tmp_path), engine).measure([block])
    executor(Store(tmp_path), engine).measure([block])
    assert engine.ran.count(failing) == 1
    retrying = executor(Store(tmp_path), engine, retry_failed=True)
    retrying.measure([block])
    retrying.measure([block])
    assert engine.ran.count(failing) == 2 and len(engine.ran) == 3


def test_an_interrupted_block_resumes_where_it_stopped(tmp_path):
    engine = Engine()
    block = blocks.Block("b", (CELL, replace(CELL, strategy="alloc")), 2)

    def stopping(cell):
        if len(engine.ran) == 3:
            raise KeyboardInterrupt("the session ended")
        return engine(cell)
    with pytest.raises(KeyboardInterrupt):
        Executor(Store(tmp_path), PROFILE, run=stopping, slots=1, calibrate=dict, boot_id=lambda: "b00t").measure([block])
    assert len(Store(tmp_path).index) == 3
    runs = executor(Store(tmp_path), engine).measure([block])[0]
    assert len(engine.ran) == 4 and runs["complete"].all()


def test_the_experiments_receive_the_executor_and_the_sweep_delegates_to_none_of_them():
    """Composition: nothing extends the executor, and the sweep a notebook holds has no method of an experiment's
    name: a chapter calls the experiment, a function of run.experiments, with sweep.executor."""
    import inspect
    import pkgutil
    from importlib import import_module

    from allocorpool.run import experiments, sweep

    assert Executor.__subclasses__() == []
    modules = [import_module(f"{experiments.__name__}.{m.name}") for m in pkgutil.iter_modules(experiments.__path__)]
    functions = {name for module in modules for name, f in inspect.getmembers(module, inspect.isfunction)
                 if f.__module__ == module.__name__ and not name.startswith("_")}
    assert {"batch", "realtime", "across_jdks", "sentinels", "threads", "gc_table"} <= functions
    methods = {name for name, _ in inspect.getmembers(sweep.Sweep, inspect.isfunction)}
    assert methods & functions == set()
