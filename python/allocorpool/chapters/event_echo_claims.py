"""Chapter 11's claims: Lawrey's conclusions (seed 004), each decided on this machine's runs by a rule stated
with it, and his own figures beside them, labelled as from another machine.

A claim is decided for each JDK and collector on its own, from the repetitions of both modes (the echo's
claims on the Chronicle rows, the seed's library, at the largest client count measured; the NIO rows are
shown in the chapter's tables, not counted): the figure's 95 % interval lies wholly inside the claim's band
(holds), wholly outside it (fails), or across its edge (undecided); with one run a side it is not measured.
Over the pairs, effects.Tally counts them as every chapter counts its comparisons, and the verdict reads in
effects.WORDS: a claim holds only where it holds for every pair judged; pairs that differ make it "partly",
with the counts."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from allocorpool import effects, paths
from allocorpool.chapters.event_echo import collector_label
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.claims import OUTCOME_COLOURS, in_few_words
from allocorpool.chapters.page.tables import style
from allocorpool.effects import FAILS, HOLDS, NO_DIFFERENCE, NOT_MEASURED, Verdict

SEED_SOURCE = "Lawrey's (Ryzen 5950X, 16 cores, 16 clients, Java 17, 2022)"
# Verdict rules (CLAIM_RULES): a figure "about the same" as the seed's lies within this factor of it.
SAME_FACTOR = 2.0
GC_SMALL_PCT = 1.0  # "only a small part of the time in GC": under 1 % of the measured time
SLOWER_WITH_THREADS = 1.10  # the allocation loop's time per call grows by more than 10 % from 1 to 2 threads
PAIRS = "JDK and collector pairs"
CLAIM_RULES = {
    "extra": f"the copy's extra time per event (clients / events per second, copy minus reuse) within a factor "
             f"{SAME_FACTOR:g} of Lawrey's {{seed:g}} ns",
    "drop": f"the copy's loss of events per second within a factor {SAME_FACTOR:g} of Lawrey's {{seed:g}} %",
    "gc": f"the copy's time in GC pauses under {GC_SMALL_PCT:g} % of the measured time",
    "share": "the copy's GC pauses per event under half its extra time per event",
    "threads": f"the loop's time per call on 2 threads more than {100 * (SLOWER_WITH_THREADS - 1):.0f} % above "
               f"its time on 1",
}


def reference() -> pd.DataFrame:
    return pd.read_csv(paths.data_dir() / "reference" / "event_echo_reference.csv")


def seed_value(figures: pd.DataFrame, metric: str) -> float:
    return float(figures.loc[figures["metric"] == metric, "value"].iloc[0])


def within(low: float, high: float, lowest: float, highest: float) -> str:
    """HOLDS where [low, high] lies inside [lowest, highest], FAILS where wholly outside, else NO_DIFFERENCE
    (across an edge: undecided); NOT_MEASURED where the interval is unknown."""
    if math.isnan(low) or math.isnan(high):
        return NOT_MEASURED
    if lowest <= low and high <= highest:
        return HOLDS
    return FAILS if high < lowest or low > highest else NO_DIFFERENCE


def _values(rows: pd.DataFrame, mode: str, figure: Callable[[pd.DataFrame], pd.Series]) -> np.ndarray:
    part = rows[(rows["mode"] == mode) & (rows["status"] == "ok")]
    return figure(part).to_numpy(dtype=float) if len(part) else np.array([])


def echo_pairs(echo: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The echo runs that decide: the Chronicle rows at the largest client count, per JDK and collector."""
    chronicle = echo[(echo["transport"] == "chronicle") & (echo["status"] == "ok")] if len(echo) else echo
    if not len(chronicle):
        return []
    deciding = chronicle[chronicle["clients"] == chronicle["clients"].max()]
    clients = int(deciding["clients"].iloc[0])
    return [(f"JDK {jdk} {collector_label(collector)}, {show.count(clients, 'client')}", rows)
            for (jdk, collector), rows in deciding.groupby(["jdk", "collector"], sort=True)]


