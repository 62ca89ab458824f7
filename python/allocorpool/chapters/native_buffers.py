"""Chapter 07, native buffers: packets in off-heap memory under the article's collectors and today's,
and the article's claims about them checked here."""

from __future__ import annotations

import pandas as pd

from allocorpool.analysis.claims import Claim, across, every, outcome_is, ratio_rule, search_rule, searched, tallied
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict

# Each native solution beside its heap twin, as the article ran both.
TWINS = {"native-parallel-11": "parallel-11", "native-g1": "g1", "native-zgc": "zgc"}
SMALL_LOSS_PCT = 1.0


def faster_than_heap_buffers(batch: pd.DataFrame, heap_batch: pd.DataFrame, **_: object) -> Verdict:
    """Each native solution's time per packet against its heap twin's, per strategy and case (effects)."""
    parts = []
    for native, heap in TWINS.items():
        ours = batch[(batch["solution"] == native) & (batch["strategy"] != "dummy")]
        theirs = heap_batch[heap_batch["solution"] == heap]
        parts.append(across(_finished(ours), _finished(theirs), ["label", "strategy_label", "case"]).cells)
    table = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else pd.DataFrame()
    return tallied(table, "cells")


def _finished(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.assign(ns_per_packet=rows["ns_per_packet"].where(rows["status"] == "ok"))


def _keeps_up(searches: pd.DataFrame, solution: str, strategies: tuple[str, ...]) -> Verdict:
    rows = searched(searches[(searches["solution"] == solution) & searches["strategy"].isin(strategies)])
    return outcome_is(rows, "found", ["label", "strategy_label", "case", "outcome", "interval_ns"])


def native_g1_pool_keeps_up_everywhere(searches: pd.DataFrame, **_: object) -> Verdict:
    return _keeps_up(searches, "native-g1", ("pool",))


def native_zgc_keeps_up_everywhere(searches: pd.DataFrame, **_: object) -> Verdict:
    return _keeps_up(searches, "native-zgc", ("alloc", "mix", "pool"))


def native_cms_loses_little(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(searches[(searches["solution"] == "native-parallel-11") & searches["strategy"].isin(["mix", "pool"])
                             & searches["case"].isin(["B", "C"])])
    return every(rows, lambda r: None if not r["judged"] else r["outcome"] == "found" or r["loss_pct"] < SMALL_LOSS_PCT,
                 ["label", "strategy_label", "case", "outcome", "interval_ns", "loss_pct"])


ARTICLE_SOLUTIONS = tuple(TWINS)  # the article's solutions this chapter's claims were made of

CLAIMS = (
    Claim("Native buffers make the strategies faster than heap buffers under the same collector, almost everywhere",
          faster_than_heap_buffers, ratio_rule("Per native solution, strategy and case", "its time over its heap "
                                               "twin's under the same collector")),
    Claim(f"With native buffers the article's \"CMS\" loses little with mix and pooling in cases B and C "
          f"(under {SMALL_LOSS_PCT:g} % at 1,000 ns)", native_cms_loses_little,
          search_rule("Native Parallel 11's mix and pooling in cases B and C", "its search found no loss, or "
                      f"lost under {SMALL_LOSS_PCT:g} % of the packets at 1,000 ns")),
    Claim("Native G1 keeps up with pooling in every case", native_g1_pool_keeps_up_everywhere,
          search_rule("Native G1's pooling in every case")),
    Claim("Native ZGC keeps up in every case with every strategy", native_zgc_keeps_up_everywhere,
          search_rule("Native ZGC's strategies in every case")),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
