"""sweep.py: cells run through the store once, searches replayed from their probes, failures kept."""

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from allocorpool import study
from allocorpool.run import sweep
from allocorpool.run.runner import run_cell
from allocorpool.study import SOLUTIONS_BY_NAME

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"  # loses ticks below 437 ns
TINY = replace(study.PROFILES["ci"], name="tiny", cases=("A",), solutions=("flat-glibc",),
               search=study.SearchPlan(low_ns=100, high_ns=2000, tolerance_ns=10, relative_tolerance=0.5,
                                       confirmations=0, low_from_batch=True, reference_only_if_lost=True))
FLAT = SOLUTIONS_BY_NAME["flat-glibc"]


@pytest.fixture
def engine(monkeypatch):
    """The fake engine in place of the real ones: behaviour per strategy, every run counted."""
    behaviours, runs = {}, []

    def fake_run(cell, workdir, **options):
        runs.append(cell)
        behaviour = behaviours.get((cell.strategy, cell.mode), "ok")
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])

    monkeypatch.setattr(sweep, "run_cell", fake_run)
    return behaviours, runs


def test_batch_cells_run_once_and_failures_are_kept(tmp_path, engine):
    behaviours, runs = engine
    behaviours[("mix", "batch")] = "error"
    first = sweep.Sweep(TINY, tmp_path, progress=False).batch([FLAT])
    assert list(first["strategy"]) == list(study.STRATEGIES) and len(runs) == 4
    assert first.set_index("strategy").loc["pool", "ns_per_packet"] == 100000.0
    failed = first[first["status"] != "ok"]
    assert list(failed["strategy"]) == ["mix"] and failed["error"].iloc[0] == "pool conservation check failed"
    assert failed["ns_per_packet"].isna().all()
    again = sweep.Sweep(TINY, tmp_path, progress=False).batch([FLAT])
    assert len(runs) == 4 and again["status"].tolist() == first["status"].tolist()  # all from the store
    retried = sweep.Sweep(TINY, tmp_path, progress=False, retry_failed=True).batch([FLAT])
    assert len(runs) == 5 and retried["status"].tolist() == first["status"].tolist()  # the failure ran again


def test_a_search_finds_the_boundary_and_replays_from_the_store(tmp_path, engine):
    _, runs = engine
    searches = sweep.Sweep(TINY, tmp_path, progress=False).realtime([FLAT])
    table = searches.table.set_index("strategy")
    assert list(table.index) == list(study.REALTIME_STRATEGIES)
    assert (table["outcome"] == "found").all()
    assert table["interval_ns"].between(437, 437 * 1.5).all()
    assert table["loss_pct"].isna().all()  # a loss-free interval exists: 1000 ns is not probed
    assert len(searches.probes) == table["probes"].sum() and set(searches.probes["purpose"]) <= {
        "bound", "bisect", "start"}
    count = len(runs)
    replay = sweep.Sweep(TINY, tmp_path, progress=False).realtime([FLAT])
    assert len(runs) == count and replay.table["interval_ns"].tolist() == searches.table["interval_ns"].tolist()


def test_lost_everywhere_and_failed_searches(tmp_path, engine):
    behaviours, _ = engine
    behaviours[("alloc", "realtime")] = "crash"
    narrow = replace(TINY, search=replace(TINY.search, high_ns=400))  # the fake engine loses below 437 ns
    table = sweep.Sweep(narrow, tmp_path, progress=False).realtime([FLAT]).table.set_index("strategy")
    assert table.loc["alloc", "outcome"] == "failed" and table.loc["alloc", "error"] == "exit code 134"
    assert "simulated crash" in table.loc["alloc", "stderr_tail"]
    assert table.loc["pool", "outcome"] == "lost" and table.loc["pool", "loss_pct"] == 0.0  # probed at 1000 ns
    assert table.loc["pool", "big_heap"] is None  # C++ has no heap


def test_the_profile_and_data_folder_come_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(sweep.PROFILE_VARIABLE, "ci")
    monkeypatch.setenv(sweep.DATA_VARIABLE, str(tmp_path / "data"))
    chosen = sweep.Sweep(progress=False)
    assert chosen.profile.name == "ci" and chosen.store.root == tmp_path / "data"
    assert [s.name for s in chosen.solutions("cpp")] == ["cpp-glibc", "flat-glibc", "flat-jemalloc"]
    assert chosen.machine().empty
