"""The published article (docs/article.html) is the one the committed study renders."""

from __future__ import annotations

import subprocess

import pytest

from allocorpool import paths
from allocorpool.chapters import publish


def test_the_published_article_was_rendered_from_the_committed_inputs():
    page = paths.project_root() / publish.PUBLISHED
    assert page.is_file(), f"{publish.PUBLISHED} is missing: `make publish` renders it"
    stamped = publish.stamped_digest(page.read_text(encoding="utf-8"))
    assert stamped, f"{publish.PUBLISHED} carries no digest of its inputs: `make publish` renders it"
    assert stamped == publish.inputs_digest(paths.project_root()), (
        f"{publish.PUBLISHED} was rendered from other inputs than this checkout's store, chapters or package:"
        " run `make publish` and commit the page")


@pytest.fixture
def checkout(tmp_path):
    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)
    git("init", "-q")
    for name in ("data/full/index.parquet", "notebooks/02-batch.py", "python/allocorpool/study.py",
                 "python/allocorpool/kernels/cpp_kernel.py", "README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("first\n")
    git("add", ".")
    return tmp_path


def test_the_digest_moves_with_every_input_and_with_nothing_else(checkout):
    first = publish.inputs_digest(checkout)
    assert publish.inputs_digest(checkout) == first
    (checkout / "README.md").write_text("reworded\n")
    (checkout / "python/allocorpool/kernels/cpp_kernel.py").write_text("a kernel changed\n")
    assert publish.inputs_digest(checkout) == first
    for name in ("data/full/index.parquet", "notebooks/02-batch.py", "python/allocorpool/study.py"):
        (checkout / name).write_text(f"{name} changed\n")
        changed = publish.inputs_digest(checkout)
        assert changed != first, name
        first = changed
    (checkout / "notebooks/02-batch.py").unlink()
    assert publish.inputs_digest(checkout) != first


def test_a_stamp_is_read_back_and_replaced_not_repeated():
    page = "<html><head><title>t</title></head><body>answer</body></html>"
    once = publish.stamp(page, "a" * 64)
    assert publish.stamped_digest(once) == "a" * 64
    twice = publish.stamp(once, "b" * 64)
    assert publish.stamped_digest(twice) == "b" * 64 and twice.count("alloc-or-pool-inputs") == 1
    assert publish.stamped_digest(page) is None
    with pytest.raises(ValueError):
        publish.stamp("<body>no head</body>", "c" * 64)


def test_publishing_a_page_never_rendered_names_what_is_valid(tmp_path, capsys):
    assert publish.main([str(tmp_path / "missing.html"), str(tmp_path / "out.html")]) == 2
    assert "make article PROFILE=full SOLUTIONS=paper" in capsys.readouterr().err
