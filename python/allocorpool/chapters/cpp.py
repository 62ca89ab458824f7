"""Chapter 08, C++ and flat C++: the designs and allocators, what each allocates per packet, and the
article's C++ claims checked here."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters.claims import (
    Claim,
    Verdict,
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
    cpp, flat = (_glibc(batch, d)[lambda f: (f["strategy"] == "dummy") & (f["status"] == "ok")] for d in ("cpp", "flat"))
    rows = cpp.merge(flat[["case", "ns_per_packet"]], on="case", suffixes=("", "_flat"))
    return every(rows, lambda r: r["ns_per_packet"] >= HARNESS_FACTOR * r["ns_per_packet_flat"],
                 ["case", "ns_per_packet", "ns_per_packet_flat"])


def flat_faster_than_allocating(batch: pd.DataFrame, **_: object) -> Verdict:
    cpp, flat = (_glibc(batch, d)[lambda f: (f["strategy"] != "dummy") & (f["status"] == "ok")] for d in ("cpp", "flat"))
    rows = flat.merge(cpp[["strategy", "case", "ns_per_packet"]], on=["strategy", "case"], suffixes=("", "_cpp"))
    return every(rows, lambda r: r["ns_per_packet"] < r["ns_per_packet_cpp"],
                 ["strategy_label", "case", "ns_per_packet", "ns_per_packet_cpp"])


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
          f"the flat design's (glibc)", allocating_harness_costs_several_times_flat),
    Claim("The flat design is faster than the allocating one for every strategy and case (glibc)",
          flat_faster_than_allocating),
    Claim("Both designs keep up in real time in every case with every strategy (glibc)",
          both_designs_keep_up_everywhere),
    Claim("Flat pooling keeps up with five million packets a second in case B and four million in case C "
          "(200 and 250 ns)", flat_pool_reaches_millions),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
