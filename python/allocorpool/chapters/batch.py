"""Chapter 02, the batch test: ns per packet of every strategy and case, and the article's claims
about it checked on this machine's figures."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters.page import display as show
from allocorpool.chapters.page import tables
from allocorpool.data.tables import value
from allocorpool import effects
from allocorpool.analysis.claims import ratio_rule, Claim, cheapest, per_group_effect, versus
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict

REAL_STRATEGIES = ("Allocation", "Mix", "Pooling")
SLOW_FACTOR = 3.0  # "awful": at least this many times the cheapest strategy of the case
CLOSE = 1.25  # "just a bit worse": within 25 % of the cheapest


def show_fastest(batch: pd.DataFrame) -> None:
    """Which strategy was fastest, per solution and case (the dummy strategy left out)."""
    fastest = tables.best(batch[batch["strategy"] != "dummy"], "ns_per_packet", ["label", "case"])
    show.note("\n".join(f"- {label}: " + ", ".join(f"case {r.case} **{r.strategy_label}** ({r.ns_per_packet:,.0f} ns)"
                                                   for r in rows.itertuples())
                        for label, rows in fastest.groupby("label", sort=False)))


def sources(counter: pd.DataFrame, random: pd.DataFrame) -> pd.DataFrame:
    """Per cell finished under both packet sources: ns per packet with each, and random / counter."""
    keys = ["label", "strategy_label", "case"]
    ok = [frame[frame["status"] == "ok"][keys + ["ns_per_packet"]] for frame in (counter, random)]
    both = ok[0].merge(ok[1], on=keys, suffixes=(" counter", " random"))
    both["random / counter"] = both["ns_per_packet random"] / both["ns_per_packet counter"]
    return both.rename(columns={"label": "solution", "strategy_label": "strategy",
                                "ns_per_packet counter": "counter, ns", "ns_per_packet random": "random, ns"})


def show_sources(counter: pd.DataFrame, random: pd.DataFrame) -> None:
    """The table of both sources per cell, and what it says, computed."""
    both = sources(counter, random)
    if both.empty:
        show.note("No cell finished under both packet sources: there is nothing to compare.")
        return
    show.show_table(both.set_index(["solution", "strategy", "case"]), precision=2,
                    caption="Batch: ns per packet with the published code's counter draws and with independent "
                            "random draws")
    ratio = both["random / counter"]
    dearest, cheapest = both.loc[ratio.idxmax()], both.loc[ratio.idxmin()]
    dearer = int((ratio > 1).sum())
    show.note(f"The random source costs more than the counter in {dearer} of {len(both)} cells; random / counter "
              f"runs from {cheapest['random / counter']:.2f} ({cheapest['solution']}, {cheapest['strategy']}, case "
              f"{cheapest['case']}) to {dearest['random / counter']:.2f} ({dearest['solution']}, "
              f"{dearest['strategy']}, case {dearest['case']}).")


def show_window_fill(batch: pd.DataFrame) -> None:
    """How full the store was when each finished cell's measured window opened (the fill phase's work)."""
    fill = batch[(batch["status"] == "ok") & (batch["strategy"] != "dummy")]["store_fill_at_window"].dropna()
    if fill.empty:
        show.note("No finished cell reports its store's fill.")
        return
    show.note(f"When the measured window opened, the store was between {effects.pct(fill.min(), 1)} and {effects.pct(fill.max(), 1)} full "
              f"in the {len(fill)} finished cells that keep packets (the dummy strategy keeps none).")


def cpu_table(batch: pd.DataFrame) -> pd.DataFrame:
    """Per finished cell (the dummy left out): wall and process CPU time per packet, and the cores kept busy."""
    rows = []
    for row in batch[(batch["status"] == "ok") & (batch["strategy"] != "dummy")].to_dict("records"):
        wall, cpu = value(row, "ns_per_packet"), value(row, "cpu_ns_per_packet")
        if wall and cpu:
            rows.append({"solution": row["label"].split(",")[0], "case": row["case"],
                         "strategy": row["strategy_label"], "wall, ns": wall, "CPU, ns": cpu, "cores busy": cpu / wall})
    return pd.DataFrame(rows, columns=["solution", "case", "strategy", "wall, ns", "CPU, ns", "cores busy"])


def show_cpu(batch: pd.DataFrame) -> None:
    """The cores each cell kept busy, in a sentence, and the table folded."""
    table = cpu_table(batch)
    if table.empty:
        show.nothing_to_show("No finished cell recorded its CPU time.")
        return
    busiest = table.loc[table["cores busy"].idxmax()]
    above = int((table["cores busy"] > 1.1).sum())
    show.note(f"{above} of {len(table)} cells kept more than 1.1 cores busy; the most, "
              f"{busiest['cores busy']:.2f}, {busiest['solution']} {busiest['strategy'].lower()} in case "
              f"{busiest['case']}.")
    shown = table.assign(**{c: table[c].map("{:,.1f}".format) for c in ("wall, ns", "CPU, ns")},
                         **{"cores busy": table["cores busy"].map("{:.2f}".format)})
    show.show_details("CPU and wall time per packet, and the cores kept busy",
                      shown.set_index(["solution", "case", "strategy"]))


def allocation_slowest(batch: pd.DataFrame, **_: object) -> Verdict:
    """Mix and pooling each beat allocation (by the margin, over the interval)."""
    def slowest(rows: dict) -> tuple[str, str, bool]:
        judged = [versus(rows.get(other), rows.get("Allocation")) for other in ("Mix", "Pooling")]
        return effects.all_of([o for o, _, _ in judged]), "; ".join(
            f"{other} / allocation {text}" for other, (_, text, _) in zip(("mix", "pooling"), judged)), \
            any(f for _, _, f in judged)
    return per_group_effect(_ranked(batch), slowest)


def allocation_awful_in_c(batch: pd.DataFrame, **_: object) -> Verdict:
    """The cheaper of mix and pooling takes at most a third of allocation's time."""
    def awful(rows: dict) -> tuple[str, str, bool]:
        outcome, text, flips = versus(cheapest(rows, ("Mix", "Pooling")), rows.get("Allocation"), 1 / SLOW_FACTOR)
        return outcome, f"cheapest / allocation {text}", flips
    ranked = _ranked(batch)
    return per_group_effect(ranked[ranked["case"] == "C"], awful, "solutions in case C")


