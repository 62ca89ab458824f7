"""Where the project's build products live, relative to the checkout."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from allocorpool import settings


def project_root() -> Path:
    """The checkout: ALLOC_OR_POOL_HOME if set, else two levels above this package."""
    explicit = settings.home()
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


def memory_latency_program() -> Path:
    return project_root() / "build" / "cpp-lib" / "memory_latency"


def data_dir() -> Path:
    return project_root() / "data"


def shown(path: Path) -> str:
    """A path as the study prints it: relative to the checkout, or under ~, so that a published
    article names no folder of the machine that built it."""
    path = Path(path).resolve()
    for base, name in ((project_root(), ""), (Path.home(), "~")):
        if base != Path("/") and path.is_relative_to(base):
            relative = path.relative_to(base).as_posix()
            return f"{name}/{relative}" if name else relative
    return str(path)


def source_commit() -> str:
    """The checkout's commit, with -dirty when tracked files other than the stores' differ; 'unknown'
    outside git. A sweep writes the committed store (data/full) as it runs, and that alone made every
    run after its first -dirty."""
    root = project_root()
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--no-renames"],
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    dirty = any(not _in_a_store(line[3:]) for line in changed)
    return commit + ("-dirty" if dirty else "")


def _in_a_store(path: str) -> bool:
    """Whether a checkout path is a store's (data/<profile>/..., data/reference/ excepted: the article's figures)."""
    parts = path.strip('"').split("/")
    return len(parts) > 2 and parts[0] == "data" and parts[1] != "reference"


# The engines' folders whose content makes an engine build's id (tools/source_id.py).
ENGINE_SOURCES = {"java": ("java-lib", "native-queue"), "cpp": ("cpp-lib", "native-queue")}
_BUILDS: dict[tuple[str, float], str] = {}


def engine_build(engine: str) -> str:
    """The source id the built engine was built from (embedded by its build), "" where it has none:
    the jar's allocorpool/build.properties `engine.source`, cpp-lib's generated engine_source.txt."""
    if engine not in ENGINE_SOURCES:
        raise ValueError(f"unknown engine {engine!r}; one of {', '.join(ENGINE_SOURCES)}")
    artifact = java_jar() if engine == "java" else cpp_engine().parent / "generated" / "engine_source.txt"
    try:
        stamp = artifact.stat().st_mtime
    except FileNotFoundError:
        return ""
    if (str(artifact), stamp) not in _BUILDS:
        if engine == "java":
            with zipfile.ZipFile(artifact) as jar:
                try:
                    text = jar.read("allocorpool/build.properties").decode("utf-8")
                except KeyError:
                    text = ""
            found = dict(line.split("=", 1) for line in text.splitlines() if "=" in line).get("engine.source", "")
        else:
            found = artifact.read_text(encoding="utf-8")
        found = found.strip()
        _BUILDS[(str(artifact), stamp)] = "" if found.startswith("${") or found.startswith("@") else found
    return _BUILDS[(str(artifact), stamp)]
