"""Chapter 05, G1: the batch and real-time tests with G1, and the article's claims about it
checked against the article's "CMS" as it ran (Parallel, JDK 11) on this machine."""

from __future__ import annotations

import pandas as pd

from allocorpool import effects, study
from allocorpool.chapters.claims import (
    search_rule,
    ratio_rule,
    POOLING_AS_WELL_RULE,
    Claim,
    Verdict,
    across,
    outcome_is,
    pooling_keeps_up_as_well_as_allocation,
    searched,
    share,
    verdicts_of,
)

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
    ours = searched(searches[searches["solution"] == ARTICLE_G1])
    theirs = searched(baseline_searches[baseline_searches["solution"] == AS_RUN])
    if not ours["judged"].any() or not theirs["judged"].any():
        return Verdict(effects.NOT_MEASURED, "no finished search on one side")
    g1, cms = int((ours["outcome"] == "found").sum()), int((theirs["outcome"] == "found").sum())
    verdict = share(1 if g1 > cms else 0, 1, "comparisons")
    cells = pd.DataFrame([{"solution": study.SOLUTIONS_BY_NAME["g1"].label, "cells that keep up": g1},
                          {"solution": study.SOLUTIONS_BY_NAME["parallel-11"].label, "cells that keep up": cms}])
    return Verdict(verdict.outcome, f"{g1} against {cms} of {len(ours)}", cells)


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
          search_rule("The cells whose search found no loss, counted for G1 and for the article's \"CMS\"",
                      "G1's count is the larger")),
    Claim("G1 still finds no loss-free interval in case C", still_loses_in_c,
          search_rule("G1's strategies in case C", "its search found no interval without loss")),
    Claim("Pooling keeps up wherever allocation does, at an interval no longer",
          pooling_keeps_up_as_well_as_allocation, POOLING_AS_WELL_RULE),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
