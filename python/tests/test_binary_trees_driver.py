"""The binary-trees driver with a fake program: figures of a finished run, a wrong output, a crash
and a timeout recorded as such, the store keeping each cell as its own kind, a sweep that resumes
without rerunning what it has, and rows for what cannot run here."""

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from allocorpool import profiles
from allocorpool.data.store import Store
from allocorpool.profiles import BinaryTreesPlan
from allocorpool.run import binary_trees as bt
from allocorpool.run.experiments import binary_trees as trees

FAKE = """
import sys, time
mode, depth = sys.argv[1], int(sys.argv[2])
lines = {lines!r}
if mode == "sleep":
    time.sleep(60)
if mode == "crash":
    print("about to fail", file=sys.stderr)
    sys.exit(3)
print("\\n".join(lines[:-1] if mode == "wrong" else lines))
data = bytearray(20 * 2**20)  # some resident memory to see in the peak RSS
print("binary-trees: allocator fake 1.0", file=sys.stderr)
if mode != "silent":
    print("binary-trees: deallocation pauses count=3 total_ms=1.500 max_ms=0.900", file=sys.stderr)
"""


@pytest.fixture
def fake(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(FAKE.format(lines=bt.expected_output(8)))

    def build(mode):
        return lambda variant, depth, log: [sys.executable, str(script), mode, str(depth)]
    return build


def run(fake, tmp_path, mode, timeout_s=30.0, variant="c-jemalloc"):
    cell = bt.BinaryTreesCell(variant, 8, 1)
    return bt.run_cell(cell, tmp_path / "runs", timeout_s, build=fake(mode))


def test_a_finished_run_has_its_times_rss_and_pauses(fake, tmp_path):
    result = run(fake, tmp_path, "ok")
    summary = result.run.summary
    assert result.status == "ok" and result.error is None
    assert summary["wall_s"] > 0 and summary["user_s"] > 0 and summary["sys_s"] >= 0
    assert summary["peak_rss_bytes"] > 20 * 2**20
    assert (summary["pause_count"], summary["pause_total_ms"], summary["pause_max_ms"]) == (3, 1.5, 0.9)
    assert summary["runtime"] == "fake 1.0" and result.run.header["depth"] == 8


def test_a_wrong_output_is_an_error(fake, tmp_path):
    result = run(fake, tmp_path, "wrong")
    assert result.status == "error" and result.error.startswith("wrong output: expected 5 check lines for depth 8")


def test_a_crash_is_recorded_with_its_exit_code_and_stderr(fake, tmp_path):
    result = run(fake, tmp_path, "crash")
    assert result.status == "error" and result.error == "exit code 3" and "about to fail" in result.stderr_tail


def test_a_missing_pause_report_is_an_error(fake, tmp_path):
    result = run(fake, tmp_path, "silent")
    assert result.status == "error" and "pause report unreadable" in result.error


def test_a_run_past_its_time_is_stopped_and_recorded_as_timed_out(fake, tmp_path):
    result = run(fake, tmp_path, "sleep", timeout_s=1.0)
    assert result.status == "timeout" and result.error.startswith("timed out after")
    assert 1.0 <= result.elapsed_s < 20


def test_the_store_keeps_failures_and_gives_cells_back_as_their_own_kind(fake, tmp_path):
    store = Store(tmp_path / "store")
    for mode, repetition in (("ok", 1), ("crash", 2)):
        cell = bt.BinaryTreesCell("c-jemalloc", 8, repetition)
        store.put(bt.run_cell(cell, tmp_path / "runs", 30, build=fake(mode)))
    again = Store(tmp_path / "store")
    loaded = again.load("binary-trees_c-jemalloc_d8_r1")
    assert loaded.cell == bt.BinaryTreesCell("c-jemalloc", 8, 1) and loaded.status == "ok"
    index = again.index.set_index("key")
    assert index.loc["binary-trees_c-jemalloc_d8_r2", "status"] == "error"
    assert "about to fail" in index.loc["binary-trees_c-jemalloc_d8_r2", "stderr_tail"]
    assert index.loc["binary-trees_c-jemalloc_d8_r1", "cell_kind"] == "binary-trees"
    assert index.loc["binary-trees_c-jemalloc_d8_r1", "cpu_model"]  # the machine's fingerprint


def test_a_sweep_resumes_without_rerunning_finished_or_failed_cells(fake, tmp_path):
    prof = replace(profiles.profile("ci"), name="test",
                   binary_trees=BinaryTreesPlan(depths=(8,), repetitions=2, timeout_s=30))
    store = Store(tmp_path / "store")
    programs = tmp_path / "bin"
    programs.mkdir()
    for name in ("c-jemalloc", "c-glibc"):
        (programs / name).write_text("")
    ran = []

    def runner(cell):
        ran.append(cell.key)
        mode = "crash" if cell.variant == "c-glibc" and cell.repetition == 2 else "ok"
        return bt.run_cell(cell, tmp_path / "runs", 30, build=fake(mode))

    first = trees.sweep(prof, chosen=["c-jemalloc", "c-glibc"], store=store, programs=programs, run=runner,
                     progress=False)
    assert ran == ["binary-trees_c-jemalloc_d8_r1", "binary-trees_c-glibc_d8_r1",  # interleaved repetitions
                   "binary-trees_c-jemalloc_d8_r2", "binary-trees_c-glibc_d8_r2"]
    assert list(first.failures["key"]) == ["binary-trees_c-glibc_d8_r2"]
    row = first.table.set_index("variant").loc["c-glibc"]
    assert row["status"] == "failed" and row["runs"] == 1 and row["failed"] == 1 and row["why"] == "exit code 3"
    ran.clear()
    again = trees.sweep(prof, chosen=["c-jemalloc", "c-glibc"], store=Store(tmp_path / "store"), programs=programs,
                     run=runner, progress=False)
    assert ran == [] and len(again.runs) == 4
    trees.sweep(prof, chosen=["c-jemalloc", "c-glibc"], store=Store(tmp_path / "store"), programs=programs,
             run=runner, retry_failed=True, progress=False)
    assert ran == ["binary-trees_c-glibc_d8_r2"]


def test_what_cannot_run_here_is_a_row_with_its_reason(tmp_path):
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "nim-refc.unavailable").write_text("nim is not installed (Debian: nim)\n")
    prof = replace(profiles.profile("ci"), name="test",
                   binary_trees=BinaryTreesPlan(depths=(8,), repetitions=1, timeout_s=30))
    results = trees.sweep(prof, chosen=["nim-refc", "go", "dart"], store=Store(tmp_path / "store"), programs=programs,
                       run=lambda cell: pytest.fail("nothing here can run"), progress=False)
    rows = results.table.set_index("variant")
    assert (rows["status"] == "unavailable").all() and results.runs.empty
    assert rows.loc["nim-refc", "why"] == "not built: nim is not installed (Debian: nim)"
    assert rows.loc["go", "why"].startswith("not built:") and "is missing" in rows.loc["go", "why"]
    assert "Dart" in rows.loc["dart", "why"]


