"""event_echo.py: the event-echo programs' records read into rows, the cells and their command lines,
and the sweep through the store with a fake program (failures and timeouts kept, finished cells skipped)."""

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import profiles
from allocorpool.data.records import read_run
from allocorpool.data.store import Store
from allocorpool.machine import fingerprint
from allocorpool.profiles import EchoPlan
from allocorpool.run import event_echo
from allocorpool.run.event_echo import CHRONICLE_JDK17_FLAGS, EchoCell, result_row
from allocorpool.run.experiments import event_echo as measure_event_echo
from allocorpool.run.experiments.event_echo import EchoSweep
from allocorpool.run.runner import CellResult

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = FIXTURES / "event-echo"
FAKE = FIXTURES / "fake_event_echo.py"
# JDK 11 has G1 but no generational ZGC: one pair runs, the other is a row that says why not.
TINY = replace(profiles.profile("ci"), name="tiny", echo=EchoPlan(
    jdks=(11,), collectors=("g1", "zgc-gen"), clients=(1,), duration_s=0.2, warmup_s=0.1, heap="256m",
    warmup_iterations=1, iterations=1, iteration_ms=50, forks=1, transports=("nio",), threads=(1,), repetitions=1))
ECHO = EchoCell("echo", 25, "zgc-gen", "512m", 1, 0.5, transport="chronicle", mode="copy", clients=1, window=256)
ALLOCATION = EchoCell("allocation", 25, "g1", "512m", 0.6, threads=2, forks=1, warmup_iterations=1, iterations=2,
                      iteration_ms=200)


def stored_row(tmp_path, cell, sample):
    """A real run's records through the store, as the sweep reads them back."""
    store = Store(tmp_path)
    store.put(CellResult(cell, "ok", 0, "", 3.0, read_run(SAMPLES / sample), None, ["java"]))
    return store, store.index.set_index("key").loc[cell.key].to_dict() | {"key": cell.key}


def test_an_echo_run_is_read_into_its_row(tmp_path):
    store, stored = stored_row(tmp_path, ECHO, "echo-jdk25-zgc-gen-chronicle-copy.jsonl")
    row = result_row(ECHO, stored)
    assert row["status"] == "ok" and row["transport"] == "chronicle" and row["mode"] == "copy"
    assert row["events"] == 2_156_288 and row["events_per_s"] == pytest.approx(2_159_283.667)
    assert row["seed_latency_ns"] == pytest.approx(1e9 / row["events_per_s"])  # one client
    assert row["rtt_p50_ns"] == 74_303 and row["rtt_p99_ns"] == 364_799
    assert row["sent"] == row["received"] == row["echoed"] and row["corrupt"] == 0
    assert row["service_alloc_bytes_per_event"] == pytest.approx(56, abs=1)  # the copy: one object per event
    assert row["jdk_build"] == "25.0.2+10-LTS"
    run = store.load(ECHO.key).run
    assert run.header["program"] == "echo" and len(run.periodic) == 3 and set(run.gc["kind"]) == {"pause", "cycle"}
    assert fingerprint(run.header)["vm_flags"].count("--add-opens=java.base/java.lang=ALL-UNNAMED") == 1


def test_an_allocation_run_is_read_into_its_row(tmp_path):
    store, stored = stored_row(tmp_path, ALLOCATION, "allocation-jdk25-g1-t2.jsonl")
    row = result_row(ALLOCATION, stored)
    assert row["status"] == "ok" and row["threads"] == 2 and row["transport"] is None
    assert row["ns_per_op"] == pytest.approx(10.3329, rel=1e-4)
    assert row["ops_per_s"] == pytest.approx(2 * 1e9 / row["ns_per_op"])  # calls a second over both threads
    assert row["alloc_bytes_per_op"] == pytest.approx(56, abs=0.01) and row["ns_per_op_error"] is None
    assert len(store.load(ALLOCATION.key).run.table("iteration")) == 2


def test_a_stored_cell_comes_back_as_an_echo_cell(tmp_path):
    store, _ = stored_row(tmp_path, ECHO, "echo-jdk25-zgc-gen-chronicle-copy.jsonl")
    assert Store(tmp_path).load(ECHO.key).cell == ECHO
    assert store.index["cell_kind"].tolist() == ["event-echo"]


