"""Prints the pip section of environment.yml as a requirements list, for a venv without conda.

The file is read with a small line parser rather than PyYAML so that it runs on a bare
Python before anything is installed.
"""

import sys
from pathlib import Path


def pip_requirements(text: str) -> list[str]:
    requirements: list[str] = []
    pip_indent = None
    for line in text.splitlines():
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped.strip():
            continue
        indent = len(stripped) - len(stripped.lstrip())
        item = stripped.strip()
        if item == "- pip:":
            pip_indent = indent
            continue
        if pip_indent is not None:
            if indent <= pip_indent:
                pip_indent = None
            elif item.startswith("- "):
                requirements.append(item[2:].strip())
    if not requirements:
        raise SystemExit("environment.yml has no pip section")
    return requirements


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "environment.yml")
    print("\n".join(pip_requirements(path.read_text())))
