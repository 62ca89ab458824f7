"""environment.yml's pip section is what a venv gets."""

import importlib.util
import subprocess
import sys
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


def test_a_tagged_requirement_belongs_to_its_group_alone():
    text = """dependencies:
  - pip:
      - pandas==2.2.3  # the study
      - cppyy==3.5.0  # [kernels] builds from source
      - jjava==1.0a8  # [kernels]
"""
    assert requirements_from_env.pip_requirements(text) == ["pandas==2.2.3"]
    assert requirements_from_env.pip_requirements(text, "kernels") == ["cppyy==3.5.0", "jjava==1.0a8"]


def test_an_unknown_group_exits_2_naming_it():
    result = subprocess.run([sys.executable, str(_TOOL), str(_TOOL.parents[1] / "environment.yml"), "--group", "nope"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "[nope]" in result.stderr


def test_every_pip_requirement_is_pinned_and_the_kernels_come_apart():
    text = (_TOOL.parents[1] / "environment.yml").read_text()
    core, kernels = requirements_from_env.pip_requirements(text), requirements_from_env.pip_requirements(text, "kernels")
    for requirement in core + kernels:
        assert "==" in requirement, f"{requirement} is not pinned"
    assert {r.split("==")[0] for r in kernels} == {"cppyy", "jjava"} and not {"cppyy", "jjava"} & {
        r.split("==")[0] for r in core}