def _verdict(judged: list[tuple[str, str, str]], rule: str, claim: str) -> Verdict:
    """A claim from its pairs' (name, outcome, figure with interval): each pair's outcome as every chapter's table
    of comparisons words it (effects.OUTCOMES), the claim's verdict and count as effects.Tally gives them."""
    tally = effects.tally(outcome for _, outcome, _ in judged)
    cells = pd.DataFrame([{"pair": name, "verdict": outcome, "figure": text}
                          for name, outcome, text in judged], columns=["pair", "verdict", "figure"])
    return Verdict(tally.outcome(), tally.text(PAIRS), cells, rule=rule, claim=claim)


def _echo_claim(claim: str, seed: str, rule: str, echo: pd.DataFrame,
                judge: Callable[[pd.DataFrame], tuple[str, str]]) -> Verdict:
    """A claim judged pair by pair: judge gives each pair's outcome and its figure with interval."""
    return _verdict([(name, *judge(rows)) for name, rows in echo_pairs(echo)], rule, f"{claim} ({seed})")


def _extra(seed: float) -> Callable[[pd.DataFrame], tuple[str, str]]:
    def judge(rows: pd.DataFrame) -> tuple[str, str]:
        clients = float(rows["clients"].iloc[0])
        gap = effects.difference(_values(rows, "copy", lambda r: clients * 1e9 / r["events_per_s"]),
                                 _values(rows, "reuse", lambda r: clients * 1e9 / r["events_per_s"]))
        outcome = within(gap.low, gap.high, seed / SAME_FACTOR, seed * SAME_FACTOR) if gap.measured else NOT_MEASURED
        return outcome, gap.text("ns", least_digits=0)
    return judge


def _drop(seed: float) -> Callable[[pd.DataFrame], tuple[str, str]]:
    def judge(rows: pd.DataFrame) -> tuple[str, str]:
        kept = effects.ratio(_values(rows, "copy", lambda r: r["events_per_s"]),
                             _values(rows, "reuse", lambda r: r["events_per_s"]))
        if not kept.measured:
            return NOT_MEASURED, kept.text()
        low, high = 100 * (1 - kept.high), 100 * (1 - kept.low)
        outcome = within(low, high, seed / SAME_FACTOR, seed * SAME_FACTOR)
        return outcome, f"{100 * (1 - kept.ratio):.1f} % ({low:.1f} to {high:.1f})"
    return judge


def _gc(rows: pd.DataFrame) -> tuple[str, str]:
    pct = effects.spread(_values(rows, "copy", lambda r: r["gc_pause_pct"]))
    if pct.n < 2:
        return NOT_MEASURED, pct.text("%")
    outcome = HOLDS if pct.high < GC_SMALL_PCT else FAILS if pct.low >= GC_SMALL_PCT else NO_DIFFERENCE
    return outcome, pct.text("%")


def _share(rows: pd.DataFrame) -> tuple[str, str]:
    pauses = effects.spread(_values(rows, "copy", lambda r: 1e6 * r["gc_pause_ms"] / r["events"]))
    extra = effects.difference(_values(rows, "copy", lambda r: 1e9 / r["events_per_s"]),
                               _values(rows, "reuse", lambda r: 1e9 / r["events_per_s"]))
    text = f"pauses {pauses.text('ns')} against extra {extra.text('ns', least_digits=0)} per event"
    if pauses.n < 2 or not extra.measured:
        return NOT_MEASURED, text  # one run a side
    if extra.high <= 0:
        return NO_DIFFERENCE, text  # no time the copy cost to share
    if extra.low > 0 and pauses.high < extra.low / 2:
        return HOLDS, text
    return (FAILS if pauses.low >= extra.high / 2 else NO_DIFFERENCE), text


def _threads(allocation: pd.DataFrame) -> Verdict:
    ok = allocation[allocation["status"] == "ok"] if len(allocation) else allocation
    judged = []
    for (jdk, collector), rows in (ok.groupby(["jdk", "collector"], sort=True) if len(ok) else []):
        slower = effects.ratio(rows.loc[rows["threads"] == 2, "ns_per_op"], rows.loc[rows["threads"] == 1, "ns_per_op"])
        outcome = within(slower.low, slower.high, SLOWER_WITH_THREADS, math.inf) if slower.measured else NOT_MEASURED
        judged.append((f"JDK {jdk} {collector_label(collector)}", outcome, slower.text()))
    return _verdict(judged, CLAIM_RULES["threads"],
                    "The allocation rate is quickly saturated by a few cores: time per call grows with threads "
                    "(a chart, not in Lawrey's text)")


