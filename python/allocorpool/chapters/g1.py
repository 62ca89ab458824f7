"""Chapter 05, G1: the batch and real-time tests with G1, and the article's claims about it
checked against the article's "CMS" as it ran (Parallel, JDK 11) on this machine."""

from __future__ import annotations

import pandas as pd

from allocorpool import effects, study
from allocorpool.analysis.claims import (POOLING_AS_WELL_RULE, Claim, across, outcome_is,
                                         pooling_keeps_up_as_well_as_allocation, ratio_rule, search_rule, searched)
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict

ARTICLE_G1 = "g1"  # the article's G1 as it ran: JDK 11 here, its 80 ms pause goal
AS_RUN = "parallel-11"  # the article's "CMS" as it ran


def _rows(frame: pd.DataFrame, solution: str) -> pd.DataFrame:
    rows = frame[(frame["solution"] == solution) & (frame["strategy"] != "dummy")]
    return rows.assign(ns_per_packet=rows["ns_per_packet"].where(rows["status"] == "ok"))


def slower_than_cms_in_most_batch_cells(batch: pd.DataFrame, baseline: pd.DataFrame, **_: object) -> Verdict:
    """The article's "CMS" as run beats G1 per strategy and case (effects)."""
    return across(_rows(baseline, AS_RUN), _rows(batch, ARTICLE_G1), ["strategy_label", "case"])


def pooling_faster_than_cms_in_a_and_b(batch: pd.DataFrame, baseline: pd.DataFrame, **_: object) -> Verdict:
    """G1's pooling beats the article's "CMS" as run's in cases A and B (effects)."""
    ours = _rows(batch, ARTICLE_G1)
    return across(ours[(ours["strategy"] == "pool") & ours["case"].isin(["A", "B"])], _rows(baseline, AS_RUN),
                  ["strategy_label", "case"])


def keeps_up_in_more_cells_than_cms(searches: pd.DataFrame, baseline_searches: pd.DataFrame,
                                    **_: object) -> Verdict:
    """Cell by cell (strategy and case, both searched): G1 keeps up where the article's "CMS" as run does,
    and in some cell where it does not. A cell where only the "CMS" keeps up counts against; both ways: partly."""
    ours = searched(searches[searches["solution"] == ARTICLE_G1])
    theirs = searched(baseline_searches[baseline_searches["solution"] == AS_RUN])
    keys = ["strategy", "case"]
    pairs = ours[ours["judged"]].merge(theirs[theirs["judged"]], on=keys, suffixes=("_g1", "_cms"))
    if not len(pairs):
        return Verdict(effects.NOT_MEASURED, "no cell searched for both")
    g1 = pairs["outcome_g1"] == "found"
    cms = pairs["outcome_cms"] == "found"
    g1_only, cms_only = int((g1 & ~cms).sum()), int((cms & ~g1).sum())
    outcome = (effects.MIXED if g1_only and cms_only else effects.HOLDS if g1_only else effects.FAILS if cms_only
               else effects.NO_DIFFERENCE)
    labels = {True: "keeps up", False: "loses"}
    cells = pd.DataFrame({"strategy": pairs["strategy_label_g1"], "case": pairs["case"],
                          "G1": g1.map(labels), "the 2019 \"CMS\" as run": cms.map(labels)})
    order = (cms & ~g1).map({True: 0, False: 2}) - (g1 & ~cms).astype(int)  # against first, then for, then ties
    cells = cells.assign(_order=order.to_numpy()).sort_values("_order", kind="stable")
    summary = (f"G1 alone keeps up in {g1_only}, the \"CMS\" alone in {cms_only}, both or neither in "
               f"{len(pairs) - g1_only - cms_only} of {len(pairs)} cells")
    return Verdict(outcome, summary, cells.drop(columns="_order").reset_index(drop=True))


def still_loses_in_c(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(searches[(searches["solution"] == ARTICLE_G1) & (searches["case"] == "C")])
    return outcome_is(rows, "lost", ["strategy_label", "case", "outcome", "loss_pct"])


ARTICLE_SOLUTIONS = (ARTICLE_G1,)  # the article's solutions this chapter's claims were made of

CLAIMS = (
    Claim("G1 is slower than the article's \"CMS\" in batch (often, not always)", slower_than_cms_in_most_batch_cells,
          ratio_rule("Per strategy and case", "the time of the article's \"CMS\" as run over G1's")),
    Claim("... except pooling, which G1 makes faster in cases A and B", pooling_faster_than_cms_in_a_and_b,
          ratio_rule("Pooling in cases A and B", "G1's time over that of the article's \"CMS\" as run")),
    Claim("In real time G1 keeps up in more cells than the article's \"CMS\"", keeps_up_in_more_cells_than_cms,
          search_rule("Per strategy and case searched for both, G1 against the article's \"CMS\" as run",
                      "G1 keeps up (finds an interval with no loss) in some cell where the \"CMS\" does not, and "
                      "the \"CMS\" in none where G1 does not")),
    Claim("G1 still finds no loss-free interval in case C", still_loses_in_c,
          search_rule("G1's strategies in case C", "its search found no interval without loss")),
    Claim("Pooling keeps up wherever allocation does, at an interval no longer",
          pooling_keeps_up_as_well_as_allocation, POOLING_AS_WELL_RULE),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
