"""runner.py: cells, command lines, and runs of a fake engine that succeeds, fails, crashes or hangs."""

import sys
from pathlib import Path

import pytest

from allocorpool import paths
from allocorpool.run import jdks, runner
from allocorpool.run.runner import Cell, engine_command, run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
CPP = dict(engine="cpp", design="flat", allocator="glibc", case="A", strategy="pool", duration_s=0.5, warmup_s=0.1)


def fake(behaviour):
    def build(cell, out, gc_log):
        return [sys.executable, str(FAKE), behaviour, *cell.engine_args(out)]
    return build


def test_cell_validation_and_key():
    cell = Cell(engine="java", jdk=25, collector="zgc-gen", case="B", strategy="mix", mode="realtime",
                interval_ns=500, compact_headers=True, live_objects=True, gc_log=True)
    assert cell.key == "java_jdk25_zgc-gen_2g_coh_B_mix_realtime_500ns_d30_w5_x1_counter_live_gclog"
    assert Cell(**cell.params()) == cell
    assert Cell(**CPP).key == "cpp_flat_glibc_A_pool_batch_d0.5_w0.1_x1_counter"
    tuned = Cell(engine="java", jdk=11, collector="g1", case="A", strategy="pool", source="random",
                 internal_queue_size=10_000, stored_count=10_000, vm_options=["-XX:MaxGCPauseMillis=80"], build="3f2a")
    assert tuned.key == "java_jdk11_g1_2g_MaxGCPauseMillis=80_A_q10000_s10000_pool_batch_d30_w5_x1_random_b3f2a"
    assert tuned.measurement == tuned.key.removesuffix("_b3f2a") and Cell(**tuned.params()) == tuned
    with pytest.raises(ValueError, match="source 'hash': one of"):
        Cell(**CPP, source="hash")
    with pytest.raises(ValueError, match="vm_options and stop_when_heap_full are for java cells"):
        Cell(**CPP, vm_options=("-XX:+AlwaysPreTouch",))
    with pytest.raises(ValueError, match="interval_ns"):
        Cell(**CPP, mode="realtime")
    with pytest.raises(ValueError, match="interval_ns"):
        Cell(**CPP, interval_ns=1000)
    with pytest.raises(ValueError, match="no collector 'cms'"):
        Cell(engine="java", jdk=17, collector="cms", case="A", strategy="pool")
    with pytest.raises(ValueError, match="design and allocator"):
        Cell(engine="cpp", case="A", strategy="pool")
    with pytest.raises(ValueError, match="for java cells"):
        Cell(**CPP, gc_log=True)


