"""machine_check.py: a sweep records and says how fast this boot runs against the store; it never refuses."""

import json
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import machine, study
from allocorpool.run import executor, machine_check, sweep
from allocorpool.run.runner import run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"  # "ok": 100 ns per packet, "slow": 200
CHECKED = replace(study.PROFILES["ci"], name="checked", solutions=("flat-glibc",), strict=False, machine_check=True)
FLAT = study.SOLUTIONS_BY_NAME["flat-glibc"]
NOW = datetime(2026, 11, 26, 5, 0, tzinfo=timezone.utc)


@pytest.fixture
def engine(monkeypatch):
    """The fake engine for every run, its behaviour per strategy (ok unless set); the runs listed. The
    machine check compares flat-glibc's allocation A batch cell."""
    behaviours, runs = {}, []

    def fake_run(cell, workdir, **options):
        runs.append(cell.key)
        behaviour = behaviours.get(cell.strategy, "ok")
        return run_cell(cell, workdir, **options,
                        build=lambda c, out, log: [sys.executable, str(FAKE), behaviour, *c.engine_args(out)])

    monkeypatch.setattr(executor, "run_cell", fake_run)
    monkeypatch.setattr(machine_check, "REFERENCE_CELLS", (("flat-glibc", "alloc", "A"),))
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict(LOADS))
    monkeypatch.delenv(machine_check.MACHINE_CHECK_VARIABLE, raising=False)
    # this host as the fake engine's header describes its machine: the stored runs are this machine's
    monkeypatch.setattr(machine, "host_fingerprint", lambda: {**REAL_FINGERPRINT(), **FAKE_MACHINE})
    return behaviours, runs


REAL_FINGERPRINT = machine.host_fingerprint
LOADS = {"load_ns_16mib": 131.0, "load_ns_1024mib": 323.0}  # "vm" in the boot its check refused
FAKE_MACHINE = {"cpu_model": "Fake CPU", "cpus": 2, "memory_bytes": 1 << 30,
                "kernel": "Linux 6.1.0-fake"}


def _reference_key() -> str:
    return study.batch_cell(FLAT, "alloc", "A", CHECKED).key


def _single(strategy: str, repetition: int = 0, source: str = "counter"):
    return study.batch_cell(FLAT, strategy, "A", CHECKED, source, repetition=repetition)


def test_a_slower_boot_is_recorded_and_said_and_the_sweep_runs_on(tmp_path, engine, capsys):
    behaviours, runs = engine
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("alloc"))  # an empty store: nothing to compare
    assert not (tmp_path / machine_check.CHECKS_FILE).exists() and runs == [_reference_key()]
    behaviours["alloc"] = "slow"  # the reference cell now takes twice as long per packet
    slower = sweep.Sweep(CHECKED, tmp_path, progress=False)
    row = slower.executor.row(_single("pool", source="random"))
    assert row["status"] == "ok" and runs[1:] == [_reference_key(), _single("pool", source="random").key]
    said = capsys.readouterr().err
    assert "note: this machine does not run now at the speed" in said and "(2.00 x)" in said
    assert "131 ns over 16 MiB and 323 ns over 1 GiB" in said and "The sweep runs on and measures this boot" in said
    slower.executor.row(_single("mix", source="random"))  # checked once per sweep
    assert runs[3:] == [_single("mix", source="random").key]
    checks = machine_check.checks(tmp_path)
    assert checks[["key", "stored_ns_per_packet", "ns_per_packet", "passed", *machine_check.LATENCY_COLUMNS]
                  ].values.tolist() == [[_reference_key(), 100.0, 200.0, False, 131.0, 323.0]]
    assert "found this boot at another speed (recorded; the sweep ran)" in machine_check.last_check(tmp_path)
    stored = sweep.Sweep(CHECKED, tmp_path, progress=False).store.index.set_index("key")
    assert stored.loc[_reference_key(), "ns_per_packet"] == 100.0  # the check's run does not replace it


