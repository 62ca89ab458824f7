"""Chapter 17's real-time part: one clock feeding N consumer threads in turn, each on a CPU of its own and
seeing the chapter's interval. Every strategy is probed repeatedly at each count as one block; a strategy
keeps up where none of its probes lost a packet, and two are compared by the difference of their median
losses with its 95 % interval (analysis.blocks.compare_losses). Every sentence is computed from the table
(ThreadExperiments.thread_probes)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from allocorpool import effects
from allocorpool.analysis import blocks as block_figures
from allocorpool.chapters.page import display as show
from allocorpool.analysis.claims import tallied
from allocorpool.chapters.realtime_blocks import both_kept_up, difference_words, loss_text
from allocorpool.chapters.threads import by_strategy
from allocorpool.effects import Verdict
from allocorpool.lists import THREAD_POOLS, THREAD_STRATEGY_LABELS, THREAD_STRATEGY_NAMES

RULE = ("In each solution and case, the first strategy's median loss minus the second's over the block's probes, "
        "with its 95 % interval. A comparison holds where the whole interval lies below zero, fails where it lies "
        "above, and otherwise reads undecided (two strategies that never lost show none).")


def measured(probes: pd.DataFrame) -> pd.DataFrame:
    """The rows of consumer counts some probe finished at (a replay lists every planned count)."""
    if not len(probes):
        return probes
    held = probes[probes["keeps_up"] != effects.NOT_MEASURED].groupby("threads").size()
    return probes[probes["threads"].isin(held.index)]


def _words(row: dict[str, Any] | None) -> str:
    if row is None or row["keeps_up"] == effects.NOT_MEASURED:
        return "not measured"
    return loss_text(row)


def table(probes: pd.DataFrame) -> pd.DataFrame:
    """A row per solution, case and consumer count: each strategy's outcome over its probes, where it kept up
    with the median of its probes' 99th percentile of metered latency (how late a packet was made after it was
    due), and a pool per thread's loss against allocation's."""
    probes = measured(probes)
    rows = []
    for (label, solution, case, threads), part in probes.groupby(["label", "solution", "case", "threads"],
                                                                 sort=False):
        by = by_strategy(probes, solution, case, int(threads))
        row: dict[str, Any] = {"solution": label, "case": case, "consumers": int(threads)}
        for strategy, r in by.items():
            p99 = r.get("latency_p99_ns")
            latency = f"; 99 % within {p99 / 1e6:.3g} ms" if p99 is not None and not pd.isna(p99) else ""
            row[THREAD_STRATEGY_LABELS[strategy]] = _words(r) + (latency if r["keeps_up"] == effects.HOLDS else "")
        if "pool" in by and "alloc" in by:
            row["Pool per thread against allocation: loss difference"] = difference_words(by["pool"], by["alloc"], "the pool")
        rows.append(row)
    return pd.DataFrame(rows).set_index(["solution", "case", "consumers"]) if rows else pd.DataFrame()


def questions(probes: pd.DataFrame) -> list[tuple[str, int, Verdict]]:
    """At each consumer count: does each pool lose less than allocation, and a pool per thread less than the
    shared pool; decided pair by pair on the blocks' losses (a question no measured engine runs is left out)."""
    probes = measured(probes)
    decided = []
    for n in sorted(int(v) for v in probes["threads"].unique()) if len(probes) else []:
        for better, than in [(pool, "alloc") for pool in THREAD_POOLS] + [("pool", "shared-pool")]:
            rows = []
            for (label, solution, case), _ in probes[probes["threads"] == n].groupby(["label", "solution", "case"],
                                                                                        sort=False):
                by = by_strategy(probes, solution, case, n)
                if better in by and than in by:
                    difference = block_figures.compare_losses(by[better], by[than])
                    effect = ("both kept up in every probe" if both_kept_up(by[better], by[than])
                              else "no probes" if difference.outcome() == effects.NOT_MEASURED
                              else f"loss: {difference.text()}")
                    rows.append({"solution": label, "case": case, "effect": effect, "outcome": difference.outcome(),
                                 **({"boots": difference.agreement} if difference.flips else {})})
            if not rows and better not in ("pool", "shared-pool"):
                continue
            decided.append((f"{THREAD_STRATEGY_LABELS[better]} loses less than "
                            f"{THREAD_STRATEGY_NAMES[than]}", n, tallied(pd.DataFrame(rows), "pairs")))
    return decided