def test_engine_commands(tmp_path, monkeypatch):
    jar, engine = tmp_path / "alloc-or-pool.jar", tmp_path / "cpp_engine"
    jar.touch()
    engine.touch()
    monkeypatch.setattr(paths, "java_jar", lambda: jar)
    monkeypatch.setattr(paths, "cpp_engine", lambda: engine)
    monkeypatch.setattr(jdks, "java_executable", lambda major: Path(f"/jdks/{major}/bin/java"))
    monkeypatch.setattr(runner.os, "sched_getaffinity", lambda pid: {6, 4, 5})  # a slot of run.slots, say
    cell = Cell(engine="java", jdk=17, collector="g1", heap="1g", case="C", strategy="native-pool",
                mode="realtime", interval_ns=700, duration_s=20, warmup_s=4, scale=0.5, live_objects=True, gc_log=True)
    command = engine_command(cell, tmp_path / "out.jsonl", tmp_path / "gc.log")
    assert command[0] == "/jdks/17/bin/java" and "-Xmx1g" in command and "-XX:+UseG1GC" in command
    assert f"-Xlog:gc*,safepoint:file={tmp_path / 'gc.log'}:uptime,timenanos,level,tags:filecount=0" in command
    assert command[command.index("-jar") + 1] == str(jar)
    assert command[command.index("-jar") + 2:] == [
        "--case", "C", "--strategy", "native-pool", "--mode", "realtime", "--interval-ns", "700",
        "--duration-s", "20", "--warmup-s", "4", "--scale", "0.5", "--source", "counter", "--live-objects",
        "--out", str(tmp_path / "out.jsonl"), "--producer-cpu", "4", "--consumer-cpu", "5"]  # its first two CPUs
    monkeypatch.setattr(runner.os, "sched_getaffinity", lambda pid: {3})  # one CPU: neither pinned
    assert engine_command(cell, tmp_path / "out.jsonl", None)[-4:] == ["--producer-cpu", "-1", "--consumer-cpu", "-1"]
    assert engine_command(Cell(**CPP), tmp_path / "o.jsonl", None) == [
        str(engine), "--design", "flat", "--allocator", "glibc", "--case", "A", "--strategy", "pool",
        "--mode", "batch", "--duration-s", "0.5", "--warmup-s", "0.1", "--scale", "1", "--source", "counter",
        "--out", str(tmp_path / "o.jsonl")]
    overridden = Cell(**CPP, stored_count=1000, internal_queue_size=1000, pool_size=10_000_000, source="random")
    assert engine_command(overridden, tmp_path / "o.jsonl", None)[17:25] == [
        "--source", "random", "--internal-queue-size", "1000", "--stored-count", "1000", "--pool-size", "10000000"]


def test_a_good_run_streams_its_records(tmp_path, monkeypatch):
    monkeypatch.delenv("ALLOC_OR_POOL_COMMIT", raising=False)
    monkeypatch.setenv("FAKE_PERIOD_S", "0.05")  # periods that arrive one after another
    seen = []
    result = run_cell(Cell(**CPP), tmp_path, build=fake("ok"), poll_s=0.02, progress=True,
                      on_update=lambda run: seen.append(len(run.periodic)))
    assert result.status == "ok" and result.exit_code == 0 and result.error is None
    assert len(result.run.periodic) == 5 and result.run.summary["status"] == "ok"
    assert seen == sorted(seen) and seen[-1] == 5 and len(seen) > 1  # read while the engine ran
    assert (tmp_path / f"{Cell(**CPP).key}.jsonl").is_file()
    assert result.run.header["commit"] == paths.source_commit()  # handed to the engine as make does


def test_an_engine_error_is_a_failure(tmp_path):
    result = run_cell(Cell(**CPP), tmp_path, build=fake("error"), progress=False)
    assert result.status == "error" and result.exit_code == 1
    assert result.error == "pool conservation check failed"
    assert len(result.run.periodic) == 5


def test_a_crash_keeps_its_records_and_stderr(tmp_path):
    result = run_cell(Cell(**CPP), tmp_path, build=fake("crash"), progress=False)
    assert result.status == "error" and result.exit_code == 134
    assert "simulated crash" in result.stderr_tail and result.error == "exit code 134"
    assert result.run.summary is None and len(result.run.periodic) == 2
    assert any("not JSON" in problem for problem in result.run.problems)  # the line cut short


def test_a_hang_times_out_and_is_stopped(tmp_path):
    result = run_cell(Cell(**CPP), tmp_path, build=fake("hang"), progress=False, timeout_s=1.5, poll_s=0.05)
    assert result.status == "timeout" and result.exit_code is not None and result.exit_code < 0
    assert result.elapsed_s < 10 and result.error.startswith("timed out")
    assert len(result.run.periodic) == 1 and result.run.header["engine"] == "cpp"


def test_a_long_fill_phase_is_not_a_timeout_and_a_fill_that_never_ends_is(tmp_path):
    slow = run_cell(Cell(**CPP), tmp_path, build=fake("slow_fill"), progress=False, timeout_s=1.5, poll_s=0.05)
    assert slow.status == "ok" and slow.elapsed_s > 3  # 3 s of fill, then 0.25 s of periods: within 1.5 s of the first
    stuck = run_cell(Cell(**CPP), tmp_path, build=fake("fill_hang"), progress=False, timeout_s=60, poll_s=0.05,
                     fill_timeout_s=1.5)
    assert stuck.status == "timeout" and stuck.elapsed_s < 10 and stuck.error.endswith("in its fill phase")
    assert stuck.run.header["engine"] == "cpp" and stuck.run.periodic.empty


