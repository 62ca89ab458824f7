"""Chapter 17, several threads: the answer of chapter 09 for N processing threads, how each strategy scales,
and what sharing one pool costs. Every figure is a median over a block's repetitions with its 95 % interval;
every comparison a ratio of medians with its interval (effects), decided against parity by the margin. Every
sentence stating a result is computed here from the chapter's table (run.experiments.threads.threads)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool import effects
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis.thread_costs import HELD, HELD_MUCH, cpu_view
from allocorpool.data.records import MISSING
from allocorpool.chapters.page import display as show
from allocorpool.analysis.claims import Claim, tallied, versus
from allocorpool.chapters.page.claims import OUTCOME_COLOURS
from allocorpool.chapters.page.tables import style
from allocorpool.effects import Verdict
from allocorpool.lists import (THREAD_ENGINE_STRATEGIES, THREAD_POOLS, THREAD_STRATEGY_LABELS,
                               THREAD_STRATEGY_NAMES, WEAK)

ALLOC = "alloc"
PER_THREAD, SHARED = "pool", "shared-pool"
# Allocation and pooling in the colours the other chapters give them; the shared pool a shade of pooling's
THREAD_COLOURS = {"alloc": "#d62728", "pool": "#1f77b4", "shared-pool": "#17becf", "pmr-synchronized": "#8c564b",
                  "netty-pooled-heap": "#2ca02c", "netty-pooled-direct": "#9467bd", "netty-recycler": "#bcbd22"}
SCALES_WITHIN = 1.25  # "scales": thread time per packet at N threads within 25 % of one thread's


def _ns(row: dict[str, Any] | None) -> float:
    value = None if row is None or row.get("status") != "ok" else row.get("ns_per_packet")
    return math.nan if value is None or pd.isna(value) else float(value)


def measured(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of thread counts the store holds a finished run of (a replay lists every planned count), of one
    scaling: weak, the comparison, where the table holds several (scaling_view picks another)."""
    if not len(table):
        return table
    if "scaling" in table and table["scaling"].fillna(WEAK).nunique() > 1:
        table = table[table["scaling"].fillna(WEAK) == WEAK]
    held = table[table["status"] != MISSING].groupby("threads").size()
    return table[table["threads"].isin(held.index)]


def by_strategy(table: pd.DataFrame, solution: str, case: str, threads: int) -> dict[str, dict[str, Any]]:
    """The rows of one solution, case and thread count, by strategy (the real-time part's too)."""
    part = table[(table["solution"] == solution) & (table["case"] == case) & (table["threads"] == threads)]
    return {str(r["strategy"]): r for r in part.to_dict("records")}


def _ranked(rows: dict[str, dict[str, Any]]) -> list[str]:
    """The measured strategies, fastest (lowest median thread time per packet) first."""
    return sorted((s for s in rows if not math.isnan(_ns(rows[s]))), key=lambda s: _ns(rows[s]))


def best_text(rows: dict[str, dict[str, Any]]) -> str:
    """The strategy with the lowest median thread time per packet and its margin over the next, with the
    ratio's interval; both named where the interval does not clear parity by the margin."""
    ranked = _ranked(rows)
    if not ranked:
        return "not measured"
    best = THREAD_STRATEGY_LABELS[ranked[0]]
    if len(ranked) == 1:
        return f"{best} (the others failed)"
    nxt = THREAD_STRATEGY_NAMES[ranked[1]]
    comparison = block_figures.compare(rows[ranked[0]], rows[ranked[1]])
    effect, outcome = comparison.effect, comparison.outcome()
    boots = effects.boots_words(comparison.agreement)
    if outcome == effects.HOLDS:
        return (f"{best}, {100 * (1 - effect.ratio):.0f} % ({100 * (1 - effect.high):.0f}-"
                f"{100 * (1 - effect.low):.0f} %) less time than {nxt}{boots}")
    return f"{best} or {nxt}: undecided, {effect.text()}{boots}"