def verdict_table(decided: list[tuple[str, int, Verdict]]) -> pd.DataFrame:
    """A row per question, a column per consumer count: how its pairs came out."""
    rows: dict[str, dict[str, str]] = {}
    for question, n, verdict in decided:
        rows.setdefault(question, {})[show.count(n, "consumer")] = verdict.summary[:1].upper() + verdict.summary[1:]
    return pd.DataFrame.from_dict(rows, orient="index").fillna("").rename_axis("on this machine")


def findings(probes: pd.DataFrame) -> list[str]:
    """Per consumer count: how many solution and case pairs each strategy kept up in, at what interval."""
    probes = measured(probes)
    lines = []
    for n, part in probes.groupby("threads"):
        pairs = part[["solution", "case"]].drop_duplicates()
        kept = {THREAD_STRATEGY_LABELS[str(s)]: int((rows["keeps_up"] == effects.HOLDS).sum())
                for s, rows in part.groupby("strategy", sort=False)}
        interval = int(part["interval_ns"].iloc[0])
        by_count: dict[int, list[str]] = {}
        for label, count in kept.items():
            by_count.setdefault(count, []).append(label)
        of = show.count(len(pairs), "solution and case pair")
        if set(by_count) == {0}:
            said = f"no strategy kept up in every probe, in any of the {of}"
        else:
            said = "kept up in every probe: " + "; ".join(f"{show.series(labels)} in {count}" for count, labels
                                                          in sorted(by_count.items(), reverse=True)) + f" of {of}"
        lines.append(f"With {show.count(int(n), 'consumer')}, each taking a packet every {interval:,} ns, {said}.")
    return lines


def counts_note(probes: pd.DataFrame, planned: tuple[int, ...], cpus: int | None) -> str:
    """Which consumer counts the probes measured, and which of the plan need a larger machine than the one
    that measured them (cpus: its CPUs, if known)."""
    shown = measured(probes)
    counts = sorted(int(n) for n in shown["threads"].unique()) if len(shown) else []
    if not counts:
        return "Consumer counts measured: none."
    left = [n for n in sorted(set(planned)) if n not in counts]
    machine = f" (the machine measured has {cpus})" if cpus is not None else ""
    return (f"Consumer counts measured: {show.series(counts)}."
            + (f" Runs of {show.series(left)} consumers need one CPU more than their count{machine}: a larger "
               "machine runs them." if left else ""))


def show_realtime(probes: pd.DataFrame, planned: tuple[int, ...], cpus: int | None) -> None:
    """The real-time part: the counts measured and those the measuring machine (cpus: its CPUs, if known)
    has too few CPUs for, the table, the findings and the verdicts."""
    if probes.empty:
        show.note("No solution of this part is in this profile's selection.")
        return
    show.note(counts_note(probes, planned, cpus))
    if measured(probes).empty:
        return
    show.show_table(table(probes), "Real time, one clock and N consumers: each strategy's outcome over its probes")
    for line in findings(probes):
        show.note(line)
    decided = questions(probes)
    show.show_table(verdict_table(decided), "Real time, one clock and N consumers: what holds on this machine")
    show.note(f"Each entry counts the solution and case pairs by outcome. How it is decided: {RULE}")
    for question, n, verdict in decided:
        if len(verdict.cells):
            show.show_details(f"The pairs behind, with {show.count(n, 'consumer')}: {question}", verdict.cells)
