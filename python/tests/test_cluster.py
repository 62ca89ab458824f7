"""run/cluster.py on a cluster of worker processes on loopback, started as the README starts a real one:
a store written on the cluster holds what a local run's holds, a killed worker's cell is rerun on
another worker, a failure is tried on two workers, a worker with other engine code refuses the cell,
a killed client resumes from the store, and nothing is computed twice. A block runs whole on one worker,
in that worker machine's boot, and resumes there after its worker died; the several-threads experiments
take their counts from the workers' CPUs (workers that say they are machines of their own:
fixtures/fake_machine.py). Most tests run the fake engine (fixtures/cluster_fake.py, imported by the
workers); one runs a few real ci cells.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pandas as pd
import psutil
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))  # the workers import it too (their PYTHONPATH)

from cluster_fake import FakeCommand, placed, runs  # noqa: E402

from allocorpool import machine, paths, study  # noqa: E402
from allocorpool.data.store import Store  # noqa: E402
from allocorpool.profiles import ThreadPlan  # noqa: E402
from allocorpool.run import blocks, calibration, executor, machine_check, sweep  # noqa: E402
from allocorpool.run.cluster import Cluster, ClusterError, WorkerLost  # noqa: E402
from allocorpool.run.experiments import batch as measure_batch, handoff as measure_handoff  # noqa: E402
from allocorpool.run.experiments import realtime as measure_realtime, threads as measure_threads  # noqa: E402
from allocorpool.run.executor import Executor  # noqa: E402
from allocorpool.run.progress import Progress  # noqa: E402
from allocorpool.run.runner import Cell, parent_death, run_cell  # noqa: E402
from allocorpool.study import SOLUTIONS_BY_NAME  # noqa: E402

pytestmark = pytest.mark.cluster

# Batch cells alone, one run each, so that a failed cell runs again on the other worker (a block's runs stay on
# one worker: the tests of blocks below), and the local run compared with it does the same (blocks: test_blocks)
TINY = replace(study.PROFILES["ci"], name="tiny", cases=("A",), solutions=("flat-glibc",), strict=False,
               search=study.SearchPlan(high_ns=2000, longest_probe_s=2, confirm=False),
               blocks=study.BlockPlan(repetitions=0))
FLAT = SOLUTIONS_BY_NAME["flat-glibc"]
# The fake engine's plan for the sweeps compared with a local run: a batch cell that fails wherever it
# runs, a probe whose first run crashes and a consumer that never keeps up.
PLAN = {"mix batch": "error", "pool realtime": ["crash", "ok"], "mix realtime": "slow"}
START_S = 60.0
# Blocks of two rounds, with 1 to 8 threads; the workers' machines of fake_machines
BLOCKS = replace(TINY, name="tiny-blocks", blocks=study.BlockPlan(repetitions=2),
                 threads=ThreadPlan(counts=(1, 2, 4, 8), solutions=("parallel-11", "flat-glibc")))
PARALLEL = SOLUTIONS_BY_NAME["parallel-11"]
FAKE_BOOTS = {"w1": "1111aaaa-0000-4000-8000-000000000001", "w2": "2222bbbb-0000-4000-8000-000000000002"}
FAKE_CPUS = {"w1": 8, "w2": 16}
MIX_BATCH = study.batch_cell(FLAT, "mix", "A", TINY).key
POOL_BATCH = study.batch_cell(FLAT, "pool", "A", TINY).key
FIRST_POOL_PROBE = study.probe_cell(FLAT, "pool", "A", TINY, 150).key  # where its search starts (1.5 x 100 ns)


class LoopbackCluster:
    """A Dask scheduler and named workers (`--nthreads 1 --resources machine=1`, no nanny), each a process
    that dies with the tests' process (a killed test run leaves no worker behind)."""

    def __init__(self, folder: Path, workers: dict[str, dict[str, str]],
                 scheduler: dict[str, str] | None = None) -> None:
        from distributed import Client

        folder.mkdir(parents=True, exist_ok=True)
        dask = str(Path(sys.executable).parent / "dask")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(FIXTURES), os.environ.get("PYTHONPATH", "")])}
        scheduler_file = folder / "scheduler.json"
        self.processes: dict[str, subprocess.Popen] = {}
        self.processes["scheduler"] = subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
             str(scheduler_file)], stdout=subprocess.DEVNULL, stderr=open(folder / "scheduler.log", "wb"),
            env={**env, **(scheduler or {})}, preexec_fn=parent_death())
        deadline = time.monotonic() + START_S
        while not scheduler_file.is_file() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, (folder / "scheduler.log").read_text()
            time.sleep(0.2)
        self.address = json.loads(scheduler_file.read_text())["address"]
        self.folder, self.dask, self.env = folder, dask, env
        for name, extra in workers.items():
            self.start(name, extra)
        with Client(self.address, set_as_default=False, timeout=START_S) as client:
            client.wait_for_workers(len(workers), timeout=START_S)

    def start(self, name: str, extra: dict[str, str]) -> None:
        """Starts a worker of that name (again, after a kill: a machine whose worker came back)."""
        self.processes[name] = subprocess.Popen(
            [self.dask, "worker", self.address, "--nthreads", "1", "--resources", "machine=1", "--no-nanny",
             "--name", name, "--no-dashboard", "--local-directory", str(self.folder / name)],
            stdout=subprocess.DEVNULL, stderr=open(self.folder / f"{name}.log", "ab"), env={**self.env, **extra},
            preexec_fn=parent_death())

    def kill(self, name: str) -> None:
        self.processes[name].send_signal(signal.SIGKILL)
        self.processes[name].wait()

    def close(self) -> None:
        """The workers first (a worker whose scheduler is gone keeps trying to reach it), then the scheduler."""
        for group in ([p for name, p in self.processes.items() if name != "scheduler"], [self.processes["scheduler"]]):
            for process in group:
                if process.poll() is None:
                    process.terminate()
            for process in group:
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """Two workers, w1 and w2, for the tests that kill none."""
    cluster = LoopbackCluster(tmp_path_factory.mktemp("cluster"), {"w1": {}, "w2": {}})
    yield cluster
    cluster.close()


