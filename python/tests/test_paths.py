"""Paths the study prints name no folder of the machine that built it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from allocorpool import paths


def test_a_path_is_shown_relative_to_the_checkout_or_home():
    assert paths.shown(paths.project_root() / "data" / "quick") == "data/quick"
    assert paths.shown(Path.home() / "stores" / "full") == "~/stores/full"
    assert paths.shown(Path("/opt/elsewhere")) == "/opt/elsewhere"


def test_a_store_written_by_the_sweep_leaves_the_commit_clean(tmp_path, monkeypatch):
    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)
    git("init", "-q")
    for name in ("data/full/index.parquet", "data/reference/article_reference.csv", "notebooks/02-batch.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("first\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
    monkeypatch.setenv("ALLOC_OR_POOL_HOME", str(tmp_path))
    clean = paths.source_commit()
    assert len(clean) == 12 and not clean.endswith("-dirty")
    (tmp_path / "data/full/index.parquet").write_text("a sweep stored a cell\n")
    assert paths.source_commit() == clean
    for name in ("data/reference/article_reference.csv", "notebooks/02-batch.py"):
        (tmp_path / name).write_text("changed\n")
        assert paths.source_commit() == clean + "-dirty"
        git("checkout", "--", name)
