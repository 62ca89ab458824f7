"""The published article: docs/article.html, the full-size article rendered from the committed study.

`make publish` renders the article of the committed store (`make article PROFILE=full
SOLUTIONS=paper`) and copies it to docs/article.html with a stamp: the SHA-256 over every file it
is rendered from (the store data/full/, the 2019 figures in data/reference/, the chapters'
notebooks and the study's package). A test recomputes the digest, so a commit that changes any of
them without publishing again fails `make test` instead of leaving a stale page behind.

Usage: python -m allocorpool.chapters.publish RENDERED.html PUBLISHED.html
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from pathlib import Path

from allocorpool import paths

PUBLISHED = Path("docs") / "article.html"
INPUTS = ("data/full", "data/reference", "notebooks", "python/allocorpool")
NOT_INPUTS = ("python/allocorpool/kernels/",)  # the exploration kernels: no chapter imports them
STAMP = '<meta name="alloc-or-pool-inputs" content="{}">'
STAMP_PATTERN = re.compile(r'<meta name="alloc-or-pool-inputs" content="([0-9a-f]{64})">')


def input_files(root: Path) -> list[str]:
    """The tracked files the article is rendered from, relative to `root`, in a fixed order."""
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", *INPUTS],
                            check=True, capture_output=True).stdout.decode()
    return sorted(name for name in listed.split("\0") if name and not name.startswith(NOT_INPUTS))


def inputs_digest(root: Path) -> str:
    """SHA-256 over each input's path and content as the working tree holds them (a file deleted
    but still tracked counts as absent)."""
    digest = hashlib.sha256()
    for name in input_files(root):
        path = root / name
        if not path.is_file():
            continue
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def stamp(page: str, digest: str) -> str:
    """The page with its inputs' digest in its head (replacing an earlier stamp)."""
    page = STAMP_PATTERN.sub("", page)
    head = page.find("<head>")
    if head < 0:
        raise ValueError("the rendered article has no <head>")
    at = head + len("<head>")
    return page[:at] + "\n" + STAMP.format(digest) + page[at:]


def stamped_digest(page: str) -> str | None:
    found = STAMP_PATTERN.search(page)
    return found.group(1) if found else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rendered", type=Path)
    parser.add_argument("published", type=Path)
    args = parser.parse_args(argv)
    if not args.rendered.is_file():
        print(f"publish: {args.rendered} is missing; valid: a page `make article PROFILE=full SOLUTIONS=paper` "
              "rendered", file=sys.stderr)
        return 2
    digest = inputs_digest(paths.project_root())
    args.published.parent.mkdir(parents=True, exist_ok=True)
    args.published.write_text(stamp(args.rendered.read_text(encoding="utf-8"), digest), encoding="utf-8")
    print(f"published {args.published} ({args.published.stat().st_size / 1e6:.1f} MB), inputs {digest[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
