"""`python -m allocorpool.kernels install`: installs the exploration kernels' specs."""

from __future__ import annotations

import argparse
import sys

from . import specs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m allocorpool.kernels", description=__doc__)
    parser.add_argument("command", choices=["install"])
    parser.parse_args(argv)
    try:
        for line in specs.install_all():
            print(line)
    except FileNotFoundError as missing:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