def claims(echo: pd.DataFrame, allocation: pd.DataFrame, figures: pd.DataFrame) -> list[Verdict]:
    """Each of the seed's claims as a verdict of this machine's runs (CLAIM_RULES), pair by pair."""
    seed = {m: seed_value(figures, m) for m in ("extra_ns_per_event", "throughput_drop_pct", "gc_pause_pct",
                                                "gc_pause_ms_per_min")}
    return [
        _echo_claim("One extra allocation per event adds about 166 ns", f"Lawrey: {seed['extra_ns_per_event']:g} ns "
                    "at 16 clients", CLAIM_RULES["extra"].format(seed=seed["extra_ns_per_event"]), echo,
                    _extra(seed["extra_ns_per_event"])),
        _echo_claim("This reduces throughput by 25 %", f"Lawrey: {seed['throughput_drop_pct']:g} %",
                    CLAIM_RULES["drop"].format(seed=seed["throughput_drop_pct"]), echo,
                    _drop(seed["throughput_drop_pct"])),
        _echo_claim("Only 0.3 % of the time was in the collector", f"Lawrey: {seed['gc_pause_pct']:g} %, "
                    f"{seed['gc_pause_ms_per_min']:g} ms a minute", CLAIM_RULES["gc"], echo, _gc),
        _echo_claim("It is the allocations rather than the collection of these short-lived objects that take time",
                    f"Lawrey: GC {seed['gc_pause_pct']:g} % of the time, the copy {seed['throughput_drop_pct']:g} % "
                    "of the throughput", CLAIM_RULES["share"], echo, _share),
        _threads(allocation),
    ]


def verdicts(echo: pd.DataFrame, allocation: pd.DataFrame, figures: pd.DataFrame) -> pd.DataFrame:
    """The claims as a table: each with this machine's verdict, how often it holds over the pairs, and the rule
    that decides it (each pair's figure is in the claim's Verdict.cells)."""
    return _table(claims(echo, allocation, figures))


def _table(decided: list[Verdict]) -> pd.DataFrame:
    return pd.DataFrame([{"Lawrey's claim": v.claim, "verdict": v.words, "this machine": in_few_words(v.summary),
                          "how it is decided": v.rule} for v in decided])


def show_verdicts(decided: list[Verdict]) -> None:
    """The claims a line each, verdicts coloured as every chapter colours them; each JDK and collector pair's
    figure with its interval and outcome follows, folded, a table per claim."""
    if not decided:
        return
    table = _table(decided).set_index("Lawrey's claim")
    styler = style(table).map(lambda v: f"background-color: {OUTCOME_COLOURS[v]}" if v in OUTCOME_COLOURS else "",
                              subset=["verdict"])
    show.show_table(styler, caption=f"The claims, {SEED_SOURCE}, checked on this machine")
    behind = [(v.claim, v.cells.rename(columns={"pair": "JDK and collector", "figure": "figure (95 % interval)"}))
              for v in decided if len(v.cells)]
    if behind:
        show.show_details_group("Each JDK and collector pair's figure, by claim", behind)


CLAIM_NAMES = {"extra_ns": "the cost of one allocation per event", "throughput_drop": "the throughput it costs",
               "gc_time": "the time in GC", "allocation_saturates": "a few cores saturate allocation"}


def show_seed_figures(figures: pd.DataFrame) -> None:
    table = figures[["claim", "metric", "value", "unit", "benchmark", "machine", "jdk", "clients", "note"]]
    table = table.assign(claim=table["claim"].map(lambda c: CLAIM_NAMES.get(c, show.reader_name(c))),
                         metric=table["metric"].map(show.reader_name), value=table["value"].map(show.yes_no))
    show.show_table(table.set_index(["claim", "metric"]),
                    caption="Lawrey's figures (his text; another machine and year), kept in the study's reference data")
