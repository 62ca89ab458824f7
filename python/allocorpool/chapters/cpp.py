"""Chapter 08, C++ and flat C++: the designs and allocators, what each allocates per packet, and the
article's C++ claims checked here."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters.claims import (
    search_rule,
    ratio_rule,
    Claim,
    Verdict,
    across,
    every,
    outcome_is,
    searched,
    verdicts_of,
)


def show_allocations(batch: pd.DataFrame) -> None:
    """Allocations per packet as the engine counted them, per solution, strategy and case."""
    counts = batch[batch["status"] == "ok"].pivot_table(index=["label", "strategy_label"], columns="case",
                                                         values="allocs_per_packet", sort=False)
    counts.index.names = ["solution", "strategy"]
    show.show_table(counts, caption="Allocations per packet", precision=2)


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