def mix_fastest_in_a_and_b(batch: pd.DataFrame, **_: object) -> Verdict:
    """Mix beats allocation and pooling."""
    def fastest(rows: dict) -> tuple[str, str, bool]:
        judged = [versus(rows.get("Mix"), rows.get(other)) for other in ("Allocation", "Pooling")]
        return effects.all_of([o for o, _, _ in judged]), "; ".join(
            f"mix / {other} {text}" for other, (_, text, _) in zip(("allocation", "pooling"), judged)), \
            any(f for _, _, f in judged)
    ranked = _ranked(batch)
    return per_group_effect(ranked[ranked["case"].isin(["A", "B"])], fastest)


def mix_close_in_c(batch: pd.DataFrame, **_: object) -> Verdict:
    """Mix takes less than CLOSE times the cheaper of allocation and pooling."""
    def close(rows: dict) -> tuple[str, str, bool]:
        outcome, text, flips = versus(rows.get("Mix"), cheapest(rows, ("Allocation", "Pooling")), CLOSE)
        return outcome, f"mix / cheapest {text}", flips
    ranked = _ranked(batch)
    return per_group_effect(ranked[ranked["case"] == "C"], close, "solutions in case C")


def pooling_beats_allocation(batch: pd.DataFrame, **_: object) -> Verdict:
    """Pooling's time per packet over allocation's, below parity by the margin."""
    def beats(rows: dict) -> tuple[str, str, bool]:
        outcome, text, flips = versus(rows.get("Pooling"), rows.get("Allocation"))
        return outcome, f"pooling / allocation {text}", flips
    return per_group_effect(_ranked(batch), beats)


def _ranked(batch: pd.DataFrame) -> pd.DataFrame:
    """The cells a claim speaks of: finished, real strategies, no baseline (Epsilon)."""
    rows = batch[(batch["strategy"] != "dummy") & ~batch["baseline"].astype(bool)]
    return rows.assign(ns_per_packet=rows["ns_per_packet"].where(rows["status"] == "ok"))


ARTICLE_SOLUTIONS = ("parallel-11",)  # the article's solutions this chapter's claims were made of

CLAIMS = (
    Claim("Allocation is the slowest strategy in every case", allocation_slowest,
          ratio_rule("Per solution and case", "mix's time over allocation's, and pooling's")),
    Claim(f"In case C allocation is awful: at least {SLOW_FACTOR:g} times the cheapest strategy",
          allocation_awful_in_c,
          ratio_rule("Per solution in case C", "the cheaper of mix and pooling over allocation", f"1/{SLOW_FACTOR:g}")),
    Claim("Mix is the fastest strategy in cases A and B", mix_fastest_in_a_and_b,
          ratio_rule("Per solution in cases A and B", "mix's time over allocation's, and over pooling's")),
    Claim(f"In case C mix is only a little slower than the fastest (within {effects.pct(CLOSE - 1)})", mix_close_in_c,
          ratio_rule("Per solution in case C", "mix's time over the cheaper of allocation and pooling", f"{CLOSE:g}")),
    Claim("Pooling beats allocation in every batch cell", pooling_beats_allocation,
          ratio_rule("Per solution and case", "pooling's time over allocation's")),
)


show_verdicts = verdicts_of(CLAIMS, ARTICLE_SOLUTIONS)
