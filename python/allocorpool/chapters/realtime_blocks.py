"""Real-time verdicts decided on blocks: every strategy of a solution and case probed repeatedly at one
interval (the reference, a million packets a second), instead of one search per strategy.

A strategy keeps up where none of its probes lost a packet (analysis.blocks.keeps_up). Two strategies
are compared by the difference of their median losses with its 95 % interval (analysis.blocks.
compare_losses): the better one loses less in every resample, or no difference is measured. A table
without blocks (the 2019 article's figures, or a profile that measured none) gives None, and the claim
falls back to the searches.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from allocorpool import effects
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis.claims import every, tallied
from allocorpool.effects import Verdict
from allocorpool.lists import STRATEGY_LABELS


def measured(probes: pd.DataFrame | None) -> pd.DataFrame | None:
    """The blocks' rows a claim can judge (not a baseline, some probe finished), or None where there are none."""
    if probes is None or not len(probes):
        return None
    rows = probes[~probes["baseline"].astype(bool) & (probes["keeps_up"] != effects.NOT_MEASURED)]
    return rows if len(rows) else None


def rank(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strategies' block rows, best first: those that kept up in every probe, then by median and mean loss."""
    def key(row: dict[str, Any]) -> tuple[bool, float, float]:
        losses = [float(v) for v in row.get("losses") or []]
        middle = effects.spread(losses).median if losses else float("inf")
        return row["keeps_up"] != effects.HOLDS, middle, sum(losses) / len(losses) if losses else float("inf")
    return sorted(rows, key=key)


def loss_words(row: dict[str, Any]) -> str:
    """'keeps up', 'loses 0.14 % (0.10-0.30)' where every probe lost, 'loses in 1 of 3 probes (up to
    0.01 %)' where some did, 'falls behind' where it lost nothing yet but did not keep up."""
    if row["keeps_up"] == effects.HOLDS:
        return "keeps up"
    losses = [float(v) for v in row.get("losses") or []]
    lossy = sum(1 for v in losses if v > 0)
    if not lossy:
        return "falls behind" + boots_words(row)
    if lossy == len(losses):
        return f"loses {effects.spread(losses).text('%')}" + boots_words(row)
    return f"loses in {lossy} of {len(losses)} probes (up to {max(losses):.2g} %)" + boots_words(row)


def boots_words(row: dict[str, Any]) -> str:
    """Where boots decided the cell differently (one kept up in every probe, another lost): ', yet kept up in
    every probe of 1 of 2 boots'; else nothing."""
    verdicts = row.get("boot_keeps_up")
    judged = [v for v in verdicts.values() if v != effects.NOT_MEASURED] if isinstance(verdicts, dict) else []
    held = judged.count(effects.HOLDS)
    if not held or held == len(judged):
        return ""
    return f", yet kept up in every probe of {held} of {len(judged)} boots"


def loss_text(row: dict[str, Any]) -> str:
    """A block row's outcome in words: kept up in every probe, or how it lost."""
    n = len(row.get("losses") or [])
    return f"kept up in {n} of {n} probes" if row["keeps_up"] == effects.HOLDS else loss_words(row)


def less_loss(probes: pd.DataFrame, better: tuple[str, ...], than: str, what: str) -> Verdict:
    """Per solution and case: whether the best of the `better` strategies (least median loss) loses less than
    `than`, by the difference of median losses and its interval; counted as holds, fails and no difference."""
    rows = []
    for (label, case), part in probes.groupby(["label", "case"], sort=False):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        candidates = [by[s] for s in better if s in by]
        if than not in by or not candidates:
            continue
        best = rank(candidates)[0]
        difference = block_figures.compare_losses(best, by[than])
        named = f"{best['strategy_label'].lower()} {loss_text(best)}" if len(better) > 1 else loss_text(best)
        rows.append({"label": label, "case": case, "interval_ns": best["interval_ns"],
                     " or ".join(STRATEGY_LABELS[s].lower() for s in better) + (", best" if len(better) > 1 else ""):
                         named,
                     STRATEGY_LABELS[than].lower(): loss_text(by[than]),
                     "effect": f"{best['strategy_label'].lower()} - {by[than]['strategy_label'].lower()}, "
                               f"loss: {difference.text()}",
                     "outcome": difference.outcome(), **({"boots": difference.agreement} if difference.flips else {})})
    return tallied(pd.DataFrame(rows), what)


def keeps_up_somewhere_in_every_case(probes: pd.DataFrame) -> Verdict:
    """Per case: how many (solution, strategy) cells kept up in every probe of their block; the claim holds
    in a case where at least one did."""
    rows = [{"case": case, "cells that kept up in every probe": int((part["keeps_up"] == effects.HOLDS).sum()),
             "of": len(part), "interval_ns": int(part["interval_ns"].iloc[0])}
            for case, part in probes.groupby("case", sort=False)]
    return every(pd.DataFrame(rows), lambda r: r["cells that kept up in every probe"] > 0,
                 ["case", "cells that kept up in every probe", "of", "interval_ns"], "cases")


def lossy(probes: pd.DataFrame) -> pd.DataFrame:
    """The cells that lost (or fell behind) in some probe of their block."""
    return probes[probes["keeps_up"] == effects.FAILS]


def table(probes: pd.DataFrame) -> pd.DataFrame:
    """One row per solution and case: each strategy's outcome over its block's probes, and pooling's loss
    against allocation's (the difference of median losses, in percentage points, with its interval)."""
    rows = []
    for (label, case), part in probes.groupby(["label", "case"], sort=False):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        row: dict[str, Any] = {"solution": label, "case": case}
        for strategy, r in by.items():
            row[STRATEGY_LABELS[strategy].lower()] = (
                "not measured" if r["keeps_up"] == effects.NOT_MEASURED else loss_text(r))
        if "pool" in by and "alloc" in by:
            row["pooling's loss - allocation's"] = difference_words(by["pool"], by["alloc"])
        rows.append(row)
    return pd.DataFrame(rows)


def both_kept_up(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["keeps_up"] == b["keeps_up"] == effects.HOLDS


def difference_words(pool: dict[str, Any], alloc: dict[str, Any], pool_name: str = "pooling") -> str:
    """A pool's loss against allocation's over their probes: which loses less, by the difference of median
    losses with its interval; where both kept up in every probe, that, rather than a zero difference."""
    if both_kept_up(pool, alloc):
        return "both kept up in every probe: no difference"
    difference = block_figures.compare_losses(pool, alloc)
    said = {effects.HOLDS: f"{pool_name} loses less", effects.FAILS: "allocation loses less",
            effects.NO_DIFFERENCE: "no difference measured"}.get(difference.outcome())
    return f"{said}: {difference.text()}" if said else "not measured"