def test_commands_go_through_the_launcher(tmp_path, monkeypatch):
    monkeypatch.setattr(event_echo, "jar", lambda: tmp_path / "event-echo.jar")
    (tmp_path / "event-echo.jar").write_bytes(b"")
    monkeypatch.setattr(event_echo.jdks, "java_executable", lambda major: Path(f"/jdks/{major}/bin/java"))
    modern = event_echo.command(ECHO, tmp_path / "out.jsonl", tmp_path / "gc.log")
    assert modern[0] == "/jdks/25/bin/java" and "-XX:+UseZGC" in modern and "-Xmx512m" in modern
    assert set(CHRONICLE_JDK17_FLAGS) <= set(modern)
    assert any(flag.startswith("-Xlog:gc") for flag in modern)
    main = modern.index(event_echo.ECHO_MAIN)
    assert modern[main - 2:main] == ["-cp", str(tmp_path / "event-echo.jar")]
    assert modern[main + 1:main + 5] == ["--transport", "chronicle", "--mode", "copy"]
    old = event_echo.command(replace(ECHO, jdk=11, collector="g1"), tmp_path / "out.jsonl", None)
    assert not set(CHRONICLE_JDK17_FLAGS) & set(old) and not any(f.startswith("-Xlog") for f in old)
    allocation = event_echo.command(ALLOCATION, tmp_path / "out.jsonl", None)
    assert event_echo.ALLOCATION_MAIN in allocation
    assert allocation[-4:] == ["--iteration-ms", "200", "--out", str(tmp_path / "out.jsonl")]


def test_the_jar_must_be_built(tmp_path, monkeypatch):
    monkeypatch.setattr(event_echo, "jar", lambda: tmp_path / "missing.jar")
    with pytest.raises(FileNotFoundError, match="make event-echo"):
        event_echo.command(ALLOCATION, tmp_path / "out.jsonl", None)


@pytest.mark.parametrize("change, message", [
    ({"collector": "zgc-gen", "jdk": 11}, "JDK 11 has no collector 'zgc-gen'.*JDK 11 has: cms, g1"),
    ({"jdk": 8}, "unknown JDK 8; valid: 11, 17, 21, 25"),
    ({"transport": "udp"}, "transport 'udp': one of chronicle, nio"),
    ({"mode": "pool"}, "mode 'pool': one of reuse, copy"),
    ({"program": "trees"}, "program 'trees': one of echo, allocation"),
    ({"threads": 2}, "an echo cell has transport, mode, clients and window, and no allocation field"),
])
def test_a_bad_cell_is_refused_with_the_valid_values(change, message):
    with pytest.raises(ValueError, match=message):
        replace(ECHO, **change)


def test_unknown_profiles_are_refused():
    with pytest.raises(ValueError, match="unknown profile 'huge'; one of ci, quick, full"):
        profiles.profile("huge")
    with pytest.raises(SystemExit) as stop:  # argparse names the valid profiles and exits with 2
        measure_event_echo.main(["--profile", "huge"])
    assert stop.value.code == 2


@pytest.fixture
def fake(monkeypatch):
    """The fake program in place of the real one: a behaviour per (program, mode), every run counted."""
    behaviours, runs = {}, []

    def build(cell, out, gc_log):
        runs.append(cell.key)
        behaviour = behaviours.get((cell.program, cell.mode), "ok")
        return [sys.executable, str(FAKE), behaviour, *cell.program_args(out)]

    monkeypatch.setattr(event_echo, "command", build)
    return behaviours, runs


def test_every_row_is_measured_or_says_why_not(tmp_path, fake):
    _, runs = fake
    echo = measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False).executor)
    assert len(runs) == 2 and len(echo) == 4
    measured = echo[echo["collector"] == "g1"].set_index("mode")
    assert (measured["status"] == "ok").all() and measured.loc["copy", "events_per_s"] == 1_500_000
    unsupported = echo[echo["collector"] == "zgc-gen"]
    assert (unsupported["status"] == "unsupported").all() and unsupported["key"].isna().all()
    assert unsupported["error"].str.contains("JDK 11 has no collector 'zgc-gen' (it is on JDK 21, 25)",
                                             regex=False).all()
    assert unsupported["events_per_s"].isna().all()


