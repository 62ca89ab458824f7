"""Your machine's answer: the verdicts of the article's answer table measured on this machine, beside
the same verdicts at the article's sizes (the committed full-size store), agreeing or not.

The question each verdict answers is the study's: does pooling beat allocation? In batch, pooling's
median time per packet over allocation's, with its 95 % interval, clearing parity by the 5 % margin
(effects); in real time, the difference of their median losses at one interval over repeated probes,
clearing zero (analysis.blocks.compare_losses). Two verdicts agree when they have the same outcome;
they contradict each other when one holds where the other fails; otherwise one of them measured no
difference, and the pair is decided in one place only.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from allocorpool import effects, study
from allocorpool.analysis import blocks as block_figures
from allocorpool.chapters.page import display as show
from allocorpool.analysis.claims import versus

AGREE, CONTRADICT, ONE_ONLY, UNJUDGED = "agree", "contradict", "decided in one only", "not compared"
SAID = {effects.HOLDS: "pooling beats allocation", effects.FAILS: "allocation beats pooling",
        effects.NO_DIFFERENCE: "no difference measured", effects.NOT_MEASURED: "not measured"}


def verdicts(batch: pd.DataFrame, probes: pd.DataFrame) -> pd.DataFrame:
    """Per solution, case and test: whether pooling beats allocation (an effects outcome) and its effect."""
    rows = []
    for (solution, case), part in batch[batch["strategy"].isin(["alloc", "pool"])].groupby(["solution", "case"],
                                                                                              sort=False):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        outcome, text, _ = versus(by.get("pool"), by.get("alloc"))
        rows.append({"solution": solution, "case": case, "test": "batch", "outcome": outcome,
                     "effect": f"time {text}" if outcome != effects.NOT_MEASURED else ""})
    for (solution, case), part in probes[probes["strategy"].isin(["alloc", "pool"])].groupby(["solution", "case"],
                                                                                               sort=False):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        if "pool" not in by or "alloc" not in by:
            continue
        difference = block_figures.compare_losses(by["pool"], by["alloc"])
        rows.append({"solution": solution, "case": case, "test": "real time", "outcome": difference.outcome(),
                     "effect": f"loss {difference.text()}" if difference.measured else ""})
    return pd.DataFrame(rows, columns=["solution", "case", "test", "outcome", "effect"])


def agreement(here: str, there: str) -> str:
    """How two outcomes of the same verdict stand to each other."""
    if effects.NOT_MEASURED in (here, there):
        return UNJUDGED
    if here == there:
        return AGREE
    if {here, there} == {effects.HOLDS, effects.FAILS}:
        return CONTRADICT
    return ONE_ONLY


def compare(mine: pd.DataFrame, full: pd.DataFrame) -> pd.DataFrame:
    """This machine's verdicts beside the article's sizes', one row per solution, case and test."""
    theirs = {(r["solution"], r["case"], r["test"]): r for r in full.to_dict("records")}
    order = {s.name: i for i, s in enumerate(study.SOLUTIONS)}
    rows = []
    for r in mine.to_dict("records"):
        other: dict[str, Any] = theirs.get((r["solution"], r["case"], r["test"]),
                                           {"outcome": effects.NOT_MEASURED, "effect": ""})
        rows.append({"solution": study.SOLUTIONS_BY_NAME[r["solution"]].label, "case": r["case"], "test": r["test"],
                     "at the article's sizes": _said(other), "on this machine": _said(r),
                     "the two": agreement(r["outcome"], other["outcome"]), "_order": order.get(r["solution"], 99)})
    table = pd.DataFrame(rows, columns=["solution", "case", "test", "at the article's sizes", "on this machine",
                                        "the two", "_order"])
    return table.sort_values(["test", "_order", "case"], kind="stable").drop(columns="_order").reset_index(drop=True)


def _said(row: dict[str, Any]) -> str:
    words = SAID[row["outcome"]]
    return f"{words}: {row['effect']}" if row.get("effect") else words


def sentence(table: pd.DataFrame) -> str:
    """The first screen's count of agreements, computed from the table."""
    counts = table["the two"].value_counts()
    judged = int(len(table) - counts.get(UNJUDGED, 0))
    if not judged:
        return ("No verdict could be set beside the article's sizes: one side or the other measured nothing "
                "(the full-size store lacks these blocks, or every run here failed).")
    text = (f"Of the {judged} verdicts measured both here and at the article's sizes, the two agree on "
            f"{counts.get(AGREE, 0)}, contradict each other on {counts.get(CONTRADICT, 0)}, and only one of them "
            f"decides {counts.get(ONE_ONLY, 0)} (the other is undecided).")
    if counts.get(UNJUDGED, 0):
        text += f" {show.count(int(counts[UNJUDGED]), 'more verdict')} could not be compared."
    return text


def show_comparison(mine: pd.DataFrame, full: pd.DataFrame) -> None:
    table = compare(mine, full)
    if not len(table):
        show.note("Nothing was measured here: there is no verdict to set beside the article's sizes.")
        return
    show.note(sentence(table))
    show.show_table(table.set_index(["test", "solution", "case"]),
                    caption="Does pooling beat allocation? This machine beside the article's sizes, verdict by verdict")
