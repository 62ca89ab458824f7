"""Chapter 04, the real-time test: the search for the smallest loss-free interval, the pause
timelines of the article's printed runs, and the article's real-time claims checked here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.search import loses_at_reference
from allocorpool.chapters.page import display as show
from allocorpool.chapters import realtime_blocks
from allocorpool.analysis.claims import search_rule, Claim, every
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict
from allocorpool.chapters.page.tables import saw_no_collection
from allocorpool.study import Profile, Solution

SEARCH_COLUMNS = ["label", "strategy_label", "case", "outcome", "interval_ns", "loss_pct"]


def show_plan(profile: Profile, chosen: Iterable[Solution]) -> None:
    """How the searches of this profile run, and the heaps of the chosen solutions, as a table."""
    plan = profile.search
    grid = "two significant digits, as the article prints them" if plan.digits > 1 else "one significant digit"
    step = 1 + plan.resolution
    rows = [
        ("probe", f"{profile.probe_s:g} s measured after a {profile.probe_warmup_s:g} s warm-up"),
        ("first interval", f"{plan.start_factor:g} x the batch time per packet"),
        ("upwards", f"doubling up to {plan.high_ns:,} ns, taking 1,000 ns on the way"),
        ("then", f"bisection on a grid of {grid}, until the loss-free interval is within {effects.pct(plan.resolution)} "
                 "of a lossy one"),
        ("confirmation", (f"a probe long enough to hold the cell's slowest collection twice (at most "
                          f"{plan.longest_probe_s:g} s), in Java cells; elsewhere a repeat of the same length")
         if plan.confirm else "a repeat of the same length"),
        ("after a lossy confirmation", f"steps of {step:g}, {step ** 2:.2f}, {step ** 4:.2f} ... times upwards, "
                                       "then bisection of the last step"),
        ("input queue", f"{profile.capture_delay_ms:g} ms of ticks"),
    ]
    rows += [(f"heap of {s.label}", f"{s.heap_mb(profile.scale):,} MB"
              + (f"; big heap {s.big_heap_mb(profile.scale):,} MB" if s.big_heap_mb(profile.scale) else ""))
             for s in chosen if s.engine == "java"]
    show.show_table(pd.DataFrame(rows, columns=["step", "how"]).set_index("step"),
                    f"How a search runs under the {profile.name} profile")


AT_REFERENCE_RULE = "Each cell at 1,000 ns: by its repeated probes there where they were measured (one lossy probe says it loses), else by its search."


def _at_reference(rows: pd.DataFrame, loses: bool, probes: pd.DataFrame | None = None) -> Verdict:
    """Each cell's verdict at 1,000 ns, where the article's claims judge real time: by its real-time block's
    repeated probes where they were measured (one lossy probe says it loses), else by its search (a cell
    that keeps up only at a longer interval loses there)."""
    blocks = realtime_blocks.measured(probes)
    block_rows = {} if blocks is None else {(r["solution"], r["strategy"], r["case"]): r
                                            for r in blocks.to_dict("records")}
    by_block = {k: r["keeps_up"] for k, r in block_rows.items()}

    def key(row: dict) -> tuple:
        return row.get("solution"), row.get("strategy"), row.get("case")

    def agrees(row: dict) -> bool | None:
        block = by_block.get(key(row))
        lost = (block == effects.FAILS) if block is not None else loses_at_reference(row)
        return None if lost is None else lost == loses
    records = rows.to_dict("records")
    rows = rows.assign(**{"decided by": ["repeated probes at 1,000 ns" if key(r) in by_block else "its search"
                                         for r in records],
                          "repeated probes at 1,000 ns": [realtime_blocks.loss_text(block_rows[key(r)])
                                                         if key(r) in block_rows else "—" for r in records]})
    verdict = every(rows, agrees, [*SEARCH_COLUMNS, "repeated probes at 1,000 ns", "decided by"])
    return replace(verdict, rule=AT_REFERENCE_RULE)


def pooling_loses_everywhere(searches: pd.DataFrame, probes: pd.DataFrame | None = None, **_: object) -> Verdict:
    return _at_reference(_ranked(searches)[lambda f: f["strategy"] == "pool"], loses=True, probes=probes)


def allocation_keeps_up_in_a_near_its_batch_speed(searches: pd.DataFrame, batch: pd.DataFrame,
                                                  **_: object) -> Verdict:
    speed = batch.set_index(["label", "strategy", "case"])["ns_per_packet"]
    rows = _ranked(searches)[lambda f: (f["strategy"] == "alloc") & (f["case"] == "A")]
    rows = rows.assign(batch_ns=[speed.get((r.label, r.strategy, r.case)) for r in rows.itertuples()])

    def near(row: dict) -> bool | None:
        if row["outcome"] in ("failed", "missing") or pd.isna(row["batch_ns"]):
            return None
        return row["outcome"] == "found" and row["interval_ns"] <= 2 * row["batch_ns"]
    return every(rows, near, SEARCH_COLUMNS + ["batch_ns"])


def mix_keeps_up_in_a_and_b(searches: pd.DataFrame, probes: pd.DataFrame | None = None, **_: object) -> Verdict:
    return _at_reference(_ranked(searches)[lambda f: (f["strategy"] == "mix") & f["case"].isin(["A", "B"])],
                         loses=False, probes=probes)


def nothing_keeps_up_in_c(searches: pd.DataFrame, probes: pd.DataFrame | None = None, **_: object) -> Verdict:
    return _at_reference(_ranked(searches)[lambda f: f["case"] == "C"], loses=True, probes=probes)


def a_bigger_heap_cuts_the_loss(searches: pd.DataFrame, **_: object) -> Verdict:
    """Judged where the big-heap probe's window saw a collection: one that saw none measured no pause of
    the big heap (tables.saw_no_collection), and its loss of nothing cannot tell; nor can a big-heap probe
    that failed or that a replayed store lacks."""
    if "big_heap_collections" not in searches.columns:  # the article's own figures: no window to look into
        searches = searches.assign(big_heap_collections=None, big_heap_status=None)
    rows = _ranked(searches)[lambda f: (f["outcome"] == "lost")
                             & (f["big_heap_loss_pct"].notna() | f["big_heap_status"].notna())]

    def cuts(row: dict) -> bool | None:
        if saw_no_collection(row) or pd.isna(row["loss_pct"]) or pd.isna(row["big_heap_loss_pct"]):
            return None
        return row["big_heap_loss_pct"] < row["loss_pct"]
    return every(rows, cuts, SEARCH_COLUMNS + ["big_heap", "big_heap_status", "big_heap_loss_pct", "big_heap_collections"],
                 "cells that lose")


def _ranked(searches: pd.DataFrame) -> pd.DataFrame:
    return searches[~searches["baseline"].astype(bool)]


ARTICLE_SOLUTIONS = ("parallel-11",)  # the article's solutions this chapter's claims were made of

CLAIMS = (
    Claim("Pooling loses packets at 1,000 ns in every case: its pauses outlast the input queue",
          pooling_loses_everywhere, AT_REFERENCE_RULE),
    Claim("Allocation keeps up in case A, at an interval within twice its batch time per packet",
          allocation_keeps_up_in_a_near_its_batch_speed,
          search_rule("Allocation in case A", "its search found no loss at an interval of at most twice its "
                      "batch time per packet")),
    Claim("Mix keeps up at 1,000 ns in cases A and B", mix_keeps_up_in_a_and_b, AT_REFERENCE_RULE),
    Claim("No strategy keeps up at 1,000 ns in case C", nothing_keeps_up_in_c, AT_REFERENCE_RULE),
    Claim("A heap five times larger cuts the loss where packets are lost", a_bigger_heap_cuts_the_loss,
          "Each cell whose search lost packets, probed again at the same interval with a heap five times larger: "
          "holds where that probe lost less. A probe that saw no collection cannot tell."),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)


def what_if_text(row: Any) -> str:
    """A what-if probe's outcome: keeps up, the share it lost, falls behind (no loss yet, but it did not keep up
    with the clock), or why it has none."""
    if row.status != "ok":
        return str(row.status)
    if row.keeps_up:
        return "keeps up"
    return "falls behind" if row.loss_pct is None or pd.isna(row.loss_pct) else f"loses {row.loss_pct:.2g} %"


def show_what_if(what_if: pd.DataFrame) -> None:
    """The article's what-if: pooling with an input queue ten times longer, probed at 1,000 ns."""
    if not len(what_if):
        show.note("No what-if probe ran under this profile.")
        return
    table = what_if.assign(result=[what_if_text(r) for r in what_if.itertuples()])
    show.show_table(table.set_index(["label", "strategy_label", "case"])[["queue_ms", "duration_s", "result"]],
                    caption="Pooling at 1,000 ns with an input queue ten times longer than the article's")
