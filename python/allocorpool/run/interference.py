"""What running blocks side by side costs in accuracy, in miniature (`make interference`).

Two batch blocks (by default a C++ and a Java solution, case B, under the quick profile) are measured in
two CPU slots (run.slots: forced to two, so of one CPU each on a machine of two or three), first each alone
in its slot, one after the other, then both side by side, each in the same slot as alone. For every cell
it prints the ratio of its median time per packet side by side to its median alone, with its 95 %
bootstrap interval (effects.ratio): what a neighbour in the next slot costs that cell. What a verdict
needs is the comparison inside a block, so it also prints each strategy against allocation (ratio of
medians, interval, outcome) alone and side by side, and whether the outcome is the same. The blocks go to
stores of their own under build/interference/, emptied first; no store of data/ is read or written
(`--report` prints the tables of the stores the last measurement left, without running).
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
from allocorpool.run.blocks import Block, Lane
from allocorpool.run.cells import batch_block
from allocorpool.run.executor import Executor
from allocorpool.run.progress import Progress

SOLUTIONS = ("flat-glibc", "g1")
CASE = "B"
PROFILE = "quick"
COLUMNS = ["block", "strategy", "alone_ns", "side_by_side_ns", "ratio", "low", "high", "effect", "runs"]
VERDICT_COLUMNS = ["block", "comparison", "alone", "side_by_side", "outcome_alone", "outcome_side_by_side", "same"]
BASELINE = "alloc"  # each strategy of a block is compared with allocation, as the article's verdicts are
HARNESS = "dummy"  # the harness's cost: a figure of its own, not a strategy a verdict compares


def measure(blocks: Sequence[Block], running: slots.Slots, folder: Path,
            show: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Each block alone in its slot (the i-th block in the i-th slot), then all side by side in the same slots:
    a row per cell with both medians and their ratio (side by side / alone) with its interval (effect: as
    text)."""
    shutil.rmtree(folder, ignore_errors=True)
    lanes = [Lane(slots.cpus_text(cpus), lambda cell, slot=slot, runs=folder / "runs": running.run(cell, slot, runs))
             for slot, cpus in enumerate(running.cpus)]
    alone = _executor(folder / "alone", lanes[0].run, show)
    for block, lane in zip(blocks, lanes):
        alone.measure([block], [lane])
    _executor(folder / "side-by-side", lanes[0].run, show).measure(blocks, lanes[:len(blocks)])
    return cells(blocks, folder)


def _figures(blocks: Sequence[Block], folder: Path) -> list[tuple[Block, dict, dict]]:
    """Per block, the cells' figures alone and side by side, read from the two stores under folder."""
    def read(name: str, block: Block) -> dict:
        return cell_figures(_executor(folder / name, _not_run, replay=True).read(block))
    return [(block, read("alone", block), read("side-by-side", block)) for block in blocks]


def _executor(folder: Path, run: Callable, show: Callable[[str], None] | None = None,
              replay: bool = False) -> Executor:
    """An executor of blocks into the store at folder, its runs through run, no calibration, no cluster."""
    return Executor(Store(folder), profiles.profile(PROFILE), progress=Progress(False, "interference", sink=show),
                    replay=replay, run=run, calibrate=lambda: {})


def _not_run(cell):  # a report reads the stores only
    raise RuntimeError(f"a report does not run cells: {cell.key}")


def _samples(figures: dict, key: str) -> list[float]:
    return figures[key]["boot_samples"][figures[key]["boot"]]


def cells(blocks: Sequence[Block], folder: Path) -> pd.DataFrame:
    """A row per cell: its medians alone and side by side and their ratio (side by side / alone)."""
    rows = []
    for block, first, second in _figures(blocks, folder):
        for cell in block.cells:
            if cell.key not in first or cell.key not in second:
                continue  # a block that did not complete in its boot
            a, b = _samples(first, cell.key), _samples(second, cell.key)
            effect = effects.ratio(b, a)
            rows.append({"block": block.name, "strategy": cell.strategy, "alone_ns": effects.spread(a).median,
                         "side_by_side_ns": effects.spread(b).median, "ratio": effect.ratio, "low": effect.low,
                         "high": effect.high, "effect": effect.text(), "runs": f"{len(a)} alone, {len(b)} beside"})
    return pd.DataFrame(rows, columns=COLUMNS)


def verdicts(blocks: Sequence[Block], folder: Path) -> pd.DataFrame:
    """A row per strategy and block against allocation: the effect alone and side by side, each decided by
    effects.decide, and whether both decide the same."""
    rows = []
    for block, first, second in _figures(blocks, folder):
        base = next((cell for cell in block.cells if cell.strategy == BASELINE), None)
        for cell in block.cells:
            if base is None or cell is base or cell.strategy == HARNESS:
                continue
            if any(cell.key not in f or base.key not in f for f in (first, second)):
                continue  # a block that did not complete in its boot
            alone, beside = (effects.ratio(_samples(f, cell.key), _samples(f, base.key)) for f in (first, second))
            rows.append({"block": block.name, "comparison": f"{cell.strategy} / {BASELINE}", "alone": alone.text(),
                         "side_by_side": beside.text(), "outcome_alone": alone.outcome(),
                         "outcome_side_by_side": beside.outcome(), "same": alone.outcome() == beside.outcome()})
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", default=PROFILE, choices=sorted(profiles.PROFILES))
    parser.add_argument("--solutions", nargs=2, default=list(SOLUTIONS), metavar="NAME")
    parser.add_argument("--case", default=CASE)
    parser.add_argument("--report", action="store_true",
                        help="print the tables of the last measurement's stores; run nothing")
    args = parser.parse_args(argv)
    if args.solutions[0] == args.solutions[1]:
        parser.error("--solutions: two different solutions (one block each)")
    prof = profiles.profile(args.profile)
    blocks = [batch_block(lists.named(lists.SOLUTIONS_BY_NAME, name, "solution"), args.case, prof)
              for name in args.solutions]
    folder = paths.project_root() / "build" / "interference"
    if not args.report:
        cpus = slots.cpu_slots(len(blocks))
        print(f"{len(blocks)} batch blocks under {prof.name}, case {args.case}, in "
              f"{'; '.join(map(slots.cpus_text, cpus))}: each alone, then side by side", flush=True)
        with slots.Slots(cpus) as running:
            measure(blocks, running, folder, show=lambda text: print(text, flush=True))
    for row in cells(blocks, folder).to_dict("records"):
        print(f"{row['block']}, {row['strategy']}: {row['alone_ns']:.1f} ns per packet alone, "
              f"{row['side_by_side_ns']:.1f} side by side; side by side / alone {row['effect']} ({row['runs']})")
    table = verdicts(blocks, folder)
    for row in table.to_dict("records"):
        print(f"{row['block']}, {row['comparison']}: alone {row['alone']} {row['outcome_alone']}; side by side "
              f"{row['side_by_side']} {row['outcome_side_by_side']}{'' if row['same'] else '  (differs)'}")
    print(f"verdicts the same alone and side by side: {int(table['same'].sum())} of {len(table)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