def fake_cluster(cluster: LoopbackCluster, folder: Path, plan: dict, show=None) -> tuple[Cluster, Path]:
    """A Cluster whose workers run the fake engine by the plan; the log of every run."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plan.json").write_text(json.dumps(plan))
    log = folder / "runs.log"
    return Cluster(cluster.address, runs_dir=str(folder / "runs"), show=show,
                   command=FakeCommand(str(folder / "plan.json"), str(log))), log


def cells_of(store: Store) -> set[tuple[str, str]]:
    return set(store.index[["key", "status"]].itertuples(index=False, name=None))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The TINY sweep run here, one cell at a time, by PLAN: its store, tables and runs."""
    folder = tmp_path_factory.mktemp("local")
    (folder / "plan.json").write_text(json.dumps(PLAN))
    command = FakeCommand(str(folder / "plan.json"), str(folder / "runs.log"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(executor, "run_cell", lambda cell, workdir, **options: run_cell(cell, workdir, **options,
                                                                                     build=command))
        local = sweep.Sweep(TINY, folder / "store", progress=False)
        batch, searches = measure_batch.batch(local.executor, [FLAT]), measure_realtime.realtime(local.executor, [FLAT])
    return local.store, batch, searches, runs(folder / "runs.log")


def test_a_sweep_on_the_cluster_stores_what_a_local_run_stores_and_runs_nothing_twice(shared, local_run, tmp_path):
    local_store, local_batch, local_searches, local_runs = local_run
    cluster, log = fake_cluster(shared, tmp_path, PLAN)
    remote = sweep.Sweep(TINY, tmp_path / "store", progress=False, scheduler=cluster)
    batch, searches = measure_batch.batch(remote.executor, [FLAT]), measure_realtime.realtime(remote.executor, [FLAT])
    assert cells_of(remote.store) == cells_of(local_store) and len(local_store.index) > 20
    columns = ["solution", "strategy", "case", "key", "status", "error", "ns_per_packet"]
    assert batch[columns].equals(local_batch[columns])  # the same rows, in the same order
    columns = ["strategy", "outcome", "interval_ns", "loss_pct", "error"]
    assert searches.table[columns].equals(local_searches.table[columns])
    # the probe that crashed once: here a search probes again, there the cluster ran it on the other worker
    assert searches.probes["key"].tolist() == local_searches.probes["key"].drop_duplicates().tolist()
    crashed = remote.store.index.set_index("key").loc[FIRST_POOL_PROBE]
    assert crashed["status"] == "ok" and "== attempt 1 on worker w" in crashed["stderr_tail"] \
        and "exit code 134\nfatal: simulated crash" in crashed["stderr_tail"]  # the failure before it is kept
    assert set(batch["machine"]) == set(searches.table["machine"]) == {"Fake CPU, 2 CPUs"}  # the fake's header
    ran = Counter(key for key, _, _ in runs(log))
    twice = {key for key, count in ran.items() if count == 2}
    assert set(ran.values()) <= {1, 2} and twice == {MIX_BATCH, FIRST_POOL_PROBE}
    workers = {key: [worker for k, worker, _ in runs(log) if k == key] for key in twice}
    assert all(len(set(names)) == 2 for names in workers.values())  # a failed cell's second run: the other worker
    # the local sweep's runs (it too ran that probe twice), and the failed batch cell's second worker
    assert sum(ran.values()) == len(local_runs) + 1
    again = sweep.Sweep(TINY, tmp_path / "store", progress=False, scheduler=cluster)
    measure_batch.batch(again.executor, [FLAT]), measure_realtime.realtime(again.executor, [FLAT])
    assert len(runs(log)) == sum(ran.values())  # all read back from the store
    cluster.close()


def test_a_cell_that_fails_on_two_workers_is_stored_with_both_stderr_tails(shared, tmp_path):
    cluster, log = fake_cluster(shared, tmp_path, {"pool batch": "crash", "mix batch": ["crash", "ok"]})
    chapter = sweep.Sweep(TINY, tmp_path / "store", progress=False, scheduler=cluster)
    table = measure_batch.batch(chapter.executor, [FLAT]).set_index("strategy")
    assert table.loc["pool", "status"] == "error" and table.loc["pool", "error"] == "exit code 134"
    tail = table.loc["pool", "stderr_tail"]
    assert tail.count("fatal: simulated crash") == 2
    assert "== attempt 1 on worker w" in tail and "== attempt 2 on worker w" in tail and "w1" in tail and "w2" in tail
    assert table.loc["mix", "status"] == "ok"  # crashed on one worker, ran on the other
    stored = Store(tmp_path / "store").index.set_index("strategy")
    assert stored.loc["pool", "attempts"] == 2  # a search would not try it a third time
    ran = Counter(key for key, _, _ in runs(log))
    pool, mix = POOL_BATCH, MIX_BATCH
    assert ran[pool] == ran[mix] == 2 and ran.total() == 6
    assert {worker for key, worker, _ in runs(log) if key == pool} == {"w1", "w2"}
    cluster.close()


def test_the_environment_names_the_scheduler(shared, tmp_path, monkeypatch):
    monkeypatch.setenv(sweep.SCHEDULER_VARIABLE, shared.address)
    chosen = sweep.Sweep(TINY, tmp_path, progress=False)
    cluster = chosen.executor.cluster()
    assert cluster is not None and cluster.address == shared.address and cluster.machines == 2
    assert cluster.shared_hosts == {"127.0.0.1": ["w1", "w2"]}  # said as a warning: both share this machine
    cluster.close()
    assert sweep.Sweep(TINY, tmp_path, progress=False, replay=True).executor.cluster() is None  # a replay runs nothing


def test_a_killed_workers_cell_is_rerun_on_another_worker(tmp_path):
    loopback = LoopbackCluster(tmp_path / "cluster", {"w1": {}, "w2": {}})
    try:
        cluster, log = fake_cluster(loopback, tmp_path, {"pool batch": "hang-first"})
        chapter = sweep.Sweep(TINY, tmp_path / "store", progress=False, scheduler=cluster)
        done: dict = {}
        thread = threading.Thread(target=lambda: done.update(table=measure_batch.batch(chapter.executor, [FLAT])))
        thread.start()
        pool = POOL_BATCH
        deadline = time.monotonic() + START_S
        while not [run for run in runs(log) if run[0] == pool]:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.1)
        time.sleep(0.5)  # the engine has started and hangs
        _, victim, pid = next(run for run in runs(log) if run[0] == pool)
        engines = [p for p in psutil.Process(pid).children() if "fake_engine.py" in " ".join(p.cmdline())]
        assert engines
        loopback.kill(victim)
        thread.join(timeout=START_S)
        assert not thread.is_alive()
        assert (done["table"]["status"] == "ok").all()
        ran = [(key, worker) for key, worker, _ in runs(log)]
        assert [worker for key, worker in ran if key == pool] == [victim, {"w1": "w2", "w2": "w1"}[victim]]
        assert Counter(key for key, _ in ran) == Counter({pool: 2, **{key: 1 for key, _ in ran if key != pool}})
        psutil.wait_procs(engines, timeout=10)
        assert not any(engine.is_running() for engine in engines)  # the hung engine died with its worker
        cluster.close()
    finally:
        loopback.close()


def test_a_cell_that_kills_its_workers_is_stored_as_failed(tmp_path):
    loopback = LoopbackCluster(tmp_path / "cluster", {"w1": {}, "w2": {}},
                               scheduler={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"})
    try:
        cluster, log = fake_cluster(loopback, tmp_path, {"mix batch": "kill-worker"})
        mix = study.batch_cell(FLAT, "mix", "A", TINY)
        result = cluster.run(mix)
        assert result.status == "error" and result.attempts == 1
        assert result.error.startswith(f"the workers that ran {mix.key} died while it ran, more often than the "
                                       f"scheduler's allowed-failures (1); the last one was tcp://127.0.0.1:")
        assert sorted(worker for _, worker, _ in runs(log)) == ["w1", "w2"]
        assert result.fingerprint["host"].startswith("tcp://127.0.0.1:") and result.fingerprint["cpus"] is None
        cluster.close()
    finally:
        loopback.close()


def test_a_worker_with_other_engine_code_refuses_the_cell(tmp_path):
    other = tmp_path / "other-checkout"  # a checkout whose C++ engine was built from other sources
    (other / "build" / "cpp-lib" / "generated").mkdir(parents=True)
    (other / "build" / "cpp-lib" / "generated" / "engine_source.txt").write_text("0123456789ab\n")
    loopback = LoopbackCluster(tmp_path / "cluster", {"w1": {}, "w2": {"ALLOC_OR_POOL_HOME": str(other)}})
    try:
        lines: list[str] = []
        cluster, log = fake_cluster(loopback, tmp_path, {}, show=lines.append)
        built = paths.engine_build("cpp")  # w1's: this checkout's
        here = Cell(engine="cpp", design="flat", allocator="glibc", case="A", strategy="pool", duration_s=0.5,
                    warmup_s=0.1, build=built)
        cells = [here, replace(here, strategy="mix"), replace(here, build="0123456789ab"),
                 replace(here, build="fedcba987654")]
        store = Store(tmp_path / "store")
        Executor(store, TINY, scheduler=cluster, progress=Progress(False, "tiny", sink=lines.append)).rows(cells, unit="cells")
        index = store.index.set_index("key")
        ran = dict((key, worker) for key, worker, _ in runs(log))
        assert ran == {cells[0].key: "w1", cells[1].key: "w1", cells[2].key: "w2"}  # where the build matches
        assert list(index.loc[[c.key for c in cells], "status"]) == ["ok", "ok", "ok", "error"]
        refused = index.loc[cells[3].key]
        assert "needs fedcba987654" in refused["stderr_tail"] and "from sources 0123456789ab" in refused["stderr_tail"]
        assert f"its cpp engine was built from sources {built or '(no id)'}" in refused["stderr_tail"]
        assert refused["error"].startswith("worker w") and refused["error"].endswith("(make build)")
        # the progress: which worker started which cell, and nothing left running once all came back
        assert any(line.startswith(f"w2 started {cells[2].key}; ") for line in lines)
        assert not cluster.progress._running and sum(" refused on w" in line for line in lines) >= 2
        cluster.close()
    finally:
        loopback.close()


CLIENT = textwrap.dedent("""
    import json, sys
    from dataclasses import replace
    from pathlib import Path
    from cluster_fake import FakeCommand
    from allocorpool import study
    from allocorpool.run import sweep
    from allocorpool.run.cluster import Cluster
    from allocorpool.run.experiments import batch as measure_batch, realtime as measure_realtime
    folder, address = Path(sys.argv[1]), sys.argv[2]
    tiny = replace(study.PROFILES["ci"], name="tiny", cases=("A",), solutions=("flat-glibc",), strict=False,
                   search=study.SearchPlan(high_ns=2000, longest_probe_s=2, confirm=False))
    cluster = Cluster(address, runs_dir=str(folder / "runs"),
                      command=FakeCommand(str(folder / "plan.json"), str(folder / "runs.log")))
    chapter = sweep.Sweep(tiny, folder / "store", progress=False, scheduler=cluster)
    measure_batch.batch(chapter.executor, [study.SOLUTIONS_BY_NAME["flat-glibc"]])
    measure_realtime.realtime(chapter.executor, [study.SOLUTIONS_BY_NAME["flat-glibc"]])
""")


def test_a_killed_client_resumes_from_the_store(shared, local_run, tmp_path):
    local_store = local_run[0]
    cluster, log = fake_cluster(shared, tmp_path, PLAN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(FIXTURES), os.environ.get("PYTHONPATH", "")])}
    client = subprocess.Popen([sys.executable, "-c", CLIENT, str(tmp_path), shared.address], env=env)
    deadline = time.monotonic() + START_S
    while len(runs(log)) < 12:
        assert time.monotonic() < deadline and client.poll() is None
        time.sleep(0.05)
    client.send_signal(signal.SIGKILL)
    client.wait()
    stored = set(Store(tmp_path / "store").index["key"])
    killed_at = len(runs(log))
    assert 0 < len(stored) < len(local_store.index)
    resumed = sweep.Sweep(TINY, tmp_path / "store", progress=False, scheduler=cluster)
    measure_batch.batch(resumed.executor, [FLAT]), measure_realtime.realtime(resumed.executor, [FLAT])
    assert cells_of(resumed.store) == cells_of(local_store)
    later = Counter(key for key, _, _ in runs(log)[killed_at:])
    assert not stored & set(later)  # nothing stored before the kill ran again
    # no more runs than without the kill (as the first test counts them) but for the cells that were running
    # when the client died, one per worker at most: their results never reached the store
    assert len(runs(log)) <= len(local_run[3]) + 1 + 2
    cluster.close()


@pytest.mark.engine
def test_real_ci_cells_on_a_two_worker_cluster_store_what_a_local_run_stores(shared, tmp_path):
    """Real engines, end to end, on a few cells of the ci sweep: the batch cells of a Java and a C++
    solution and a real-time probe of each (the what-if queue's), on the cluster and here. The stores
    hold the same cells, all ok, each from this machine."""
    names = ("parallel-11", "flat-glibc")
    chosen = [SOLUTIONS_BY_NAME[name] for name in names]
    cluster = Cluster(shared.address, runs_dir=str(tmp_path / "runs"))
    single = replace(study.PROFILES["ci"], blocks=study.BlockPlan(repetitions=0))  # single cells, as on the cluster
    remote = sweep.Sweep(single, tmp_path / "cluster", progress=False, scheduler=cluster)
    batch = measure_batch.batch(remote.executor, chosen)
    probes = measure_realtime.what_if_queue(remote.executor, remote.solutions_named(names))
    here = sweep.Sweep(single, tmp_path / "local", progress=False)
    measure_batch.batch(here.executor, chosen)
    measure_realtime.what_if_queue(here.executor, here.solutions_named(names))
    assert cells_of(remote.store) == cells_of(here.store) and len(remote.store.index) == 10
    assert (remote.store.index["status"] == "ok").all()
    # every cell names the build that ran it, the workers' and the client's (so the workers' check passed)
    builds = {engine: paths.engine_build(engine) for engine in ("java", "cpp")}
    assert set(remote.store.index[["engine", "build"]].itertuples(index=False, name=None)) == set(builds.items())
    assert all(builds.values())
    assert set(probes["engine"]) == {"java", "cpp"} and probes["keeps_up"].notna().all()
    this = machine.host_fingerprint()
    named = f"{machine.cpu_name(this['cpu_model'])}, {this['cpus']} CPUs"
    assert set(batch["machine"]) == set(probes["machine"]) == {named}
    cluster.close()


def fake_machine(name: str) -> dict[str, str]:
    """A worker's environment that makes it a machine of its own: FAKE_BOOTS' boot, FAKE_CPUS' CPUs."""
    return {"DASK_DISTRIBUTED__WORKER__PRELOAD": '["fake_machine"]', "FAKE_BOOT_ID": FAKE_BOOTS[name],
            "FAKE_CPUS": str(FAKE_CPUS[name])}


@pytest.fixture(scope="module")
def fake_machines(tmp_path_factory):
    """Two workers, each a machine of its own (fixtures/fake_machine.py): w1 of 8 CPUs, w2 of 16, in boots apart."""
    cluster = LoopbackCluster(tmp_path_factory.mktemp("machines"), {name: fake_machine(name) for name in FAKE_BOOTS})
    yield cluster
    cluster.close()


@pytest.fixture
def blocks_here(tmp_path, monkeypatch):
    """What a block measured here would run: the fake engine, logged as "local", and a calibration that times
    nothing (a test of blocks on the cluster then fails on where they ran, without running a real engine)."""
    command = FakeCommand(str(tmp_path / "plan.json"), str(tmp_path / "runs.log"))
    monkeypatch.setattr(executor, "run_cell", lambda cell, workdir, **options: run_cell(cell, workdir, **options,
                                                                                       build=command))
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 1.0))
    monkeypatch.setattr(calibration, "_latency_cache", {})


