"""environment.yml's pip section is what a venv gets."""

import importlib.util
from pathlib import Path

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "requirements_from_env.py"
_spec = importlib.util.spec_from_file_location("requirements_from_env", _TOOL)
requirements_from_env = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(requirements_from_env)


def test_reads_only_the_pip_section():
    text = """name: x
dependencies:
  - python=3.11
  - pip
  - pip:
      - pytest==8.3.4   # tests
      - pandas==2.2.3
other:
  - not-this
"""
    assert requirements_from_env.pip_requirements(text) == ["pytest==8.3.4", "pandas==2.2.3"]


def test_every_pip_requirement_is_pinned():
    text = (_TOOL.parents[1] / "environment.yml").read_text()
    for requirement in requirements_from_env.pip_requirements(text):
        assert "==" in requirement, f"{requirement} is not pinned"