def answer_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per solution and case, a column per thread count: the best strategy and its margin over the next."""
    table = measured(table)
    rows = []
    for (label, solution, case), part in table.groupby(["label", "solution", "case"], sort=False):
        row = {"solution": label, "case": case}
        for threads in sorted(int(n) for n in part["threads"].unique()):
            row[show.count(threads, "thread")] = best_text(by_strategy(table, solution, case, threads))
        rows.append(row)
    return pd.DataFrame(rows).set_index(["solution", "case"]) if rows else pd.DataFrame()


def figures_table(table: pd.DataFrame) -> pd.DataFrame:
    """Thread time per packet, median and 95 % interval, a row per solution, case and thread count."""
    table = measured(table)
    rows = []
    for (label, case, threads), part in table.groupby(["label", "case", "threads"], sort=False):
        row: dict[str, Any] = {"solution": label, "case": case, "threads": int(threads)}
        for r in part.to_dict("records"):
            spread = effects.Spread(_ns(r), r.get("ns_low") or math.nan, r.get("ns_high") or math.nan,
                                    int(r.get("runs") or 0))
            row[str(r["strategy_label"])] = (spread.text() if r.get("status") == "ok" else "not measured"
                                             if r.get("status") == MISSING else str(r.get("status")))
        rows.append(row)
    # a strategy the solution's engine has not (Netty in C++) stays empty
    return pd.DataFrame(rows).set_index(["solution", "case", "threads"]).fillna("") if rows else pd.DataFrame()


def scaling_table(table: pd.DataFrame) -> pd.DataFrame:
    """Each strategy's thread time per packet at each thread count over its time at one thread (1: perfect
    scaling; 2 at two threads: no more packets than one thread made), with the ratio's interval: a row per
    solution and strategy, a column per case and thread count."""
    table = measured(table)
    counts = sorted(int(n) for n in table["threads"].unique() if n > 1) if len(table) else []
    rows = []
    for (label, solution), part in table.groupby(["label", "solution"], sort=False):
        for strategy in dict.fromkeys(part["strategy"]):
            row = {"solution": label, "strategy": THREAD_STRATEGY_LABELS[strategy]}
            for case in dict.fromkeys(part["case"]):
                one = by_strategy(table, solution, case, 1).get(strategy)
                for n in counts:
                    many = by_strategy(table, solution, case, n).get(strategy)
                    row[f"case {case}, {n} / 1"] = ("not measured" if _missing(one) or _missing(many)
                                                    else block_figures.compare(many, one).effect.text())
            rows.append(row)
    return pd.DataFrame(rows).set_index(["solution", "strategy"]) if rows else pd.DataFrame()


def _missing(row: dict[str, Any] | None) -> bool:
    return row is None or row.get("status") != "ok"


def figure(table: pd.DataFrame, per: str = "thread",
           title: str = "Throughput per thread against the number of threads (flat: perfect scaling)") -> go.Figure:
    """Packets per second per thread (or, per="CPU-second", per second of the threads' CPU time, from a
    threads_costs.cpu_view) against the thread count, a line per strategy, a panel per solution and case; the
    bars span the 95 % interval of the median. Flat lines scale perfectly."""
    table = measured(table)
    table = table[table["status"] == "ok"]
    panels = list(dict.fromkeys(zip(table["label"], table["case"])))
    titles = [f"{label}, case {case}" for label, case in panels] or [""]
    columns = min(3, max(1, len(panels)))
    rows = max(1, math.ceil(len(panels) / columns))
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=titles, shared_yaxes=False)
    shown: set[str] = set()
    for i, (label, case) in enumerate(panels):
        part = table[(table["label"] == label) & (table["case"] == case)]
        for strategy, lines in part.groupby("strategy", sort=False):
            lines = lines.sort_values("threads")
            name = THREAD_STRATEGY_LABELS[str(strategy)]
            rate = 1e3 / lines["ns_per_packet"].astype(float)  # million packets per second, per thread
            high = 1e3 / lines["ns_low"].astype(float) - rate
            low = rate - 1e3 / lines["ns_high"].astype(float)
            fig.add_trace(go.Scatter(x=lines["threads"], y=rate, mode="lines+markers", name=name, legendgroup=name,
                                     showlegend=name not in shown, line={"color": THREAD_COLOURS[str(strategy)]},
                                     error_y={"type": "data", "array": high, "arrayminus": low},
                                     hovertemplate=f"{name}, %{{x}} threads: %{{y:.2f}} million packets/s per {per}"
                                                   "<extra></extra>"), row=i // columns + 1, col=i % columns + 1)
            shown.add(name)
    fig.update_xaxes(dtick=1, title_text="threads")
    fig.update_yaxes(rangemode="tozero")
    fig.update_yaxes(title_text=f"million packets/s per {per}", col=1)
    fig.update_layout(title=title, height=320 * rows + 80)
    return fig


def _pairs(table: pd.DataFrame, numerator: str, denominator: str, threads: int,
           threshold: float = 1.0, denominator_threads: int | None = None) -> pd.DataFrame:
    """numerator over denominator (at denominator_threads, else the same count) in each solution and case."""
    rows = []
    table = table[table["threads"].isin([threads, denominator_threads or threads])]
    for (label, solution, case), group in table.groupby(["label", "solution", "case"], sort=False):
        if not {numerator, denominator} <= set(THREAD_ENGINE_STRATEGIES[str(group["engine"].iloc[0])]):
            continue  # a strategy its engine has not (Netty in C++): no pair, not an unmeasured one
        a = by_strategy(table, solution, case, threads).get(numerator)
        b = by_strategy(table, solution, case, denominator_threads or threads).get(denominator)
        outcome, effect, boots = versus(None if _missing(a) else a, None if _missing(b) else b, threshold)
        rows.append({"solution": label, "case": case, "effect": effect, "outcome": outcome,
                     **({"boots": boots} if boots else {})})
    return pd.DataFrame(rows)


RULE = ("In each solution and case, the first strategy's median thread time per packet over the second's, with "
        "its 95 % interval, which resamples the boots that measured both and then each boot's repetitions. "
        "A comparison holds where the interval lies below 1 by the "
        f"{effects.pct(effects.MARGIN)} margin, fails where it lies above it, and otherwise reads undecided. "
        f"Allocation scales where its time at N threads over its time at one lies below {SCALES_WITHIN:g} by the "
        "same margin.")


def questions(table: pd.DataFrame, cpu: pd.DataFrame | None = None) -> list[tuple[str, int, Verdict]]:
    """Each question of the chapter at each thread count the table holds, decided on it: each pool against
    allocation, a pool per thread against the shared pool (the 2019 article's "tricky" multi-threaded pooling),
    and, from two threads, whether allocation scales (its thread time within 25 % of one thread's) and, given
    the table's CPU view (threads_costs.cpu_view), whether it scales in its threads' CPU time too."""
    table = measured(table)
    cpu = None if cpu is None else measured(cpu)
    counts = sorted(int(n) for n in table["threads"].unique()) if len(table) else []
    what = "pairs"
    decided = []
    for n in counts:
        part = table[table["threads"] == n]
        for pool in THREAD_POOLS:
            decided.append((f"{THREAD_STRATEGY_LABELS[pool]} beats allocation", n,
                            tallied(_pairs(part, pool, ALLOC, n), what)))
        decided.append(("A pool per thread beats one shared pool", n,
                        tallied(_pairs(part, PER_THREAD, SHARED, n), what)))
        if n > 1:
            decided.append((f"Allocation scales: thread time within {effects.pct(SCALES_WITHIN - 1)} of one thread's", n,
                            tallied(_pairs(table, ALLOC, ALLOC, n, SCALES_WITHIN, denominator_threads=1), what)))
            if cpu is not None:
                decided.append((f"Allocation scales in CPU time: its threads' CPU time per packet within "
                                f"{effects.pct(SCALES_WITHIN - 1)} of one thread's", n,
                                tallied(_pairs(cpu, ALLOC, ALLOC, n, SCALES_WITHIN, denominator_threads=1), what)))
    return decided


def claims(table: pd.DataFrame) -> list[tuple[Claim, Verdict, None]]:
    """The questions as claims, one per thread count: "With 2 threads: <question>" (wall time and CPU time)."""
    return [(Claim(f"With {show.count(n, 'thread')}: {question}", lambda v=verdict: v,
                   RULE), verdict, None)
            for question, n, verdict in questions(table, cpu_view(table))]


def verdict_table(decided: list[tuple[str, int, Verdict]]) -> pd.DataFrame:
    """A row per question, a column per thread count: the verdict and how often it held."""
    rows: dict[str, dict[str, str]] = {}
    for question, n, verdict in decided:
        rows.setdefault(question, {})[show.count(n, "thread")] = f"{verdict.words}: {verdict.summary}"
    return pd.DataFrame.from_dict(rows, orient="index").fillna("").rename_axis("on this machine")


def show_verdicts(decided: list[tuple[str, int, Verdict]]) -> None:
    """The verdict table, coloured by outcome, the rule once under it, then each verdict's pairs, folded."""
    if not decided:
        return
    styler = style(verdict_table(decided)).map(
        lambda v: f"background-color: {OUTCOME_COLOURS.get(str(v).split(':')[0], '')}" if v else "")
    show.show_table(styler, caption="Several threads: what holds on this machine")
    show.note(f"Each entry counts the solution and case pairs by outcome. How it is decided: {RULE}")
    for question, n, verdict in decided:
        if len(verdict.cells):
            show.show_details(f"The pairs behind, with {show.count(n, 'thread')}: {question}",
                              verdict.cells)


def findings(table: pd.DataFrame) -> list[str]:
    """Sentences computed from the table: per thread count, how many (solution, case) pairs each strategy is
    fastest in, and what sharing the pool costs against a pool per thread."""
    table = measured(table)
    lines = []
    for n, part in table.groupby("threads"):
        firsts: dict[str, int] = {}
        pairs = 0
        for (solution, case), _ in part.groupby(["solution", "case"], sort=False):
            rows = by_strategy(part, solution, case, n)
            ranked = _ranked(rows)
            if ranked:
                pairs += 1
                firsts[THREAD_STRATEGY_LABELS[ranked[0]]] = firsts.get(THREAD_STRATEGY_LABELS[ranked[0]], 0) + 1
        if pairs:
            said = ", ".join(f"{label} in {count}" for label, count in sorted(firsts.items(), key=lambda kv: -kv[1]))
            lines.append(f"With {show.count(int(n), 'thread')}, the lowest median time per packet: {said} of "
                         f"{show.count(pairs, 'solution and case pair')}.")
        ratios = [_ratio(part, int(n), solution, case) for solution, case in
                  part[["solution", "case"]].drop_duplicates().itertuples(index=False)]
        ratios = [r for r in ratios if not math.isnan(r)]
        if ratios:
            lines.append(f"With {show.count(int(n), 'thread')}, one shared pool took {min(ratios):.2f} to "
                         f"{max(ratios):.2f} times a pool per thread's time per packet (median ratio over "
                         f"{show.count(len(ratios), 'solution and case pair')}: {float(pd.Series(ratios).median()):.2f}).")
    return lines + held_finding(table)


def held_finding(table: pd.DataFrame) -> list[str]:
    """Where a pool per thread was faster than allocation (decided as every pair of the chapter: `versus`, its
    interval below 1 by the margin; a cell per solution, case and thread count), in how many the collector held
    allocation's threads more than HELD_MUCH % of their time (analysis.thread_costs.collector_held): there the
    margin is the collector's and the heap's as much as the pool's. Nothing where no cell has the figure (C++, or
    no GC log)."""
    if HELD not in table:
        return []
    won = held = 0
    for (solution, case, n), _ in table.groupby(["solution", "case", "threads"], sort=False):
        rows = by_strategy(table, solution, case, int(n))
        alloc, pool = rows.get(ALLOC), rows.get(PER_THREAD)
        if alloc is None or pool is None or pd.isna(alloc.get(HELD)) or versus(pool, alloc)[0] != effects.HOLDS:
            continue
        won += 1
        held += float(alloc[HELD]) > HELD_MUCH
    if not won:
        return []
    return [f"In {show.count(won, 'Java cell')} a pool per thread was faster than allocation by more than the "
            f"margin; in {held} of them the collector held allocation's threads for more than {HELD_MUCH:.0f} % of "
            "their time. There the margin is largely the collector's work, which depends on the heap's size against "
            "the live set."]


def _ratio(table: pd.DataFrame, threads: int, solution: str, case: str) -> float:
    rows = by_strategy(table, solution, case, threads)
    return _ns(rows.get(SHARED)) / _ns(rows.get(PER_THREAD)) if PER_THREAD in rows and SHARED in rows else math.nan


def measured_cpus(table: pd.DataFrame) -> int | None:
    """The CPUs of the machine that measured the table's runs (the most, if several did); None if none ran."""
    shown = measured(table)
    cpus = pd.to_numeric(shown.get("cpus"), errors="coerce").max() if len(shown) else math.nan
    return None if math.isnan(cpus) else int(cpus)


def counts_note(table: pd.DataFrame, planned: tuple[int, ...] = ()) -> str:
    """Which thread counts the table measured, and which of the plan need a larger machine."""
    shown = measured(table)
    counts = sorted(int(n) for n in shown["threads"].unique()) if len(shown) else []
    left = [n for n in sorted(set(planned) | {int(n) for n in table["threads"].unique()}) if n not in counts]
    cpus = measured_cpus(table)
    machine = f" (the machine measured has {cpus})" if cpus is not None else ""
    if not counts:
        return "Thread counts measured: none."
    return (f"Thread counts measured: {show.series(counts)}."
            + (f" Runs of {show.series(left)} threads need a CPU for each thread{machine}: a larger machine runs "
               "them." if left else ""))


def boots_note(table: pd.DataFrame, scaling: str = "") -> str:
    """How many of the measured cells of the table's scaling view (measured) stand on runs of committed builds from
    two machines or more, naming the solutions and cases of those that do not: a verdict over one machine cannot
    tell the code from the machine, and a build with uncommitted changes cannot be rebuilt."""
    cells = measured(table)
    cells = cells[cells["status"] != MISSING] if len(cells) else cells
    if not len(cells):
        return ""
    committed = pd.to_numeric(cells["committed_boots"], errors="coerce").fillna(0)
    several, what = int((committed >= 2).sum()), f"{scaling} cells measured" if scaling else "cells measured"
    if several == len(cells):
        return f"All {len(cells)} {what} stand on runs of committed builds from two machines or more."
    short = cells[committed < 2].groupby(["label", "case"], sort=False).size()
    return (f"{several} of the {len(cells)} {what} stand on runs of committed builds from two machines or more; "
            "these do not: "
            + "; ".join(f"{label} case {case} ({show.count(n, 'cell')})" for (label, case), n in short.items())
            + ".")


def show_chapter(table: pd.DataFrame, planned: tuple[int, ...] = ()) -> None:
    """The chapter under weak scaling (its comparison): which thread counts ran, the answer, the figure, the tables,
    the findings and verdicts (wall time and the threads' CPU time). planned: the profile's thread counts (a run
    lists only those this machine has CPUs for)."""
    if table.empty:
        show.note("No solution of this chapter is in this profile's selection.")
        return
    show.note(counts_note(table, planned))
    if note := boots_note(table):
        show.note(note)
    shown = measured(table)
    counts = shown["threads"].unique() if len(shown) else []
    if not len(counts):
        return
    show.show_table(answer_table(table), "The answer by thread count: the fastest strategy in batch and how much "
                                         "less time it takes than the next (95 % interval)")
    show.show_figure(figure(table))
    show.show_table(figures_table(table), "Thread time per packet, ns: median (95 % interval); empty where the "
                                          "engine has no such strategy")
    if len(counts) > 1:
        show.show_table(scaling_table(table), "Scaling: thread time per packet at N threads over one thread's "
                                              "(1: perfect; N: no faster than one thread), 95 % interval")
    show.show_unfinished(shown.assign(run_status=shown["status"]), ["run_status"], "run of several threads")
    for line in findings(table):
        show.note(line)
    show_verdicts(questions(table, cpu_view(table)))