def worker_of(boot: str) -> str:
    return next(name for name, boot_id in FAKE_BOOTS.items() if machine.short_boot(boot_id) == boot)


def test_a_block_through_a_scheduler_runs_whole_on_one_worker_in_that_machines_boot(fake_machines, blocks_here,
                                                                                    tmp_path):
    cluster, log = fake_cluster(fake_machines, tmp_path, {"mix batch": "error"})
    two = [study.batch_block(FLAT, case, BLOCKS) for case in ("A", "B")]
    store = Store(tmp_path / "store")
    Executor(store, BLOCKS, scheduler=cluster).measure(two)
    register = store.table(blocks.BLOCKS_TABLE).set_index("block")
    reference = calibration.reference_cell(BLOCKS).key
    ran = placed(log)
    assert {run.worker for run in ran} <= set(FAKE_BOOTS)  # nothing ran here
    where = []
    for block in two:
        row = register.loc[block.id]  # one boot: the worker machine's, with its calibration, finished
        worker = worker_of(row["boot"])
        assert row["boot_id"] == FAKE_BOOTS[worker] and row["cpus"] == FAKE_CPUS[worker]
        assert row["load_ns_16mib"] == 150.0 and row["reference_status"] == "ok" and pd.notna(row["finished_utc"])
        keys = {cell.key for cell in block.runs(row["boot"])}
        assert {run.key for run in ran if run.key in keys} == keys  # every run, in that boot's keys
        assert {run.worker for run in ran if run.key in keys} == {worker}  # all on that worker, failures too
        where.append(worker)
    assert Counter(run.worker for run in ran if run.key == reference) == Counter(where)  # calibrated there
    index = store.index.set_index("key")
    failed = index[index["strategy"] == "mix"]
    assert len(failed) == 4 and (failed["status"] == "error").all() and (failed["attempts"] == 1).all()
    Executor(Store(tmp_path / "store"), BLOCKS, scheduler=cluster).measure(two)
    assert len(placed(log)) == len(ran)  # finished in a worker's boot: nothing runs again
    cluster.close()


