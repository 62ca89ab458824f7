"""Chapter 08, C++ and flat C++: the designs and allocators, what each allocates per packet, the choice of
pool (the engine's free list against the standard library's), and the article's C++ claims checked here."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from allocorpool import effects
from allocorpool.analysis import blocks as block_figures
from allocorpool.data.records import MISSING
from allocorpool.chapters.page import display as show
from allocorpool.analysis.claims import Claim, across, every, outcome_is, ratio_rule, search_rule, searched
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict
from allocorpool.lists import POOL_CHOICE_LABELS, POOL_CHOICE_SOLUTIONS, Solution


def show_allocations(batch: pd.DataFrame) -> None:
    """Allocations per packet as the engine counted them, per solution, strategy and case."""
    counts = batch[batch["status"] == "ok"].pivot_table(index=["label", "strategy_label"], columns="case",
                                                         values="allocs_per_packet", sort=False)
    counts.index.names = ["solution", "strategy"]
    show.show_table(counts, caption="Allocations per packet", precision=2)


# ---- the choice of pool -------------------------------------------------------------------
STANDARD, FREE_LIST, ALLOC = "pmr", "pool", "alloc"


def pool_choice_solutions(chosen: list[Solution]) -> list[Solution]:
    """The chapter's solutions that run the choice of pool (lists.POOL_CHOICE_SOLUTIONS)."""
    return [solution for solution in chosen if solution.name in POOL_CHOICE_SOLUTIONS]


def _pool_rows(table: pd.DataFrame) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """The pool-choice rows by (solution label, case), then by strategy."""
    grouped: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for row in table.to_dict("records"):
        grouped.setdefault((str(row["label"]), str(row["case"])), {})[str(row["strategy"])] = row
    return grouped


def _ok(row: dict[str, Any] | None) -> bool:
    return row is not None and row.get("status") == "ok"


def _ratio(rows: dict[str, dict[str, Any]], numerator: str, denominator: str) -> block_figures.Comparison | None:
    if not (_ok(rows.get(numerator)) and _ok(rows.get(denominator))):
        return None
    return block_figures.compare(rows[numerator], rows[denominator])


def pool_choice_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per design and case: each strategy's time per packet (median, 95 % interval) and the standard pool's
    time over the free list's and over allocation's, with the ratio's interval."""
    rows = []
    for (label, case), by in _pool_rows(table).items():
        row: dict[str, Any] = {"solution": label, "case": case}
        for strategy, found in by.items():
            row[POOL_CHOICE_LABELS[strategy]] = (
                "not measured" if found.get("status") == MISSING else str(found.get("status")) if not _ok(found)
                else effects.Spread(float(found["ns_per_packet"]), found.get("ns_low") or math.nan,
                                    found.get("ns_high") or math.nan, int(found.get("runs") or 0)).text())
        for other, words in ((FREE_LIST, "free list"), (ALLOC, "allocation")):
            comparison = _ratio(by, STANDARD, other)
            row[f"Standard pool over {words}"] = "not measured" if comparison is None else comparison.effect.text()
        rows.append(row)
    return pd.DataFrame(rows).set_index(["solution", "case"]) if rows else pd.DataFrame()


def pool_choice_findings(table: pd.DataFrame) -> list[str]:
    """What the pool-choice blocks say, in sentences computed from them: over the design and case pairs, how
    often the standard pool is slower than the free list and than allocation (ratio of medians, 95 % interval,
    decided against parity by the margin), and the range of its ratio to the free list."""
    lines = []
    for other, words in ((FREE_LIST, "the engine's free list"), (ALLOC, "allocation")):
        comparisons = [c for by in _pool_rows(table).values() if (c := _ratio(by, STANDARD, other)) is not None]
        judged = [c for c in comparisons if c.effect.measured]
        if not judged:
            continue
        # the standard pool's time over the other's: FAILS where it is slower by the margin
        tally = effects.tally_of(judged)
        ratios = sorted(c.effect.ratio for c in judged)
        span = f"{ratios[0]:.2f}" if len(ratios) == 1 else f"{ratios[0]:.2f} to {ratios[-1]:.2f}"
        lines.append(f"Against {words}, the standard-library pool takes more time in {tally.fails} and less in "
                     f"{tally.holds} of {show.count(len(judged), 'design and case pair')}, its time {span} times as "
                     f"long" + (f" ({tally.boots_text()})" if tally.flips else "") + ".")
    return lines


