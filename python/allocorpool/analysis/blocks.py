"""A block's runs as figures with their spread, and comparisons between its cells as effect sizes.

The runs come from run.blocks (one row per run: cell, boot, repetition, status and the run's summary).
A cell's figure is the median over its repetitions in one boot, with a 95 % interval; the newest
complete boot that ran the cell gives the figure shown, and every such boot keeps its own repetitions. A comparison is
made in each boot (so a verdict that flips between boots says so) and over every boot that measured it:
the effect that stands resamples boots and then repetitions (effects.ratio_over_boots), so a verdict
holds only where the boots agree on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from allocorpool import effects, machine
from allocorpool.data import tables
from allocorpool.data.records import MISSING


def complete_boots(runs: pd.DataFrame) -> list[str]:
    """The boots in which the block finished every run (ok or failed), oldest start first."""
    if not len(runs) or "complete" not in runs:
        return []
    done = runs[runs["complete"].astype(bool)]
    return list(done.sort_values("started_utc", kind="stable")["boot"].drop_duplicates())


def _figures(runs: list[dict[str, Any]], value: str) -> list[float]:
    return [float(v) for v in (tables.value(r, value) for r in runs if r["status"] == "ok") if v is not None]


def cell_figures(runs: pd.DataFrame, value: str = "ns_per_packet") -> dict[str, dict[str, Any]]:
    """For each cell of the block: the spread of the newest complete boot that ran it, the run that stands for
    it (the repetition nearest the median: its key, GC log and other figures), its failures, and the figures
    of every complete boot that ran it, and those of them that ran it from a committed build (committed_boots).
    A cell of a block no boot completed has no entry."""
    boots = complete_boots(runs)
    if not boots:
        return {}
    newest = boots[-1]
    # Read as records: a block's runs carry every column of the store's index, and pandas pays per column
    # for each selection of a few rows that a list of dictionaries does not
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for row in runs.to_dict("records"):
        by_cell.setdefault(str(row["cell"]), []).append(row)
    out: dict[str, dict[str, Any]] = {}
    for cell, part in by_cell.items():
        # A boot counts for the cell where its block ran the cell: a block of another boot may have lacked it
        ran = {r["boot"] for r in part if r["status"] != MISSING}
        mine = [boot for boot in boots if boot in ran] or [newest]
        by_boot = {boot: _figures([r for r in part if r["boot"] == boot], value) for boot in mine}
        shown = mine[-1]
        here = [r for r in part if r["boot"] == shown]
        spread = effects.spread(by_boot[shown])
        failed = [r for r in here if r["status"] not in ("ok", MISSING)]
        out[cell] = {"spread": spread, "standing": _standing(here, value, spread.median),
                     "failed": failed, "boot": shown, "boot_samples": by_boot,
                     "committed_boots": committed_boots(part, mine)}
    return out


def uncommitted(run: Mapping[str, Any]) -> bool:
    """Whether a run came from a build with uncommitted changes (its commit ends in -dirty, paths.commit)."""
    return str(run.get("commit") or "").endswith("-dirty")


def committed_boots(runs: list[dict[str, Any]], boots: Iterable[str]) -> list[str]:
    """Those of boots whose runs of a cell (runs) all came from a committed build: a build with uncommitted
    changes (paths.commit) cannot be rebuilt, so a figure it measured cannot be reproduced exactly."""
    return [boot for boot in boots
            if (mine := [r for r in runs if r["boot"] == boot and r["status"] != MISSING])
            and not any(uncommitted(r) for r in mine)]


def _standing(runs: list[dict[str, Any]], value: str, median: float) -> dict[str, Any]:
    """The finished run nearest the median, the first of equals (the first failure where none finished)."""
    ok = [r for r in runs if r["status"] == "ok" and tables.value(r, value) is not None]
    if ok and not math.isnan(median):
        return dict(min(ok, key=lambda r: abs(float(r[value]) - median)))
    return dict(runs[0]) if runs else {}


def spread_columns(figures: Mapping[str, Any]) -> dict[str, Any]:
    """The data.tables.SPREAD_COLUMNS of one cell's figures (cell_figures' entry)."""
    spread: effects.Spread = figures["spread"]
    return {"ns_low": spread.low, "ns_high": spread.high, "runs": spread.n, "failed_runs": len(figures["failed"]),
            "boots": len(figures["boot_samples"]), "committed_boots": len(figures.get("committed_boots", [])),
            "boot": figures["boot"],
            "samples": figures["boot_samples"][figures["boot"]], "boot_samples": figures["boot_samples"]}


@dataclass(frozen=True)
class Comparison:
    """One comparison (numerator over denominator) in every boot both were measured in, and over them all."""

    by_boot: dict[str, effects.Effect]
    boot: str | None  # the newest boot that measured both
    threshold: float = 1.0  # the ratio the verdict is decided against (1: parity)
    over: effects.Effect | None = None  # the effect over every boot (effects.ratio_over_boots)

    @property
    def effect(self) -> effects.Effect:
        """The effect that stands: over every boot that measured it (one boot's where only one did)."""
        if self.over is not None:
            return self.over
        if self.boot is None:
            return effects.Effect(math.nan, math.nan, math.nan, 0, 0)
        return self.by_boot[self.boot]

    @property
    def outcomes(self) -> dict[str, str]:
        return {boot: effect.outcome(self.threshold) for boot, effect in self.by_boot.items()}

    @property
    def agreement(self) -> str:
        """How its boots agree: effects.AGREE, DISAGREE (decided in some, not others) or OPPOSE."""
        return effects.agreement(self.outcomes.values())

    @property
    def flips(self) -> bool:
        """Whether boots decided it differently (one holds where another fails or measures no difference)."""
        return bool(self.agreement)

    def outcome(self) -> str:
        return self.effect.outcome(self.threshold)


def _boot_samples(row: Mapping[str, Any]) -> dict[str, list[float]]:
    samples = row.get("boot_samples")
    if isinstance(samples, Mapping):
        return {str(k): list(v) for k, v in samples.items()}
    one = row.get("samples")
    return {"": list(one)} if isinstance(one, (list, tuple)) else {}


def compare(numerator: Mapping[str, Any], denominator: Mapping[str, Any], threshold: float = 1.0) -> Comparison:
    """The ratio of two cells' medians (rows with boot_samples) in each boot both were measured in, and over
    those boots (the effect that stands). A row without repetitions (a single run) gives a ratio with too
    few runs to decide."""
    num, den = _boot_samples(numerator), _boot_samples(denominator)
    shared = [boot for boot in num if boot in den]
    if not shared:
        single = effects.ratio(_single(numerator), _single(denominator))
        return Comparison({"": single}, "", threshold)
    over = effects.ratio_over_boots([(num[boot], den[boot]) for boot in shared]) if len(shared) > 1 else None
    return Comparison({boot: effects.ratio(num[boot], den[boot]) for boot in shared}, shared[-1], threshold, over)


def typical(row: Mapping[str, Any]) -> float:
    """A cell's figure over its boots, as comparisons weigh them: the geometric mean of its boots' medians
    (its one figure where it has no repetitions)."""
    medians = [float(np.median(v)) for v in _boot_samples(row).values() if len(v)]
    if medians and min(medians) > 0:
        return float(effects.geometric_mean(np.array(medians)))
    single = _single(row)
    return single[0] if single else math.nan


def _single(row: Mapping[str, Any]) -> list[float]:
    value = row.get("ns_per_packet")
    return [] if value is None or (isinstance(value, float) and math.isnan(value)) else [float(value)]


def machine_names(blocks: pd.DataFrame, index: pd.DataFrame | None = None) -> dict[str, str]:
    """Each boot of a store as a reader reads it, 'machine 1', 'machine 2', ..., in the order the boots first
    measured (a block's start, else a run's storing): one numbering for every chapter of a store. A boot is
    a machine here, since a virtual machine may boot on other hardware; the Methods appendix keys them."""
    first: dict[str, str] = {}
    if blocks is not None and len(blocks):
        for boot, started in blocks.groupby("boot")["started_utc"].min().items():
            first[str(boot)] = str(started)
    if index is not None and len(index) and "boot_id" in index:
        known = index[index["boot_id"].notna() & (index["boot_id"] != "")]
        for boot_id, stored in known.groupby("boot_id")["stored_utc"].min().items():
            boot = machine.short_boot(str(boot_id))
            first[boot] = min(first.get(boot, str(stored)), str(stored))
    return {boot: f"machine {i}" for i, boot in enumerate(sorted(first, key=lambda b: (first[b], b)), 1)}


def boot_table(comparisons: Iterable[tuple[dict[str, Any], Comparison]],
               names: dict[str, str] | None = None) -> pd.DataFrame:
    """The reproducibility table: each comparison (its labels) with its outcome and ratio in each boot (named by
    names, machine_names) and across them (the verdict that stands), and whether the boots agree."""
    names = names or {}
    rows = []
    for labels, comparison in comparisons:
        row = dict(labels)
        for boot, effect in comparison.by_boot.items():
            column = names.get(boot) or f"boot {boot or 'single run'}"
            row[column] = f"{effect.outcome(comparison.threshold)}: {effect.text()}"
        if len(comparison.by_boot) > 1:
            row["across the boots"] = f"{comparison.outcome()}: {comparison.effect.text()}"
        words = effects.AGREEMENT_WORDS.get(comparison.agreement)
        row["boots agree"] = f"no: {words}" if words else "yes" if len(comparison.by_boot) > 1 else "one boot only"
        rows.append(row)
    table = pd.DataFrame(rows)  # the labels, the verdict that stands, each boot's, and whether they agree
    per_boot = [c for c in table.columns if c.startswith(("boot ", "machine ")) and c != "boots agree"]
    labels = [c for c in table.columns if c not in per_boot and c not in ("across the boots", "boots agree")]
    return table[labels + [c for c in ("across the boots",) if c in table] + per_boot
                 + [c for c in ("boots agree",) if c in table]]


def keeps_up(probes: list[dict[str, Any]]) -> str:
    """Whether a cell keeps up at its interval, from every probe of it the store holds (every boot): HOLDS
    where every finished probe kept up and lost nothing, FAILS where any lost or fell behind (one lossy probe
    is enough), NOT_MEASURED where none finished. probes: {"ok": bool | None} per probe (None: failed)."""
    judged = [p["ok"] for p in probes if p.get("ok") is not None]
    if not judged:
        return effects.NOT_MEASURED
    return effects.HOLDS if all(judged) else effects.FAILS


@dataclass(frozen=True)
class LossComparison:
    """One real-time comparison (a's median loss less b's) in every boot both were probed in, and over them
    all, as a batch Comparison's ratio is."""

    by_boot: dict[str, effects.Difference]
    boot: str  # the newest boot that probed both
    over: effects.Difference | None = None  # the difference over every boot (effects.difference_over_boots)

    @property
    def difference(self) -> effects.Difference:
        """The difference that stands: over every boot that probed both (one boot's where only one did)."""
        return self.over if self.over is not None else self.by_boot[self.boot]

    @property
    def agreement(self) -> str:
        """How its boots agree: effects.AGREE, DISAGREE (decided in some, not others) or OPPOSE."""
        return effects.agreement(d.outcome() for d in self.by_boot.values())

    @property
    def flips(self) -> bool:
        """Whether boots decided it differently (one holds where another fails or measures no difference)."""
        return bool(self.agreement)

    @property
    def measured(self) -> bool:
        return self.difference.measured

    def outcome(self) -> str:
        return self.difference.outcome()

    def text(self) -> str:
        """The difference that stands, and where boots disagree, that they do."""
        words = effects.AGREEMENT_WORDS.get(self.agreement)
        return self.difference.text() + (f"; {words}" if words else "")


def compare_losses(a: Mapping[str, Any], b: Mapping[str, Any]) -> LossComparison:
    """Two cells of a real-time block (rows of probe blocks, with every finished probe's loss in percent,
    by boot in boot_losses): the difference of their median losses with its interval, in each boot both
    were probed in and over those boots (the difference that stands). Its outcome HOLDS where a loses less
    in 97.5 % of the resamples; two cells that lost nothing in any probe show no difference. Rows without
    boots are compared over all their probes."""
    left, right = _boot_losses(a), _boot_losses(b)
    shared = [boot for boot in left if boot in right]
    if not shared:
        return LossComparison({"": effects.difference(_losses(a), _losses(b))}, "")
    over = effects.difference_over_boots([(left[boot], right[boot]) for boot in shared]) if len(shared) > 1 else None
    return LossComparison({boot: effects.difference(left[boot], right[boot]) for boot in shared}, shared[-1], over)


def _losses(row: Mapping[str, Any]) -> list[float]:
    losses = row.get("losses")
    return [float(v) for v in losses] if isinstance(losses, (list, tuple)) else []


def _boot_losses(row: Mapping[str, Any]) -> dict[str, list[float]]:
    by_boot = row.get("boot_losses")
    return {str(k): [float(v) for v in values] for k, values in by_boot.items()} if isinstance(by_boot, Mapping) else {}
