"""Converts notebooks kept as jupytext text (the chapters' notebooks/NN-*.py, the exploration notebooks'
.java and .cpp) to .ipynb files in one process. jupytext's command line starts an interpreter and imports
jupytext for every notebook, which costs seconds each; the build converts all of them at once instead.

Usage: python tools/to_ipynb.py OUT_DIR SOURCE [SOURCE ...]
       writes OUT_DIR/<name>.ipynb for each SOURCE (its folder made if missing)
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir, sources = Path(argv[0]), [Path(a) for a in argv[1:]]
    missing = [str(s) for s in sources if not s.is_file()]
    if missing:
        print(f"to_ipynb: no such notebook source: {', '.join(missing)}", file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)
    for source in sources:
        jupytext.write(jupytext.read(source), out_dir / f"{source.stem}.ipynb", fmt="ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
