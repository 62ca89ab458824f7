"""Blocks side by side (run.slots): the CPU slots, and blocks measured at once on a local Dask cluster whose
workers each own a slot, against the same blocks measured one after the other, on the fake engine
(fixtures/cluster_fake.py, imported by the workers). Two slots are forced: on a machine of two CPUs they
have one CPU each. The tests that start the cluster are marked `cluster` (`make test-cluster` runs them)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))  # the workers import it too (they get this process's sys.path)

from cluster_fake import FakeCommand, placed  # noqa: E402

from allocorpool import effects, machine, settings, study  # noqa: E402
from allocorpool.data.store import Store  # noqa: E402
from allocorpool.run import blocks, calibration, executor, interference, machine_check, slots, sweep  # noqa: E402
from allocorpool.run.experiments import batch as measure_batch  # noqa: E402
from allocorpool.run.runner import run_cell  # noqa: E402

FLAT = study.SOLUTIONS_BY_NAME["flat-glibc"]
# Two batch blocks (cases A and B: every strategy, twice each) and two real-time blocks
PROFILE = replace(study.PROFILES["ci"], name="slots", cases=("A", "B"), solutions=("flat-glibc",), strict=False,
                  blocks=study.BlockPlan(repetitions=2, probe_repetitions=2))
PLAN = {"mix batch": "error"}  # a cell that fails in every run, wherever it runs
BATCH_COLUMNS = ["solution", "strategy", "case", "key", "status", "error", "runs", "failed_runs", "ns_per_packet"]
PROBE_COLUMNS = ["solution", "strategy", "case", "probes", "lossy", "failed", "keeps_up", "keys"]


def same_rows(table, other, columns) -> bool:
    """The same rows in the same order (lists as tuples, NaN equal to NaN)."""
    def comparable(frame):
        return frame[columns].map(lambda v: tuple(v) if isinstance(v, list) else v)
    return comparable(table).equals(comparable(other))


pytestmark = pytest.mark.own_memory_latency  # latency_known below, for the tests and the module's fixtures alike


@pytest.fixture(autouse=True, scope="module")
def latency_known():
    """The calibration's memory latency, without its program (the reference cell runs the fake engine)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 150.0))
        patch.setattr(calibration, "_latency_cache", {})
        yield


def cells_of(store: Store) -> set[tuple[str, str]]:
    return set(store.index[["key", "status"]].itertuples(index=False, name=None))


def batch_blocks(prof=PROFILE) -> list[blocks.Block]:
    return [study.batch_block(FLAT, case, prof) for case in prof.cases]


def test_the_cpu_slots_pair_the_cpus_from_four_and_a_forced_number_takes_one_cpu_each_where_two_do_not_fit(
        monkeypatch):
    monkeypatch.delenv(settings.SLOTS_VARIABLE, raising=False)
    assert slots.cpu_slots(cpus=range(16)) == [(i, i + 1) for i in range(0, 16, 2)]  # 8 blocks at once
    assert slots.cpu_slots(cpus=[0, 1, 2]) == [(0, 1, 2)]  # below 4 CPUs: one slot, blocks one after the other
    assert slots.cpu_slots(cpus=[2, 3, 5, 7, 9]) == [(2, 3), (5, 7)]  # the affinity's CPUs; an odd one left over
    assert slots.cpu_slots(2, cpus=[0, 1]) == [(0,), (1,)]
    assert slots.cpu_slots(2, cpus=range(8)) == [(0, 1), (2, 3)]
    assert slots.cpu_slots(1, cpus=range(8)) == [tuple(range(8))]
    monkeypatch.setenv(settings.SLOTS_VARIABLE, "3")
    assert slots.cpu_slots(cpus=range(4)) == [(0,), (1,), (2,)]
    with pytest.raises(ValueError, match=r"5 slots \(ALLOC_OR_POOL_SLOTS, make's SLOTS\): 1 to 4"):
        slots.cpu_slots(5, cpus=range(4))
    monkeypatch.setenv(settings.SLOTS_VARIABLE, "two")
    with pytest.raises(ValueError, match="ALLOC_OR_POOL_SLOTS='two': a number of slots"):
        slots.cpu_slots(cpus=range(4))


