"""Chapters whose runs fail: under quick they show the failures and go on; under ci they fail.

The notebooks run on a checkout without built engines (ALLOC_OR_POOL_HOME: a folder holding only the
reference figures), so every run fails the way a missing build does."""

import shutil
from pathlib import Path

import jupytext
import nbformat
import papermill
import pytest

from allocorpool import paths

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.fixture
def unbuilt_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(paths.data_dir() / "reference", home / "data" / "reference")
    monkeypatch.setenv("ALLOC_OR_POOL_HOME", str(home))
    return home


def execute(name, tmp_path, profile):
    notebook = tmp_path / f"{name}.ipynb"
    nbformat.write(jupytext.read(NOTEBOOKS / f"{name}.py"), notebook)
    out = tmp_path / f"{name}-{profile}.ipynb"
    papermill.execute_notebook(str(notebook), str(out), kernel_name="python3", progress_bar=False,
                               parameters={"profile": profile, "data_dir": str(tmp_path / f"data-{profile}")})
    return nbformat.read(out, as_version=4)


def outputs_text(notebook):
    return "\n".join(str(output.get("data", {}).get("text/html", "")) + str(output.get("text", ""))
                     for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs)


# One chapter each way (a chapter of queue runs, one of Java runs): a chapter shows its failures through the
# executor, which every chapter shares.
def test_failed_runs_are_shown_and_the_chapter_goes_on(unbuilt_home, tmp_path):
    text = outputs_text(execute("01-native-queue", tmp_path, "quick"))
    assert "failed or timed out" in text and "is missing" in text


def test_under_ci_a_chapter_whose_runs_failed_fails(unbuilt_home, tmp_path):
    with pytest.raises(papermill.PapermillExecutionError, match="ChapterFailed"):
        execute("03-gc-logs", tmp_path, "ci")
