"""How a chapter shows its claims: a table of them, a line each, with each verdict in the one vocabulary
(effects.WORDS) and its colour, how each is decided, and the cells behind each verdict, folded. The claims
and their judging are analysis.claims."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.claims import Claim, article_data, check_all
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.tables import style
from allocorpool.effects import Verdict

WORDS_IN_A_CELL = 15


def in_few_words(summary: str, limit: int = WORDS_IN_A_CELL) -> str:
    """A verdict's summary as a table cell takes it: its asides in brackets dropped, then, if still longer than
    limit words, its first clause. The whole summary stays with the cells behind the verdict."""
    short = re.sub(r"\s*\([^()]*\)", "", summary).strip()
    if len(short.split()) > limit:
        short = short.split(";")[0].strip()
    return short


def _link(markdown: str) -> str:
    """'[chapter 4](#chapter-4)' as an HTML link (a table cell is HTML, not markdown)."""
    text, _, target = markdown[1:-1].partition("](")
    return f'<a href="{target}">{text}</a>'


# A verdict's background in a table, by its words (effects.WORDS)
OUTCOME_COLOURS = {effects.WORDS[outcome]: colour for outcome, colour in (
    (effects.HOLDS, "#8fd98f"), (effects.MIXED, "#ffe066"), (effects.FAILS, "#ff9a9a"),
    (effects.NOT_MEASURED, "#dddddd"), (effects.NO_DIFFERENCE, "#eeeeee"), (effects.EQUAL, "#cfe2f3"))}


def show_claims(checked: list[tuple[Claim, Verdict, Verdict | None]],
                title: str = "The article's claims on this machine") -> None:
    """A table of the claims, a line each: the claim in a few words, its verdict here and how often, on the
    article's own figures, and the chapter that shows it; how each is decided and the cells behind each
    verdict here follow, folded."""
    if not checked:
        return
    rows, rules = [], []
    for claim, ours, theirs in checked:
        row = {"the article's claim": claim.said or claim.text}
        if theirs is not None:
            row["on 2019's figures"] = theirs.words
        row.update({"here": ours.words, "how often here": in_few_words(ours.summary)})
        if claim.shown:
            row["shown in"] = f"[chapter {claim.shown}](#chapter-{claim.shown})"
        rows.append(row)
        rules.append({"the article's claim, in our words": claim.text, "decided by": ours.rule or claim.rule})
    table = pd.DataFrame(rows).set_index("the article's claim")
    colours = OUTCOME_COLOURS
    verdict_columns = [c for c in ("here", "on 2019's figures") if c in table.columns]
    styler = style(table).map(lambda v: f"background-color: {colours[v]}" if v in colours else "",
                              subset=verdict_columns)
    if "shown in" in table.columns:
        styler = styler.format(_link, subset=["shown in"])
    show.show_table(styler, caption=title)
    if any(rule["decided by"] for rule in rules):
        show.show_details("How each verdict is decided", pd.DataFrame(rules))
    behind = [(claim.said or claim.text, ours.cells) for claim, ours, _ in checked if len(ours.cells)]
    if behind:
        show.show_details_group("The cells behind each verdict, on this machine", behind)


def verdicts_of(claims: tuple[Claim, ...], article_solutions: tuple[str, ...] | None,
                title: str = "The article's claims on this machine") -> Callable[..., None]:
    """A chapter's `show_verdicts(reference_figures, **data)`: its claims checked on its data (the tables
    its checks name) and on the article's own figures of the solutions the claims were made of."""
    def show_verdicts(reference_figures: pd.DataFrame, **data: Any) -> None:
        show_claims(check_all(claims, data, article_data(reference_figures, article_solutions)), title)
    return show_verdicts
