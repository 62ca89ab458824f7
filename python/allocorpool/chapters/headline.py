"""The README's answer, a sentence and the table it reads: pooling against allocation, counted from the
committed full-size store as the article counts it, so that the README cannot say more than the data.

Batch: per solution and case of the article's eight, pooling's median time per packet over allocation's, with
its 95 % interval over a block's repetitions (analysis.blocks.compare); then, in case C, the same over every
JDK and collector pair the JDKs chapter measured. Real time: per solution and case, the difference of the two
strategies' median losses at one packet a microsecond (analysis.blocks.compare_losses). Each row tallies the
verdicts by family (Java on the heap, Java with buffers off the heap, C++, flat C++): faster, slower, or no
difference measured, so each could come out either way. The lead sentence names the families where pooling won
in every pair.

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
from allocorpool.chapters import jdks as jdk_chapter

BEGIN = "<!-- answer: computed from data/full by make readme-answer -->"
END = "<!-- /answer -->"
FAMILIES = ("Java on the heap", "Java with buffers off the heap", "C++", "flat C++")
WORDS = {effects.HOLDS: "faster", effects.FAILS: "slower", effects.NO_DIFFERENCE: "no difference"}
LOSS_WORDS = {effects.HOLDS: "fewer lost", effects.FAILS: "more lost", effects.NO_DIFFERENCE: "no difference"}


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


def tally_words(tally: effects.Tally, words: dict[str, str] = WORDS) -> str:
    """'faster in 1, slower in 4 of 6' (the unmeasured left out; boots that disagree said)."""
    return tally.text("", labels=words, unmeasured=False) if tally.judged else "not measured"


def _jdks_of(table: pd.DataFrame, name: str) -> str:
    """A family's name, with the JDKs its Java solutions in the table ran on."""
    names = table["solution"].unique() if "solution" in table else ()
    jdks = sorted({lists.SOLUTIONS_BY_NAME[s].jdk for s in names if family(s) == name} - {None})
    return name + (f", JDK {' and '.join(map(str, jdks))}" if jdks else "")


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


def lines(batch: pd.DataFrame, probes: pd.DataFrame | None, jdks: pd.DataFrame) -> list[str]:
    """The lead sentence, then the table it reads: per test and family, pooling against allocation in case C
    and in cases A and B."""
    alive = tallies(batch, ["C"], block_figures.compare)
    few = tallies(batch, ["A", "B"], block_figures.compare)
    lead_words = f"{_lead(alive, few) or 'No solution and case pair was measured in repeated runs.'} Elsewhere the verdicts are mixed or show no difference, as counted here over solution and case pairs:"
    rows = [("batch, " + _jdks_of(batch, f), alive.get(f), few.get(f), WORDS) for f in FAMILIES]
    pairs = jdk_chapter.pooling_tallies(jdks).get("C", effects.tally([]))
    if pairs.judged:
        rows.insert(1, (f"batch, Java on the heap, every collector of JDK {jdks['jdk'].min()} to {jdks['jdk'].max()}",
                        pairs, None, WORDS))
    lost_c = tallies(probes, ["C"], block_figures.compare_losses)
    lost_ab = tallies(probes, ["A", "B"], block_figures.compare_losses)
    rows += [("real time at 1 µs, " + f, lost_c.get(f), lost_ab.get(f), LOSS_WORDS) for f in FAMILIES]
    table = ["| pooling against allocation | case C (nearly every buffer alive) | cases A and B (few alive) |",
             "| --- | --- | --- |"]
    for what, c, ab, words in rows:
        if (c and c.judged) or (ab and ab.judged):
            table.append(f"| {what} | {tally_words(c, words) if c else 'not measured'} | "
                         f"{tally_words(ab, words) if ab else 'not measured'} |")
    return [lead_words, "", *table]


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
    """The lines from a profile's store, the article's eight solutions (it runs nothing)."""
    from allocorpool.run.sweep import Sweep  # the store's reader, only where the sentences are made from it

    sweep = Sweep(profile, None, progress=False, replay=True, selection="all")  # the JDKs chapter's every pair
    chosen = sweep.solutions_named(lists.selection("paper") or ())
    return lines(sweep.batch(chosen), sweep.probe_blocks(chosen), sweep.across_jdks())


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
