"""Prints the id of an engine's sources: a hash of the content of every file git knows (or would
know: untracked, not ignored) under the given paths (folders or files), as they are in the working tree.
The Makefile gives only what is built into the engine: its tests and benchmarks do not count, so a
change to them does not orphan the cells a store holds.

The builds embed it in the engines (their header record's `engine_source`), and the study keys every
cell with the id of the engine that ran it: a result measured by other engine code is never taken
for this one's, while a rebuild of the same sources on another machine finds its cells again.

Usage: python3 tools/source_id.py PATH [PATH ...]   (from the checkout's root)
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

DIGITS = 12


def source_id(root: Path, paths: list[str]) -> str:
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                             "--", *paths], capture_output=True, check=True).stdout
    digest = hashlib.sha256()
    for name in sorted({n for n in listed.decode().split("\0") if n}):
        path = root / name
        if path.is_file():  # a file deleted in the working tree is no longer a source
            digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:DIGITS]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parents[1]
    missing = [f for f in argv if not (root / f).exists()]
    if missing:
        print(f"source_id: no {', '.join(missing)} in {root}", file=sys.stderr)
        return 2
    print(source_id(root, argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
