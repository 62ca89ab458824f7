"""Executes notebooks one after the other with papermill, from one process: each in a kernel of its own, as
papermill's command line runs it, without starting papermill again for each (some 2.5 s of a CPU every time).
A notebook that fails does not stop the others; the exit status is 1 when any failed, and its executed copy
shows where.

Usage: python tools/execute_notebooks.py OUT_DIR NOTEBOOKS_DIR NOTEBOOK... [-p NAME VALUE]...
(each executed copy goes to OUT_DIR under its path relative to NOTEBOOKS_DIR; -p as papermill's).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

import papermill


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("notebooks_dir", type=Path)
    parser.add_argument("notebooks", type=Path, nargs="+")
    parser.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    parser.add_argument("--cwd", type=Path, default=Path.cwd())
    parser.add_argument("--label", default="", help="said after each notebook's name with its time")
    args = parser.parse_args(argv)
    logging.getLogger("papermill").setLevel(logging.WARNING)
    failed = []
    for notebook in args.notebooks:
        out = args.out_dir / notebook.relative_to(args.notebooks_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        try:
            papermill.execute_notebook(str(notebook), str(out), parameters=dict(args.p), kernel_name="python3",
                                       cwd=str(args.cwd), progress_bar=False)
        except Exception as error:  # noqa: BLE001 - papermill's failures are of many kinds; each is reported
            failed.append(notebook.name)
            print(f"{notebook.name} failed: {str(error).strip().splitlines()[-1] if str(error).strip() else error!r}",
                  flush=True)
        print(f"{notebook.name}{args.label}: {time.monotonic() - start:.0f} s", flush=True)
    if failed:
        print(f"notebooks that failed{args.label}: {' '.join(failed)} (their executed copies in {args.out_dir} show "
              "where)", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