def test_bad_names_are_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="unknown binary-trees variant 'c-nope'; one of c-glibc, c-jemalloc"):
        bt.BinaryTreesCell("c-nope", 8, 1)
    with pytest.raises(ValueError, match="unknown profile 'huge'; one of ci, quick, full"):
        profiles.profile("huge")
    with pytest.raises(SystemExit) as stop:  # argparse names the valid profiles and exits with 2
        trees.main(["--profile", "huge"])
    assert stop.value.code == 2
    assert trees.main(["--variant", "c-nope"]) == 2


def test_every_collector_of_every_jdk_is_a_row():
    from allocorpool.run import jdks
    java = {(v.jdk, v.collector) for v in bt.VARIANTS if v.is_java}
    assert java == {(major, c) for major in bt.JAVA_MAJORS for c in jdks.collectors_of(major)}
    assert all(v.unavailable for v in bt.VARIANTS if v.collector in bt.JAVA_LEFT_OUT)


def test_java_command_logs_gc_and_runs_the_compiled_class(tmp_path, monkeypatch):
    from allocorpool.run import jdks
    monkeypatch.setattr(jdks, "java_executable", lambda major: Path(f"/jdk{major}/bin/java"))
    argv = bt.command(bt.variant("java25-zgc-gen"), 18, tmp_path / "gc.log", tmp_path / "bin")
    assert argv[0] == "/jdk25/bin/java" and "-XX:+UseZGC" in argv
    assert f"-Xlog:gc*,safepoint:file={tmp_path / 'gc.log'}:uptime,level,tags:filecount=0" in argv
    assert argv[-4:] == ["-cp", str(tmp_path / "bin" / "java"), "BinaryTrees", "18"]