def test_a_passing_check_holds_for_the_boot(tmp_path, engine):
    _, runs = engine
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("alloc"))
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("pool", 1))
    assert runs[1:] == [_reference_key(), _single("pool", 1).key]
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("pool", 2))
    assert runs[3:] == [_single("pool", 2).key]  # a later sweep of this boot trusts the pass
    assert machine_check.checks(tmp_path)["passed"].tolist() == [True]


def test_another_machine_is_told_and_not_checked_again(tmp_path, engine, monkeypatch):
    behaviours, runs = engine
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("alloc"))
    behaviours["alloc"] = "slow"
    monkeypatch.setattr(machine, "host_fingerprint",  # another kernel: the tables name the two machines apart
                        lambda: {**REAL_FINGERPRINT(), **FAKE_MACHINE, "kernel": "Linux 6.2.0-other"})
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("pool", 1))
    assert runs[1:] == [_reference_key(), _single("pool", 1).key]
    assert machine_check.checks(tmp_path)[["same_machine", "passed"]].values.tolist() == [[False, False]]
    assert "failed against another machine's runs: " in machine_check.last_check(tmp_path)
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("pool", 2))
    assert len(runs) == 4  # nothing differed on this machine: this boot's next sweep does not check again


def test_off_and_the_profiles_without_a_check_do_not_check(tmp_path, engine, monkeypatch):
    behaviours, runs = engine
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("alloc"))
    behaviours["alloc"] = "slow"
    monkeypatch.setenv(machine_check.MACHINE_CHECK_VARIABLE, "off")
    sweep.Sweep(CHECKED, tmp_path, progress=False).executor.row(_single("pool", 1))
    monkeypatch.delenv(machine_check.MACHINE_CHECK_VARIABLE)
    unchecked = replace(CHECKED, machine_check=False)
    sweep.Sweep(unchecked, tmp_path, progress=False).executor.row(_single("pool", 2))
    assert runs == [_reference_key(), _single("pool", 1).key, _single("pool", 2).key]
    assert study.PROFILES["full"].machine_check
    assert not study.PROFILES["quick"].machine_check and not study.PROFILES["ci"].machine_check


def test_a_bad_mode_is_refused_naming_the_valid_ones(monkeypatch):
    monkeypatch.setenv(machine_check.MACHINE_CHECK_VARIABLE, "maybe")
    with pytest.raises(ValueError, match="ALLOC_OR_POOL_MACHINE_CHECK='maybe': must be one of record, off"):
        machine_check.mode()


class _Store:
    """What check uses of a store: its folder, its runs folder and latest()."""

    def __init__(self, root, stored):
        self.root, self.runs_dir, self._stored = root, root / "runs", stored

    def latest(self, measurement):
        return self._stored.get(measurement)


class _Result:
    def __init__(self, status, ns):
        self.status = status
        self.run = type("Run", (), {"summary": {"ns_per_packet": ns} if ns else None})()


