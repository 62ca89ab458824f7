"""tools/source_id.py: the id of an engine's sources follows their content, tracked or not, and only it."""

import importlib.util
import subprocess
from pathlib import Path

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "source_id.py"
_spec = importlib.util.spec_from_file_location("source_id", _TOOL)
source_id = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(source_id)


def test_the_id_follows_the_sources_content(tmp_path):
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "engine").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "engine" / "a.cpp").write_text("int a;\n")
    (tmp_path / ".gitignore").write_text("engine/build/\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    first = source_id.source_id(tmp_path, ["engine"])
    (tmp_path / "other" / "b.txt").write_text("elsewhere\n")
    (tmp_path / "engine" / "build").mkdir()
    (tmp_path / "engine" / "build" / "a.o").write_text("ignored\n")
    assert source_id.source_id(tmp_path, ["engine"]) == first  # other folders and ignored files do not count
    (tmp_path / "engine" / "a.cpp").write_text("int a = 1;\n")
    edited = source_id.source_id(tmp_path, ["engine"])
    assert edited != first  # an uncommitted edit counts
    (tmp_path / "engine" / "new.hpp").write_text("#pragma once\n")
    assert source_id.source_id(tmp_path, ["engine"]) not in (first, edited)  # so does a new, untracked file
    (tmp_path / "engine" / "new.hpp").unlink()
    (tmp_path / "engine" / "a.cpp").write_text("int a;\n")
    assert source_id.source_id(tmp_path, ["engine"]) == first  # the same content, the same id


def test_a_file_counts_on_its_own(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "pom.xml").write_text("<project/>\n")
    (tmp_path / "engine" / "bench.cpp").write_text("int b;\n")
    first = source_id.source_id(tmp_path, ["engine/pom.xml"])
    (tmp_path / "engine" / "bench.cpp").write_text("int b = 2;\n")
    assert source_id.source_id(tmp_path, ["engine/pom.xml"]) == first  # a file not given does not count
    (tmp_path / "engine" / "pom.xml").write_text("<project></project>\n")
    assert source_id.source_id(tmp_path, ["engine/pom.xml"]) != first
