"""Prints the pip section of environment.yml as a requirements list, for a venv without conda.

A requirement whose comment carries a tag in brackets (`# [kernels]`) belongs to that group: by
default the list leaves every tagged requirement out; `--group NAME` prints that group's alone.
conda installs the whole file.

The file is read with a small line parser rather than PyYAML so that it runs on a bare
Python before anything is installed.

Usage: python3 tools/requirements_from_env.py [environment.yml] [--group NAME]
"""

import re
import sys
from pathlib import Path

TAG = re.compile(r"\[([a-z-]+)\]")


def pip_requirements(text: str, group: str | None = None) -> list[str]:
    requirements: list[str] = []
    pip_indent = None
    for line in text.splitlines():
        stripped, _, comment = line.partition("#")
        stripped = stripped.rstrip()
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
                tag = TAG.search(comment)
                if (tag[1] if tag else None) == group:
                    requirements.append(item[2:].strip())
    if not requirements:
        print(f"environment.yml's pip section has no requirement{f' tagged [{group}]' if group else ''}",
              file=sys.stderr)
        sys.exit(2)
    return requirements


if __name__ == "__main__":
    args = sys.argv[1:]
    group = None
    if "--group" in args:
        at = args.index("--group")
        if at + 1 >= len(args):
            print("usage: requirements_from_env.py [environment.yml] [--group NAME]", file=sys.stderr)
            sys.exit(2)
        group = args[at + 1]
        del args[at:at + 2]
    path = Path(args[0] if args else "environment.yml")
    print("\n".join(pip_requirements(path.read_text(), group)))