def test_check_compares_within_the_tolerance_leaves_out_what_the_store_lacks_and_never_loses_a_check(tmp_path):
    cells = [study.batch_cell(FLAT, strategy, "A", CHECKED) for strategy in ("alloc", "pool", "mix")]
    here = {name: machine.host_fingerprint()[name] for name in machine.MACHINE_FIELDS}
    stored = {cells[0].measurement: {"status": "ok", "ns_per_packet": 400.0, "stored_utc": "2026-11-24T10:00:00+00:00",
                                     "boot_id": "earlier", **here},
              cells[1].measurement: {"status": "ok", "ns_per_packet": 100.0, "stored_utc": None, "boot_id": None,
                                     **here}}
    store = _Store(tmp_path, stored)
    speeds = {cells[0].key: _Result("ok", 480.0), cells[1].key: _Result("error", None)}  # 1.2 x: within 1.25
    first = machine_check.check(store, cells, lambda cell, workdir: speeds[cell.key], now=NOW)
    assert first["key"].tolist() == [cells[0].key, cells[1].key]  # mix: not stored, not run
    assert first["passed"].tolist() == [True, False] and first["ratio"].iloc[0] == pytest.approx(1.2)
    assert machine_check.verdict(first.iloc[:1]) is None
    assert machine_check.verdict(first).endswith("recorded in machine_checks.parquet)")
    assert f"{cells[1].key}: did not finish" in machine_check.verdict(first)
    speeds[cells[1].key] = _Result("ok", 70.0)  # 0.7 x: a faster machine is not comparable either
    second = machine_check.check(store, cells[1:2], lambda cell, workdir: speeds[cell.key],
                                 now=NOW + timedelta(hours=1))
    assert second["passed"].tolist() == [False]
    assert len(machine_check.checks(tmp_path)) == 3  # the first check's rows kept
    said = machine_check.last_check(tmp_path)
    assert said.startswith("2 machine checks are recorded in the store") and "2026-11-26 06:00 UTC" in said
    assert said.endswith(f"found this boot at another speed (recorded; the sweep ran): {cells[1].key} 0.70 x.")


def test_a_refusal_sets_the_memory_latency_beside_that_of_the_last_check_that_passed(tmp_path):
    cell = study.batch_cell(FLAT, "alloc", "A", CHECKED)
    here = {name: machine.host_fingerprint()[name] for name in machine.MACHINE_FIELDS}
    store = _Store(tmp_path, {cell.measurement: {"status": "ok", "ns_per_packet": 100.0, **here}})
    fast, slow = {"load_ns_16mib": 40.2, "load_ns_1024mib": 178.0}, dict(LOADS)
    for hours, ns, loads in ((0, 110.0, fast), (1, 300.0, slow)):  # passed, then refused
        earlier = machine_check.checks(tmp_path)
        result = machine_check.check(store, [cell], lambda c, workdir: _Result("ok", ns), now=NOW + timedelta(hours=hours),
                                     latency=lambda: loads)
    assert machine_check.verdict(result, earlier).split(" stored (3.00 x). ")[1].startswith(
        "A dependent load took 131 ns over 16 MiB and 323 ns over 1 GiB in this check, against 40 ns over 16 MiB and "
        "178 ns over 1 GiB in the last check that passed (2026-11-26 05:00 UTC). ")
    unmeasured = machine_check.check(store, [cell], lambda c, workdir: _Result("ok", 300.0), now=NOW,
                                     latency=lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS))
    assert "The memory's latency was not measured (build cpp-lib's memory_latency: make cpp)." \
        in machine_check.verdict(unmeasured, earlier)


def test_the_check_a_refusal_is_set_beside_passed_in_every_row():
    # 05:00 passed; 06:00 refused in one of its two rows: its other row is not a check that passed
    def row(hours, passed, fast):
        return {"checked_utc": (NOW + timedelta(hours=hours)).isoformat(), "passed": passed, "same_machine": True,
                "load_ns_16mib": 40.0 if fast else 90.0, "load_ns_1024mib": 178.0 if fast else 250.0}
    earlier = pd.DataFrame([row(0, True, True), row(1, True, False), row(1, False, False)],
                           columns=machine_check.COLUMNS)
    now = pd.DataFrame([{**row(2, False, False), "key": "g1", "ns_per_packet": 300.0, "stored_ns_per_packet": 100.0,
                         "ratio": 3.0, "load_ns_16mib": 131.0, "load_ns_1024mib": 323.0}], columns=machine_check.COLUMNS)
    assert "against 40 ns over 16 MiB and 178 ns over 1 GiB in the last check that passed (2026-11-26 05:00 UTC)." \
        in machine_check.verdict(now, earlier)