def test_thread_counts_on_a_cluster_follow_its_smallest_workers_cpus(fake_machines, blocks_here, tmp_path,
                                                                     monkeypatch):
    cluster, _ = fake_cluster(fake_machines, tmp_path, {})
    ex = Executor(Store(tmp_path / "store"), BLOCKS, scheduler=cluster)
    assert ex.cpus() == 8  # the smallest worker's (w1's 8; w2 has 16), not this machine's
    asked: list[blocks.Block] = []
    monkeypatch.setattr(ex, "measure", lambda made, lanes=None: asked.extend(made) or [pd.DataFrame() for _ in made])

    def counts(table) -> list[int]:
        return sorted(set(table["threads"]))
    assert counts(measure_threads.threads(ex, [FLAT])) == [1, 2, 4, 8]
    assert counts(measure_handoff.handoffs(ex, [PARALLEL])) == [1, 2, 4, 8]  # the producer shares at 8
    assert counts(measure_threads.thread_probes(ex, [FLAT])) == [1, 2, 4]  # and the clock
    assert {cell.threads for block in asked for cell in block.cells} == {1, 2, 4, 8}
    cluster.close()


def test_a_worker_that_dies_mid_block_keeps_its_runs_and_the_block_resumes_in_its_boot(blocks_here, tmp_path):
    loopback = LoopbackCluster(tmp_path / "cluster", {"w1": fake_machine("w1")})
    try:
        block = study.batch_block(FLAT, "A", BLOCKS)
        order = block.runs(machine.short_boot(FAKE_BOOTS["w1"]))
        victim = order[3].key
        cluster, log = fake_cluster(loopback, tmp_path, {victim: "hang-first"})
        store = Store(tmp_path / "store")
        done: dict = {}

        def measure() -> None:
            try:
                Executor(store, BLOCKS, scheduler=cluster).measure([block])
            except BaseException as error:  # noqa: BLE001 - the test reads it
                done["error"] = error
        thread = threading.Thread(target=measure, daemon=True)
        thread.start()
        deadline = time.monotonic() + START_S
        while victim not in {run.key for run in placed(log)}:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.1)
        time.sleep(0.5)  # the engine has started and hangs
        loopback.kill("w1")
        thread.join(timeout=START_S)
        assert not thread.is_alive() and isinstance(done.get("error"), WorkerLost)
        assert set(Store(tmp_path / "store").index["key"]) == {cell.key for cell in order[:3]}  # kept
        loopback.start("w1", fake_machine("w1"))  # the machine's worker is back, in the same boot
        cluster.client.wait_for_workers(1, timeout=START_S)
        runs = Executor(Store(tmp_path / "store"), BLOCKS, scheduler=cluster).measure([block])[0]
        assert (runs["status"] == "ok").all() and runs["complete"].all() and set(runs["key"]) == {c.key for c in order}
        ran = Counter(run.key for run in placed(log))
        assert ran == {**{cell.key: 1 for cell in order}, victim: 2, calibration.reference_cell(BLOCKS).key: 1}
        assert len(Store(tmp_path / "store").table(blocks.BLOCKS_TABLE)) == 1  # resumed: one boot, calibrated once
        cluster.close()
    finally:
        loopback.close()


def test_no_scheduler_there_is_a_clear_error():
    with pytest.raises(ClusterError, match=r"no Dask scheduler answers at tcp://127\.0\.0\.1:9 \(ALLOC_OR_POOL"):
        Cluster("tcp://127.0.0.1:9", connect_timeout_s=1)
