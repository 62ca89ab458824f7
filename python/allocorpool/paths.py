"""Where the project's build products live, relative to the checkout."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def project_root() -> Path:
    """The checkout: ALLOC_OR_POOL_HOME if set, else two levels above this package."""
    explicit = os.environ.get("ALLOC_OR_POOL_HOME")
    if explicit:
        return Path(explicit).resolve()
    return Path(__file__).resolve().parents[2]


def jdks_dir() -> Path:
    return project_root() / ".jdks"


def java_jar() -> Path:
    return project_root() / "java-lib" / "target" / "alloc-or-pool.jar"


def native_queue_lib() -> Path:
    return project_root() / "build" / "native-queue" / "libnativequeue.so"


def cpp_engine() -> Path:
    return project_root() / "build" / "cpp-lib" / "cpp_engine"


def data_dir() -> Path:
    return project_root() / "data"


def source_commit() -> str:
    """The checkout's commit, with -dirty when tracked files differ; 'unknown' outside git."""
    root = project_root()
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")