def test_one_slot_runs_the_blocks_one_after_the_other_here_without_a_cluster(tmp_path, monkeypatch):
    def no_cluster(*args, **options):
        raise AssertionError("one slot starts no cluster")
    monkeypatch.setattr(slots, "Slots", no_cluster)
    monkeypatch.setattr(executor, "run_cell", lambda cell, workdir, **options: run_cell(
        cell, workdir, **options, build=FakeCommand(str(tmp_path / "plan.json"), str(tmp_path / "runs.log"))))
    prof = replace(PROFILE, blocks=study.BlockPlan(repetitions=1))
    table = measure_batch.batch(sweep.Sweep(prof, tmp_path / "store", progress=False, slots=1).executor, [FLAT])
    assert (table["status"] == "ok").all() and (table["runs"] == 1).all() and set(table["case"]) == {"A", "B"}
    starts = [run.start for run in placed(tmp_path / "runs.log")]
    assert starts == sorted(starts) and {run.worker for run in placed(tmp_path / "runs.log")} == {"local"}


def test_the_interference_measurement_sets_each_cell_side_by_side_beside_itself_alone(tmp_path):
    class InProcess:  # two slots whose runs run here: the measurement asks slots for their CPUs and runs only
        cpus = [(0,), (1,)]

        def run(self, cell, slot, workdir):
            return run_cell(cell, workdir, progress=False, build=FakeCommand(str(tmp_path / "plan.json"),
                                                                             str(tmp_path / "runs.log")))
    two = [blocks.Block(f"batch, flat-glibc, case {case}", tuple(
        study.batch_cell(FLAT, strategy, case, PROFILE) for strategy in ("alloc", "pool")), 2) for case in "AB"]
    table = interference.measure(two, InProcess(), tmp_path / "interference")
    assert list(table["strategy"]) == ["alloc", "pool"] * 2 and list(table["block"]) == [two[0].name] * 2 + [
        two[1].name] * 2
    assert (table["ratio"] == 1.0).all() and (table["alone_ns"] == 100.0).all()  # the fake engine has no neighbours
    assert set(table["runs"]) == {"2 alone, 2 beside"} and len(placed(tmp_path / "runs.log")) == 16
    verdicts = interference.verdicts(two, tmp_path / "interference")  # read back from the stores: nothing runs
    assert list(verdicts["comparison"]) == ["pool / alloc"] * 2 and len(placed(tmp_path / "runs.log")) == 16
    assert verdicts["same"].all() and set(verdicts["outcome_alone"]) == {effects.NO_DIFFERENCE}


@pytest.fixture(scope="module")
def two_slots(tmp_path_factory):
    """Two slots of a local Dask cluster running the fake engine by plan.json; the log of every run."""
    folder = tmp_path_factory.mktemp("slots")
    running = slots.Slots(slots.cpu_slots(2), command=FakeCommand(str(folder / "plan.json"), str(folder / "runs.log")))
    yield running, folder
    running.close()


