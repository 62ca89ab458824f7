"""What running blocks side by side costs in accuracy, in miniature (`make interference`).

Two batch blocks (by default a C++ and a Java solution, case B, under the quick profile) are measured in
two CPU slots (run.slots: forced to two, so of one CPU each on a machine of two or three), first each alone
in its slot, one after the other, then both side by side, each in the same slot as alone. For every cell
it prints the ratio of its median time per packet side by side to its median alone, with its 95 %
bootstrap interval (effects.ratio): what a neighbour in the next slot costs that cell. The blocks go to
stores of their own under build/interference/, emptied first; no store of data/ is read or written.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from allocorpool import effects, lists, paths, profiles
from allocorpool.analysis.blocks import cell_figures
from allocorpool.data.store import Store
from allocorpool.run import slots
from allocorpool.run.blocks import Block, BlockRunner, Lane
from allocorpool.run.cells import batch_block

SOLUTIONS = ("flat-glibc", "g1")
CASE = "B"
PROFILE = "quick"
COLUMNS = ["block", "strategy", "alone_ns", "side_by_side_ns", "ratio", "low", "high", "effect", "runs"]


def measure(blocks: Sequence[Block], running: slots.Slots, folder: Path,
            show: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Each block alone in its slot (the i-th block in the i-th slot), then all side by side in the same slots:
    a row per cell with both medians and their ratio (side by side / alone) with its interval (effect: as
    text)."""
    shutil.rmtree(folder, ignore_errors=True)
    lanes = [Lane(slots.cpus_text(cpus), lambda cell, slot=slot, runs=folder / "runs": running.run(cell, slot, runs))
             for slot, cpus in enumerate(running.cpus)]
    alone = BlockRunner(Store(folder / "alone"), lanes[0].run, show=show)
    alone_runs = [alone.measure_all([block], [lane])[0] for block, lane in zip(blocks, lanes)]
    together = BlockRunner(Store(folder / "side-by-side"), lanes[0].run, show=show)
    together_runs = together.measure_all(blocks, lanes[:len(blocks)])
    rows = []
    for block, by_itself, beside in zip(blocks, alone_runs, together_runs):
        first, second = cell_figures(by_itself), cell_figures(beside)
        for cell in block.cells:
            if cell.key not in first or cell.key not in second:
                continue  # a block that did not complete in its boot
            a, b = (f["boot_samples"][f["boot"]] for f in (first[cell.key], second[cell.key]))
            effect = effects.ratio(b, a)
            rows.append({"block": block.name, "strategy": cell.strategy, "alone_ns": effects.spread(a).median,
                         "side_by_side_ns": effects.spread(b).median, "ratio": effect.ratio, "low": effect.low,
                         "high": effect.high, "effect": effect.text(), "runs": f"{len(a)} alone, {len(b)} beside"})
    return pd.DataFrame(rows, columns=COLUMNS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", default=PROFILE, choices=sorted(profiles.PROFILES))
    parser.add_argument("--solutions", nargs=2, default=list(SOLUTIONS), metavar="NAME")
    parser.add_argument("--case", default=CASE)
    args = parser.parse_args(argv)
    if args.solutions[0] == args.solutions[1]:
        parser.error("--solutions: two different solutions (one block each)")
    prof = profiles.profile(args.profile)
    blocks = [batch_block(lists.named(lists.SOLUTIONS_BY_NAME, name, "solution"), args.case, prof)
              for name in args.solutions]
    cpus = slots.cpu_slots(len(blocks))
    print(f"{len(blocks)} batch blocks under {prof.name}, case {args.case}, in {'; '.join(map(slots.cpus_text, cpus))}"
          f": each alone, then side by side", flush=True)
    with slots.Slots(cpus) as running:
        table = measure(blocks, running, paths.project_root() / "build" / "interference",
                        show=lambda text: print(text, flush=True))
    for row in table.to_dict("records"):
        print(f"{row['block']}, {row['strategy']}: {row['alone_ns']:.1f} ns per packet alone, "
              f"{row['side_by_side_ns']:.1f} side by side; side by side / alone {row['effect']} ({row['runs']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