def test_each_cell_runs_once_per_repetition_and_its_rows_say_which(tmp_path, fake):
    _, runs = fake
    thrice = EchoSweep(replace(TINY, echo=replace(TINY.echo, repetitions=3)), tmp_path, progress=False)
    echo = measure_event_echo.echo(thrice.executor)
    assert len(runs) == 6 and len(set(runs)) == 6  # two modes, three times each, every run a process of its own
    assert runs[:2] == [k for k in runs if not k.endswith(("_r1", "_r2"))]  # the first repetition's keys as before
    measured = echo[echo["status"] == "ok"]
    assert sorted(measured["repetition"]) == [0, 0, 1, 1, 2, 2]
    assert len(echo[echo["status"] == "unsupported"]) == 2  # a pair the JDK lacks is said once per row, not per run


def g1_by_mode(echo):
    return echo[echo["collector"] == "g1"].set_index("mode")


def test_a_crash_is_stored_with_its_stderr_and_a_finished_cell_is_never_rerun(tmp_path, fake):
    behaviours, runs = fake
    behaviours[("echo", "copy")] = "crash"
    first = g1_by_mode(measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False).executor))
    assert first.loc["copy", "status"] == "error" and first.loc["copy", "error"] == "exit code 134"
    assert "simulated crash in the echo service" in first.loc["copy", "stderr_tail"]
    assert pd.isna(first.loc["copy", "events_per_s"]) and first.loc["reuse", "status"] == "ok"
    assert len(runs) == 2
    again = measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False).executor)
    assert len(runs) == 2 and g1_by_mode(again)["status"].tolist() == first["status"].tolist()  # from the store
    behaviours[("echo", "copy")] = "ok"
    retried = g1_by_mode(measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False, retry_failed=True).executor))
    assert len(runs) == 3 and runs[-1].endswith("_nio_copy_c1_win256_d0.2_w0.1")  # only the failure ran again
    assert retried.loc["copy", "status"] == "ok"


def test_a_run_that_hangs_is_stopped_and_stored_as_a_timeout(tmp_path, fake, monkeypatch):
    behaviours, runs = fake
    behaviours[("allocation", None)] = "hang"
    monkeypatch.setattr(EchoCell, "timeout_s", lambda self: 1.0)
    allocation = measure_event_echo.allocation(EchoSweep(TINY, tmp_path, progress=False).executor)
    row = allocation[allocation["collector"] == "g1"].iloc[0]
    assert row["status"] == "timeout" and row["error"] == "timed out after 1 s" and pd.isna(row["ns_per_op"])
    assert allocation[allocation["collector"] == "zgc-gen"]["status"].tolist() == ["unsupported"]
    stored = Store(tmp_path).index.set_index("key").loc[row["key"]]
    assert stored["status"] == "timeout" and stored["cell_kind"] == "event-echo"


def test_a_replay_reads_the_store_and_runs_nothing(tmp_path, fake, monkeypatch):
    _, runs = fake
    monkeypatch.setenv("ALLOC_OR_POOL_REPLAY", "1")
    echo = measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False).executor)
    assert runs == [] and len(echo) == 4
    monkeypatch.delenv("ALLOC_OR_POOL_REPLAY")
    measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False).executor)
    monkeypatch.setenv("ALLOC_OR_POOL_REPLAY", "1")
    replayed = measure_event_echo.echo(EchoSweep(TINY, tmp_path, progress=False).executor)
    assert len(runs) == 2 and (g1_by_mode(replayed)["status"] == "ok").all()


def test_a_pair_at_a_time_cuts_the_echo_plan_and_refuses_a_pair_not_planned(capsys):
    # make record-echo measures one JDK and collector pair at a time into the profile's store
    from allocorpool import profiles

    full = profiles.profile("full")
    one = measure_event_echo.only_pairs(full, ["17:g1"])
    assert one.name == "full" and one.echo.jdk_collectors() == ((17, "g1"),)
    assert {c.key for c in measure_event_echo.echo_cells(one)} < {c.key for c in measure_event_echo.echo_cells(full)}
    assert measure_event_echo.main(["--profile", "full", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert "17:g1" in listed and "11:zgc-gen" not in listed  # JDK 11 has no generational ZGC
    with pytest.raises(SystemExit) as refused:
        measure_event_echo.main(["--profile", "full", "--pair", "17:cms"])
    assert refused.value.code == 2 and "valid: 11:g1" in capsys.readouterr().err