def fresh(folder: Path, plan: dict) -> Path:
    """A plan for the next sweep on the slots, and an empty log."""
    (folder / "plan.json").write_text(json.dumps(plan))
    (folder / "runs.log").write_text("")
    return folder / "runs.log"


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The PROFILE's batch and real-time blocks by PLAN, one after the other here: the store and the tables."""
    folder = tmp_path_factory.mktemp("serial")
    (folder / "plan.json").write_text(json.dumps(PLAN))
    command = FakeCommand(str(folder / "plan.json"), str(folder / "runs.log"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(executor, "run_cell", lambda cell, workdir, **options: run_cell(cell, workdir, **options,
                                                                                     build=command))
        alone = sweep.Sweep(PROFILE, folder / "store", progress=False, slots=1)
        batch = measure_batch.batch(alone.executor, [FLAT])
        return alone.store, batch, measure_batch.probe_blocks(alone.executor, [FLAT], interval_ns=1000)


def assert_side_by_side(log: Path, measured: list[blocks.Block], running: slots.Slots) -> None:
    """Each block's runs all in one slot (one worker, one set of CPUs), the slots' CPUs apart, and the blocks
    at the same time: each one's first run started before the other's last."""
    boot = machine.short_boot(machine.boot_id())
    runs = placed(log)
    where, starts = [], []
    for block in measured:
        keys = {cell.key for cell in block.runs(boot)}
        mine = [run for run in runs if run.key in keys]
        assert {run.key for run in mine} == keys
        where.append({(run.worker, run.cpus) for run in mine})
        starts.append([run.start for run in mine])
    assert all(len(places) == 1 for places in where)
    cpus = [set(next(iter(places))[1].split(",")) for places in where]
    assert not cpus[0] & cpus[1] and {",".join(map(str, c)) for c in running.cpus} == {
        next(iter(places))[1] for places in where}
    assert max(min(s) for s in starts) < min(max(s) for s in starts)


@pytest.mark.cluster
def test_blocks_side_by_side_run_at_once_each_in_its_own_slot_and_store_what_one_after_the_other_stores(
        two_slots, serial, tmp_path):
    running, folder = two_slots
    serial_store, serial_batch, serial_probes = serial
    log = fresh(folder, PLAN)
    chapter = sweep.Sweep(PROFILE, tmp_path / "store", progress=False, slots=running)
    batch = measure_batch.batch(chapter.executor, [FLAT])
    assert_side_by_side(log, batch_blocks(), running)
    fresh(folder, PLAN)
    probes = measure_batch.probe_blocks(chapter.executor, [FLAT], interval_ns=1000)
    assert_side_by_side(log, [study.probe_block(FLAT, case, PROFILE, 1000) for case in PROFILE.cases], running)
    assert cells_of(chapter.store) == cells_of(serial_store) and len(serial_store.index) == 2 * 8 + 2 * 6
    assert {status for _, status in cells_of(serial_store)} == {"ok", "error"}
    assert same_rows(batch, serial_batch, BATCH_COLUMNS) and same_rows(probes, serial_probes, PROBE_COLUMNS)
    register = chapter.store.table(blocks.BLOCKS_TABLE)  # every block registered, calibrated in its slot, finished
    assert len(register) == 4 and register["finished_utc"].notna().all()
    assert (register["reference_status"] == "ok").all() and (register["load_ns_16mib"] == 150.0).all()
    # the lanes' reference runs, made at once, never share a file (one lane's run once removed the other's output)
    calibrations = chapter.store.runs_dir / "calibration"
    assert sorted(p.name for p in calibrations.iterdir()) == ["slot-0", "slot-1"]


@pytest.mark.cluster
def test_a_worker_that_dies_mid_block_loses_nothing_and_the_block_goes_on_in_its_slot(two_slots, serial, tmp_path):
    running, folder = two_slots
    serial_store, serial_batch, _ = serial
    boot = machine.short_boot(machine.boot_id())
    second = batch_blocks()[1]
    victim = next(cell for cell in second.runs(boot)[3:] if cell.strategy == "pool").key  # mid-block
    log = fresh(folder, {**PLAN, victim: ["kill-worker", "ok"]})
    chapter = sweep.Sweep(PROFILE, tmp_path / "store", progress=False, slots=running)
    batch = measure_batch.batch(chapter.executor, [FLAT])
    assert same_rows(batch, serial_batch, BATCH_COLUMNS)
    stored = Store(tmp_path / "store")
    assert cells_of(stored) == {row for row in cells_of(serial_store) if "_batch_" in row[0]}
    keys = {cell.key for block in batch_blocks() for cell in block.runs(boot)}
    ran = Counter(run.key for run in placed(log) if run.key in keys)
    assert ran == {key: 1 + (key == victim) for key, _ in cells_of(stored)}  # the runs before it were kept
    killed = [run for run in placed(log) if run.key == victim]
    assert len(killed) == 2 and killed[0].worker == killed[1].worker and killed[0].cpus == killed[1].cpus
    assert killed[0].pid != killed[1].pid  # the nanny started the slot's worker again; the cell ran there
    assert_side_by_side(log, batch_blocks(), running)
