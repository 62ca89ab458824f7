"""The README's answer: pooling against allocation per solution and case, from the committed full-size store's
blocks, as chapter 18 models them (analysis.model: every boot, the host class a factor, four verdicts), so that the
README cannot say more than the data. The lead names the boots and machines and counts the verdicts per host
class; two tables follow (batch, real time), solutions by case.

`lead` and `tallies` count verdicts by family for the article's abstract (chapters.answer).

`python -m allocorpool.chapters.headline` prints the lines from data/full; `--write README.md` puts them
between the README's answer markers (`make readme-answer`). tests/test_headline.py checks that the README
holds what the store says.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from allocorpool import effects, lists
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis import model
from allocorpool.chapters import depends
from allocorpool.data.store import Store

BEGIN = "<!-- answer: computed from data/full by make readme-answer -->"
END = "<!-- /answer -->"
FAMILIES = ("Java on the heap", "Java with buffers off the heap", "C++", "flat C++")


def family(solution: str) -> str:
    """The family a solution's verdicts are counted in."""
    s = lists.SOLUTIONS_BY_NAME[solution]
    if s.engine == "cpp":
        return "flat C++" if s.design == "flat" else "C++"
    return "Java with buffers off the heap" if s.native_buffers else "Java on the heap"


def _pairs(table: pd.DataFrame, cases: Iterable[str]) -> Iterable[tuple[str, dict[str, dict[str, Any]]]]:
    """(solution, {strategy: row}) per solution and case among `cases`, baselines left out."""
    if table is None or table.empty or "case" not in table:
        return
    rows = table[table["case"].isin(list(cases)) & ~table["baseline"].astype(bool)]
    for (solution, _), part in rows.groupby(["solution", "case"], sort=False):
        by = {str(r["strategy"]): r for r in part.to_dict("records")}
        if "pool" in by and "alloc" in by:
            yield str(solution), by


def tallies(table: pd.DataFrame, cases: Iterable[str],
            compare: Callable[[dict[str, Any], dict[str, Any]], Any]) -> dict[str, effects.Tally]:
    """Per family: pooling against allocation over the solution and case pairs of `cases`."""
    comparisons: dict[str, list[Any]] = {}
    for solution, by in _pairs(table, cases):
        comparisons.setdefault(family(solution), []).append(compare(by["pool"], by["alloc"]))
    return {f: effects.tally_of(comparisons[f]) for f in FAMILIES if f in comparisons}


def _named(names: list[str]) -> str:
    return "none of the solutions" if not names else (
        names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def lead(batch: pd.DataFrame) -> str:
    """The plain answer in batch: the families where pooling took less time than allocation in every pair
    measured, in case C and in cases A and B ("" where no pair was judged)."""
    return _lead(tallies(batch, ["C"], block_figures.compare), tallies(batch, ["A", "B"], block_figures.compare))


def _lead(alive: dict[str, effects.Tally], few: dict[str, effects.Tally]) -> str:
    if not any(t.judged for t in (*alive.values(), *few.values())):
        return ""
    gained_c = [f for f, t in alive.items() if t.outcome() == effects.HOLDS]
    gained_ab = [f for f, t in few.items() if t.outcome() == effects.HOLDS]
    if gained_c and gained_c == gained_ab:
        return (f"In every case, pooling took less time per packet than allocation in every solution measured for "
                f"{_named(gained_c)}.")
    if not gained_c and not gained_ab:
        return "In no family of solutions did pooling take less time per packet than allocation in every pair measured."
    alive_words = "where nearly every buffer stays alive (case C)"
    few_words = "where few do (cases A and B)" if gained_c else "where few buffers stay alive (cases A and B)"
    if not gained_ab or not gained_c:
        where, named = (alive_words, gained_c) if gained_c else (few_words, gained_ab)
        return (f"Pooling took less time per packet than allocation in every solution measured for {_named(named)} "
                f"{where}.")
    return (f"{alive_words[0].upper() + alive_words[1:]}, pooling took less time per packet than allocation in every solution "
            f"measured for {_named(gained_c)}; {few_words}, for {_named(gained_ab)}.")


def block(lines: list[str]) -> str:
    return "\n".join([BEGIN, *lines, END])


def replace(text: str, lines: list[str]) -> str:
    """The README with its answer markers' content replaced; a README without the markers is an error."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"the README has no answer block: add the lines {BEGIN!r} and {END!r} where it goes")
    return pattern.sub(lambda _: block(lines), text, count=1)


def current(text: str) -> list[str]:
    """The lines between the README's answer markers (an empty block: one empty line; no block: none)."""
    start, end = text.find(BEGIN), text.find(END)
    return [] if start < 0 or end < start else text[start + len(BEGIN):end].strip("\n").splitlines() or [""]


def from_store(profile: str = "full") -> list[str]:
    """The lines from a profile's store (it runs nothing)."""
    store = Store.named(profile)
    return depends.readme_lines(model.answer_runs(store.index, store.table("blocks")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", help="whose store (default full)")
    parser.add_argument("--write", type=Path, metavar="README", help="replace the answer block of this file")
    args = parser.parse_args(argv)
    if args.write is None:
        print("\n".join(from_store(args.profile)))
        return 0
    text = args.write.read_text()
    if not current(text):  # before the store is read: a README without the block is refused at once
        print(f"headline: {args.write} has no answer block: add the lines {BEGIN!r} and {END!r} where it goes",
              file=sys.stderr)
        return 2
    args.write.write_text(replace(text, from_store(args.profile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