@pytest.mark.real_memory_latency
def test_the_memory_latency_is_read_from_its_program_and_none_where_it_cannot_run(tmp_path, monkeypatch):
    program = tmp_path / "memory_latency"
    monkeypatch.setattr(machine_check.paths, "memory_latency_program", lambda: program)
    assert machine_check.memory_latency() == {"load_ns_16mib": None, "load_ns_1024mib": None}  # not built
    program.write_text("#!/bin/sh\nfor mib in \"$@\"; do echo \"{\\\"mib\\\": $mib, \\\"ns_per_load\\\": 1$mib.5}\"; done\n")
    program.chmod(0o755)
    assert machine_check.memory_latency() == {"load_ns_16mib": 116.5, "load_ns_1024mib": 11024.5}
    program.write_text("#!/bin/sh\nexit 3\n")
    assert machine_check.memory_latency() == {"load_ns_16mib": None, "load_ns_1024mib": None}


def test_the_memory_latency_program_times_a_size_and_refuses_a_bad_one():
    program = machine_check.paths.memory_latency_program()
    if not program.is_file():
        pytest.skip("cpp-lib is not built (make cpp)")
    done = subprocess.run([str(program), "1"], capture_output=True, text=True, check=True)
    row = json.loads(done.stdout)
    assert row["mib"] == 1 and row["ns_per_load"] > 0 and row["loads"] == 20_000_000
    for bad in ("0", "x", "16385", "2.5"):
        refused = subprocess.run([str(program), bad], capture_output=True, text=True)
        assert refused.returncode == 2 and refused.stdout == ""
        assert f"memory_latency: {bad} is not a size: each argument is a whole number of MiB from 1 to 16384" \
            in refused.stderr


def test_a_check_that_refused_on_this_machine_is_said_refused_beside_another_machines_failure(tmp_path):
    # "vm" 2026-11-26 11:51: JDK 11 G1 and Parallel against this machine's runs (refused), C++ glibc against
    # another kernel's (not refused); the article's first screen had said "not refused" of the whole check
    rows = [{"checked_utc": NOW.isoformat(), "key": key, "passed": False, "same_machine": same, "ratio": ratio}
            for key, same, ratio in (("g1", True, 3.90), ("parallel", True, 1.36), ("glibc", False, 1.44))]
    pd.DataFrame(rows, columns=machine_check.COLUMNS).to_parquet(tmp_path / machine_check.CHECKS_FILE, index=False)
    assert machine_check.last_check(tmp_path).endswith(
        "2026-11-26 05:00 UTC, found this boot at another speed (recorded; the sweep ran): g1 3.90 x, parallel "
        "1.36 x, glibc 1.44 x.")


def test_no_check_recorded_is_said(tmp_path):
    assert machine_check.last_check(tmp_path) == "No machine check is recorded in the store (machine_checks.parquet)."


def test_a_pass_holds_for_this_boot_and_its_hours_only(tmp_path):
    boot = "this-boot"
    rows = [{"checked_utc": (NOW - timedelta(hours=hours)).isoformat(), "boot_id": boot_id, "passed": passed,
             "key": key} for hours, boot_id, passed, key in ((1, boot, True, "a"), (1, boot, True, "b"))]
    pd.DataFrame(rows, columns=machine_check.COLUMNS).to_parquet(tmp_path / machine_check.CHECKS_FILE, index=False)
    assert machine_check.recent_pass(tmp_path, NOW, boot)
    assert not machine_check.recent_pass(tmp_path, NOW, "another-boot")
    assert not machine_check.recent_pass(tmp_path, NOW, None)
    assert not machine_check.recent_pass(tmp_path, NOW + timedelta(hours=machine_check.VALID_HOURS), boot)
    later = [{"checked_utc": NOW.isoformat(), "boot_id": boot, "passed": passed, "key": key}
             for passed, key in ((True, "a"), (False, "b"))]  # the newest check failed in one cell
    pd.DataFrame(rows + later, columns=machine_check.COLUMNS).to_parquet(tmp_path / machine_check.CHECKS_FILE,
                                                                         index=False)
    assert not machine_check.recent_pass(tmp_path, NOW, boot)