def show_pool_choice(table: pd.DataFrame) -> None:
    """The choice-of-pool section: its table and findings."""
    if table.empty:
        show.note("No solution of this section is in this profile's selection.")
        return
    show.show_table(pool_choice_table(table), "Time per packet, ns: median (95 % interval); ratios of medians "
                                              "(95 % interval)")
    for line in pool_choice_findings(table):
        show.note(line)


# ---- the article's claims -----------------------------------------------------------------
HARNESS_FACTOR = 3.0  # "bad" dummy results: several times the flat design's
FLAT_POOL_LIMITS_NS = {"B": 200, "C": 250}  # five and four million packets a second


def _glibc(frame: pd.DataFrame, design: str) -> pd.DataFrame:
    return frame[frame["solution"] == f"{design}-glibc"]


def allocating_harness_costs_several_times_flat(batch: pd.DataFrame, **_: object) -> Verdict:
    """Per case, the flat design's dummy time per packet over the allocating design's (effects): the harness
    costs several times as much where that lies below 1 / HARNESS_FACTOR by the margin."""
    cpp, flat = (_glibc(batch, d)[lambda f: f["strategy"] == "dummy"] for d in ("cpp", "flat"))
    return across(flat, cpp, ["strategy_label", "case"], threshold=1 / HARNESS_FACTOR, what="cases")


def flat_faster_than_allocating(batch: pd.DataFrame, **_: object) -> Verdict:
    """Per strategy and case, the flat design's time per packet over the allocating design's (effects)."""
    cpp, flat = (_glibc(batch, d)[lambda f: f["strategy"] != "dummy"] for d in ("cpp", "flat"))
    return across(flat, cpp, ["strategy_label", "case"])


def both_designs_keep_up_everywhere(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(searches[searches["solution"].isin(["cpp-glibc", "flat-glibc"])])
    return outcome_is(rows, "found", ["label", "strategy_label", "case", "outcome", "interval_ns"])


def flat_pool_reaches_millions(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(_glibc(searches, "flat")[lambda f: (f["strategy"] == "pool") & f["case"].isin(list(FLAT_POOL_LIMITS_NS))])
    return every(rows, lambda r: None if not r["judged"] else
                 r["outcome"] == "found" and r["interval_ns"] <= FLAT_POOL_LIMITS_NS[r["case"]],
                 ["label", "strategy_label", "case", "outcome", "interval_ns"])


ARTICLE_SOLUTIONS = ("cpp-glibc", "flat-glibc")  # the article's solutions this chapter's claims were made of

CLAIMS = (
    Claim(f"The allocating design's harness is costly: its dummy strategy takes at least {HARNESS_FACTOR:g} times "
          f"the flat design's (glibc)", allocating_harness_costs_several_times_flat,
          ratio_rule("Per case", "the flat design's dummy over the allocating design's", f"1/{HARNESS_FACTOR:g}")),
    Claim("The flat design is faster than the allocating one for every strategy and case (glibc)",
          flat_faster_than_allocating, ratio_rule("Per strategy and case", "the flat design's time over the "
                                                  "allocating design's")),
    Claim("Both designs keep up in real time in every case with every strategy (glibc)",
          both_designs_keep_up_everywhere, search_rule("Each strategy and case of both designs")),
    Claim("Flat pooling keeps up with five million packets a second in case B and four million in case C "
          "(200 and 250 ns)", flat_pool_reaches_millions,
          search_rule("Flat pooling in cases B and C", "its search found no loss at 200 ns (B) or 250 ns (C), "
                      "or at a shorter interval")),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