def test_a_jvm_that_will_not_start_is_a_failure_that_says_why(tmp_path):
    result = run_cell(Cell(**CPP), tmp_path, build=fake("vm_refuses"), progress=False)
    assert result.status == "error" and result.error == "exit code 1" and result.run.header is None
    assert "Java heap too small" in result.stderr_tail  # said on stdout: nothing came on stderr


def test_a_missing_engine_is_a_failure_not_an_exception(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "cpp_engine", lambda: tmp_path / "missing")
    result = run_cell(Cell(**CPP), tmp_path, progress=False)
    assert result.status == "error" and result.exit_code is None and "missing" in result.stderr_tail
    broken = run_cell(Cell(**CPP), tmp_path, progress=False, build=lambda c, o, g: [str(tmp_path / "nothing")])
    assert broken.status == "error" and broken.exit_code is None


def test_a_relative_workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cell(Cell(**CPP), Path("runs"), build=fake("ok"), progress=False)
    assert result.status == "ok" and (tmp_path / "runs" / f"{Cell(**CPP).key}.jsonl").is_file()


def _children(pid):
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def test_an_engine_dies_with_the_process_that_started_it(tmp_path):
    import os
    import signal
    import subprocess
    import time

    script = (f"import sys; sys.path.insert(0, {str(FAKE.parent.parent)!r})\n"
              "from test_runner import CPP, fake\n"
              "from allocorpool.run.runner import Cell, run_cell\n"
              f"run_cell(Cell(**CPP), __import__('pathlib').Path({str(tmp_path)!r}), build=fake('hang'),"
              " progress=False, timeout_s=120)\n")
    parent = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 30
    while not (engines := _children(parent.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engines, "the engine did not start"
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{engines[0]}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            os.waitpid(engines[0], os.WNOHANG)  # not our child: raises; the zombie is reaped by init
        except ChildProcessError:
            pass
    status = Path(f"/proc/{engines[0]}/status")
    assert not status.exists() or "zombie" in status.read_text(), "the engine outlived the process that started it"


def test_a_child_whose_parent_died_before_its_death_signal_was_set_exits_at_once():
    # Beside a CPU hog the parent was once killed between the fork and the child's request: the child, taking
    # its parent's pid only then, read init's and lived on. The pid now comes from before the fork: a child
    # whose parent is no longer that pid exits.
    import subprocess

    script = ("from allocorpool.run.runner import die_with_parent\n"
              "import os\n"
              "die_with_parent(os.getppid() + 1_000_000)  # a parent that is not ours: it died, we were re-parented\n"
              "print('alive')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 1 and "alive" not in done.stdout, done.stderr
    ours = subprocess.run([sys.executable, "-c", script.replace(" + 1_000_000", "")], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert ours.returncode == 0 and ours.stdout == "alive\n", ours.stderr


def test_a_run_by_another_engine_build_does_not_count(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_ENGINE_SOURCE", "0123456789ab")
    same = run_cell(Cell(**CPP, build="0123456789ab"), tmp_path, build=fake("ok"), progress=False)
    assert same.status == "ok" and same.refusal is None
    stale = run_cell(Cell(**CPP, build="fedcba987654"), tmp_path, build=fake("ok"), progress=False)
    assert stale.status == "error" and stale.run.status == "ok"
    assert stale.error.startswith("the engine that ran was built from sources 0123456789ab, not this cell's fedcba987654")
    unknown = run_cell(Cell(**CPP), tmp_path, build=fake("ok"), progress=False)  # a cell with no build: not checked
    assert unknown.status == "ok"