def test_the_peak_rss_is_the_programs_own_not_the_drivers(fake, tmp_path):
    ballast = bytearray(300 * 2**20)  # the driver's own memory, touched: Linux carries it across exec
    ballast[::4096] = b"\1" * len(ballast[::4096])
    result = run(fake, tmp_path, "ok")
    assert 20 * 2**20 < result.run.summary["peak_rss_bytes"] < 200 * 2**20
    del ballast


def test_a_replay_reads_the_store_and_runs_nothing(fake, tmp_path, monkeypatch):
    prof = replace(profiles.profile("ci"), name="test",
                   binary_trees=BinaryTreesPlan(depths=(8,), repetitions=1, timeout_s=30))
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "c-jemalloc").write_text("")
    ran = []

    def runner(cell):
        ran.append(cell.key)
        return bt.run_cell(cell, tmp_path / "runs", 30, build=fake("ok"))

    monkeypatch.setenv("ALLOC_OR_POOL_REPLAY", "1")
    empty = trees.sweep(prof, chosen=["c-jemalloc"], store=Store(tmp_path / "store"), programs=programs, run=runner,
                     progress=False)
    assert ran == [] and empty.runs["status"].isna().all()  # not measured, and nothing ran
    monkeypatch.delenv("ALLOC_OR_POOL_REPLAY")
    trees.sweep(prof, chosen=["c-jemalloc"], store=Store(tmp_path / "store"), programs=programs, run=runner,
             progress=False)
    monkeypatch.setenv("ALLOC_OR_POOL_REPLAY", "1")
    replayed = trees.sweep(prof, chosen=["c-jemalloc"], store=Store(tmp_path / "store"), programs=programs,
                        run=runner, progress=False)
    assert len(ran) == 1 and list(replayed.runs["status"]) == ["ok"]


def test_a_replay_shows_stored_runs_on_a_machine_that_has_not_built_the_programs(fake, tmp_path, monkeypatch):
    # `make article PROFILE=full` on a fresh clone: the runs are committed, the programs are not built.
    prof = replace(profiles.profile("ci"), name="test",
                   binary_trees=BinaryTreesPlan(depths=(8,), repetitions=1, timeout_s=30))
    built = tmp_path / "bin"
    built.mkdir()
    (built / "c-jemalloc").write_text("")
    store = Store(tmp_path / "store")
    trees.sweep(prof, chosen=["c-jemalloc"], store=store, programs=built, progress=False,
             run=lambda cell: bt.run_cell(cell, tmp_path / "runs", 30, build=fake("ok")))
    monkeypatch.setenv("ALLOC_OR_POOL_REPLAY", "1")
    replayed = trees.sweep(prof, chosen=["c-jemalloc"], store=Store(tmp_path / "store"), programs=tmp_path / "none",
                        progress=False)
    assert list(replayed.table["status"]) == ["ok"] and replayed.table["wall_s"].notna().all()
    nothing = trees.sweep(prof, chosen=["c-jemalloc"], store=Store(tmp_path / "empty"), progress=False)
    assert list(nothing.table["status"]) == ["missing"] and nothing.table["wall_s"].isna().all()


def test_the_variants_are_listed_one_per_line_for_make_record_binary_trees(capsys):
    from allocorpool.run.binary_trees import VARIANTS
    from allocorpool.run.experiments import binary_trees as experiments

    assert experiments.main(["--list"]) == 0
    assert capsys.readouterr().out.split() == [v.name for v in VARIANTS]
    assert experiments.main(["--profile", "full", "--variant", "no-such-variant"]) == 2
