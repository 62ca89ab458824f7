"""Chapter 06, ZGC: the batch and real-time tests with ZGC (and today's concurrent collectors), and
the article's claims about ZGC checked here."""

from __future__ import annotations

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.claims import (POOLING_AS_WELL_RULE, Claim, across, outcome_is,
                                         pooling_keeps_up_as_well_as_allocation, ratio_rule, search_rule, searched)
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict

ARTICLE_ZGC = "zgc"  # the article's ZGC: JDK 11, non-generational
ARTICLE_G1 = "g1"
FAR = 0.5  # "far better": at most half the time


def allocation_c_far_faster_than_g1(batch: pd.DataFrame, g1_batch: pd.DataFrame, **_: object) -> Verdict:
    """ZGC's allocation in case C over G1's, time per packet (effects): far better where that lies below FAR
    by the margin."""
    ours = batch[(batch["solution"] == ARTICLE_ZGC) & (batch["strategy"] == "alloc") & (batch["case"] == "C")]
    theirs = g1_batch[(g1_batch["solution"] == ARTICLE_G1) & (g1_batch["strategy"] == "alloc")
                      & (g1_batch["case"] == "C")]
    return across(ours, theirs, ["strategy_label", "case"], threshold=FAR)


def mix_and_pool_keep_up_everywhere(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(searches[(searches["solution"] == ARTICLE_ZGC) & searches["strategy"].isin(["mix", "pool"])])
    return outcome_is(rows, "found", ["strategy_label", "case", "outcome", "interval_ns"])


def allocation_c_still_loses(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(searches[(searches["solution"] == ARTICLE_ZGC) & (searches["strategy"] == "alloc")
                             & (searches["case"] == "C")])
    return outcome_is(rows, "lost", ["strategy_label", "case", "outcome", "loss_pct"])


ARTICLE_SOLUTIONS = (ARTICLE_ZGC,)  # the article's solutions this chapter's claims were made of

CLAIMS = (
    Claim(f"ZGC handles allocation in case C far better than G1 (at most {effects.pct(FAR)} of G1's time per packet)",
          allocation_c_far_faster_than_g1, ratio_rule("Allocation in case C", "ZGC's time over G1's", f"{FAR:g}")),
    Claim("ZGC keeps up in every case with mix and pooling", mix_and_pool_keep_up_everywhere,
          search_rule("ZGC's mix and pooling in every case")),
    Claim("Allocation in case C still finds no loss-free interval with ZGC", allocation_c_still_loses,
          search_rule("ZGC's allocation in case C", "its search found no interval without loss")),
    Claim("Pooling keeps up wherever allocation does, at an interval no longer",
          pooling_keeps_up_as_well_as_allocation, POOLING_AS_WELL_RULE),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
