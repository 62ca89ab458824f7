"""The article's answer, for its first screen: per solution and case, which strategy is best, by how much
over the next, and what the 2019 article found.

Batch: the strategy with the lowest median time per packet; its margin over the next is the ratio of their
medians with its 95 % interval (effects), and where the interval does not clear parity by the margin the
cell names both ("undecided"). Real time: the strategy that keeps up at the shortest interval
(a search each, which has no interval; a search that a stored run losing at a longer interval contradicts
does not stand), then, where the profile measured them, the real-time blocks at a
million packets a second: every strategy probed repeatedly, the best the one with the least median loss,
and its margin over the next the difference of their median losses with its 95 % interval. The
abstract's sentences are counted from the same tables.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from allocorpool import effects, lists, study
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis import model
from allocorpool.chapters.page import display as show
from allocorpool.chapters import depends, headline, realtime_blocks
from allocorpool.analysis.claims import article_data, versus
from allocorpool.analysis.stored_probes import contradicted as contradicted_search
from allocorpool.chapters.page.tables import wrapping

CITATION = ('Pavel Zemtsov, ["To allocate or to pool?"](https://pzemtsov.github.io/2019/01/17/allocate-or-pool.html), '
            "*Experiments in program optimisation*, 17 January 2019")
REAL = ("alloc", "mix", "pool")
NAMES = {"alloc": "allocation", "mix": "mix", "pool": "pooling"}
SAYS = {effects.NO_DIFFERENCE: "is undecided"}  # a tally read after "It": "It holds in 3, is undecided ..."
ANSWER_TAG = "answer"  # the notebook cell whose output the article moves to its first screen
FOREST_KEY = ("Each dot is pooling against allocation on one CPU model, its thick bar the 95 % interval over boots "
              "and its thin line the range a new machine of that model would likely measure. The grey band is the "
              "margin (5 % of time, 1 point of packets lost); a cross marks the 2019 article's single run. Chapter "
              "18 gives the model.")


def _ns(row: dict[str, Any] | None) -> float:
    value = None if row is None or row.get("status") != "ok" else row.get("ns_per_packet")
    return math.nan if value is None or pd.isna(value) else float(value)


def batch_answer(rows: dict[str, dict[str, Any]]) -> tuple[str | None, str, str]:
    """(best strategy, its outcome against the next, the cell's words) from one solution and case's rows
    by strategy."""
    ranked = sorted((s for s in REAL if not math.isnan(_ns(rows.get(s)))),
                    key=lambda s: block_figures.typical(rows[s]) if "boot_samples" in rows[s] else _ns(rows[s]))
    if not ranked:
        return None, effects.NOT_MEASURED, "not measured"
    best = ranked[0]
    if len(ranked) == 1:
        return best, effects.NOT_MEASURED, f"{NAMES[best].capitalize()} (the others failed)"
    nxt = ranked[1]
    if "boot_samples" not in rows[best]:  # the 2019 article's figures: one each, judged on the point
        outcome, text, _ = versus(rows[best], rows[nxt])
        return best, outcome, f"{NAMES[best].capitalize()} ({text})"
    comparison = block_figures.compare(rows[best], rows[nxt])
    outcome, effect = comparison.outcome(), comparison.effect
    boots = effects.boots_words(comparison.agreement)
    if outcome == effects.HOLDS:
        saving = f"{100 * (1 - effect.ratio):.0f} % ({100 * (1 - effect.high):.0f}-{100 * (1 - effect.low):.0f} %)"
        return best, outcome, f"{NAMES[best].capitalize()}, {saving} less time than {NAMES[nxt]}{boots}"
    if outcome == effects.NO_DIFFERENCE:
        return best, outcome, (f"{NAMES[best].capitalize()} or {NAMES[nxt]}: undecided "
                               f"({effect.text()}){boots}")
    return best, outcome, f"{NAMES[best].capitalize()}, one run each (not decided)"


def _found(rows: dict[str, dict[str, Any]]) -> list[str]:
    """The strategies whose search found a loss-free interval, shortest first."""
    return sorted((s for s in REAL if s in rows and rows[s].get("outcome") == "found"),
                  key=lambda s: float(rows[s]["interval_ns"]))


def shortest_standing(rows: dict[str, dict[str, Any]]) -> list[str]:
    """The strategies whose standing search found the shortest loss-free interval (several where they tie)."""
    standing = [s for s in _found(rows) if not contradicted_search(rows[s])]
    return [s for s in standing if float(rows[s]["interval_ns"]) == float(rows[standing[0]]["interval_ns"])]


def realtime_answer(rows: dict[str, dict[str, Any]]) -> tuple[str | None, str]:
    """(best strategy, words): the shortest loss-free interval of the strategies' searches that stands. A
    search stands unless a stored run of its strategy lost at that interval or a longer one (lost_above_ns,
    from analysis.stored_probes.losses_above); such a search is named with the loss that contradicts it."""
    found = _found(rows)
    contradicted = [s for s in found if contradicted_search(rows[s])]
    standing = [s for s in found if s not in contradicted]
    against = ""
    if contradicted:
        named = [f"{NAMES[s]}'s {float(rows[s]['interval_ns']):,.0f} ns" for s in contradicted]
        lost = max(float(rows[s]["lost_above_ns"]) for s in contradicted)
        against = (f"{', '.join(named[:-1]) + ' and ' if len(named) > 1 else ''}{named[-1]} contradicted by a "
                   f"stored run that lost at {'up to ' if len(contradicted) > 1 else ''}{lost:,.0f} ns")
    if not standing:
        searched = [s for s in REAL if s in rows and rows[s].get("outcome") == "lost"]
        if contradicted:
            return None, f"no search stands: {against}"
        return None, "none keeps up" if searched else "not measured"
    best = standing[0]
    interval = float(rows[best]["interval_ns"])
    words = f"{NAMES[best].capitalize()} at {interval:,.0f} ns"
    if len(standing) > 1:
        nxt = standing[1]
        following = float(rows[nxt]["interval_ns"])
        words = (f"{NAMES[best].capitalize()} or {NAMES[nxt]} at {interval:,.0f} ns" if following == interval
                 else f"{words}; {NAMES[nxt]} {following:,.0f} ns")
    return best, words + (f"; {against}" if against else "")


def block_answer(rows: dict[str, dict[str, Any]]) -> tuple[str | None, str, str]:
    """(best strategy, its outcome against the next, words) from one solution and case's real-time block:
    the strategies ranked by their median loss over the block's probes, the best decided against the next
    by the difference of their median losses and its interval (analysis.blocks.compare_losses)."""
    measured = [s for s in REAL if s in rows and rows[s].get("keeps_up") not in (None, effects.NOT_MEASURED)]
    if not measured:
        return None, effects.NOT_MEASURED, ""
    probes = max(int(rows[s].get("probes") or 0) for s in measured)
    boots = max(len(rows[s].get("boot_losses") or {}) for s in measured)
    ranked = [str(r["strategy"]) for r in realtime_blocks.rank([rows[s] for s in measured])]
    keeping = [NAMES[s] for s in ranked if rows[s]["keeps_up"] == effects.HOLDS]
    parts = [("all keep up" if len(keeping) == len(REAL) else " and ".join(keeping)
              + (" keeps up" if len(keeping) == 1 else " keep up"))] if keeping else []
    parts += [f"{NAMES[s]} {realtime_blocks.loss_words(rows[s])}" for s in ranked if rows[s]["keeps_up"] != effects.HOLDS]
    words = (f"at {int(rows[ranked[0]]['interval_ns']):,} ns ({probes} probes each"
             f"{f' in {boots} boots' if boots > 1 else ''}): " + ", ".join(parts))
    best = ranked[0]
    if len(ranked) == 1:
        return best, effects.NOT_MEASURED, words + " (the others failed)"
    nxt = ranked[1]
    comparison = block_figures.compare_losses(rows[best], rows[nxt])
    outcome = comparison.outcome()
    if len(keeping) >= 2:
        return None, outcome, words
    if outcome != effects.HOLDS:
        words += f"; {NAMES[best]} or {NAMES[nxt]}: undecided"
    return best, outcome, words + effects.boots_words(comparison.agreement)


CONTRADICTED_MARK = "†"
CONTRADICTED_KEY = "† a stored run of that strategy lost packets at that interval or a longer one."


def batch_cell(rows: dict[str, dict[str, Any]]) -> str:
    """The batch answer in a few words: the best strategy and its margin over the next with the interval
    ('Mix: 36 % less time than pooling (30-41 %)'), or both named where the interval does not decide it.
    How the boots agree is the chapter's and the detail's, not the cell's."""
    best, outcome, _ = batch_answer(rows)
    if best is None:
        return "not measured"
    ranked = sorted((s for s in REAL if not math.isnan(_ns(rows.get(s)))),
                    key=lambda s: block_figures.typical(rows[s]) if "boot_samples" in rows[s] else _ns(rows[s]))
    if len(ranked) < 2:
        return f"{NAMES[best].capitalize()} (the others failed)"
    nxt = ranked[1]
    if "boot_samples" not in rows[best]:
        return f"{NAMES[best].capitalize()}, one run each"
    effect = block_figures.compare(rows[best], rows[nxt]).effect
    if outcome == effects.HOLDS:
        return (f"{NAMES[best].capitalize()}: {100 * (1 - effect.ratio):.0f} % less time than {NAMES[nxt]} "
                f"({100 * (1 - effect.high):.0f}-{100 * (1 - effect.low):.0f} %)")
    return f"{NAMES[best].capitalize()} or {NAMES[nxt]}: undecided, {effect.ratio:.2f}× ({effect.low:.2f}-{effect.high:.2f})"


def _interval(ns: float) -> str:
    return f"{round(ns / 1000, 1):g} µs" if ns >= 1000 else f"{ns:,.0f} ns"


def searches_cell(rows: dict[str, dict[str, Any]]) -> str:
    """Each strategy's shortest loss-free interval, best first ('Mix 50 ns (pooling 70, allocation 260†)'); a
    contradicted search marked; '' where nothing was searched."""
    found = _found(rows)
    if not found:
        searched = [s for s in REAL if s in rows and rows[s].get("outcome") == "lost"]
        return "none keeps up" if searched else ""
    standing = [s for s in found if not contradicted_search(rows[s])]
    order = standing + [s for s in found if s not in standing]

    def said(s: str, unit: bool) -> str:
        ns = float(rows[s]["interval_ns"])
        figure = _interval(ns) if unit else _interval(ns).split()[0]
        return figure + (CONTRADICTED_MARK if s not in standing else "")
    first = order[0]
    head = f"{NAMES[first].capitalize()} {said(first, True)}" if first in standing else f"none stands ({NAMES[first]} {said(first, True)})"
    rest = [f"{NAMES[s]} {said(s, False)}" for s in order[1:]]
    return head + (f" ({', '.join(rest)})" if rest else "")


def probes_cell(rows: dict[str, dict[str, Any]]) -> str:
    """The real-time block at its interval in a few words: who keeps up, or who loses least."""
    measured = [s for s in REAL if s in rows and rows[s].get("keeps_up") not in (None, effects.NOT_MEASURED)]
    if not measured:
        return ""
    at = f"at {_interval(float(rows[measured[0]]['interval_ns']))}"
    keeping = [s for s in measured if rows[s]["keeps_up"] == effects.HOLDS]
    if len(keeping) == len(measured):
        return f"all keep up {at}"
    if keeping:
        return f"{'/'.join(NAMES[s] for s in keeping)} {'keeps' if len(keeping) == 1 else 'keep'} up {at}"
    ranked = [str(r["strategy"]) for r in realtime_blocks.rank([rows[s] for s in measured])]
    return f"all lose {at}, {NAMES[ranked[0]]} least"


WORDS_IN_A_CELL = 15


def realtime_cell(searched: dict[str, dict[str, Any]], probed: dict[str, dict[str, Any]], then: str = "") -> str:
    """The real-time answer in at most WORDS_IN_A_CELL words: the searches, then the block at one interval, then
    `then` (the 2019 best). Where that is too long, the runners-up of the searches go first, then who lost
    least: the table in full keeps them."""
    search, probes = searches_cell(searched), probes_cell(probed)
    shorter = search.split(" (")[0]
    for parts in ((search, probes), (shorter, probes), (shorter, probes.split(",")[0])):
        said = "; ".join(part for part in (*parts, then) if part)
        if len(said.split()) <= WORDS_IN_A_CELL:
            return said
    return said


def realtime_2019_short(rows: dict[str, dict[str, Any]]) -> str | None:
    """The 2019 article's best in real time, in a word or three."""
    best, _ = realtime_answer(rows)
    if best:
        return NAMES[best]
    losses = {s: float(rows[s]["loss_pct"]) for s in REAL if s in rows and pd.notna(rows[s].get("loss_pct"))}
    return f"{NAMES[min(losses, key=losses.__getitem__)]} lost least" if losses else None


def answer_table(batch: pd.DataFrame, searches: pd.DataFrame, reference_figures: pd.DataFrame,
                 probes: pd.DataFrame | None = None, detail: bool = False) -> pd.DataFrame:
    """One row per solution (the 2019 eight first, then the others shown), a column per test and case: the
    best strategy here with its margin, and the 2019 article's best beside it. In a few words each; with
    detail, the full words (every probe count, boots that disagree, contradicted searches)."""
    theirs = article_data(reference_figures)
    order = {s.name: i for i, s in enumerate(study.SOLUTIONS)}
    solutions = sorted(set(batch["solution"]) | set(searches["solution"]), key=lambda n: order.get(n, 99))
    cases = sorted(set(batch["case"]) | set(searches["case"]))
    rows = []
    for name in solutions:
        solution = study.SOLUTIONS_BY_NAME[name]
        row: dict[str, Any] = {"solution": solution.label}
        for case in cases:  # the batch columns first, then the real-time ones
            best_2019 = batch_answer(_by_strategy(theirs["baseline"], name, case))[0] if solution.reference_name \
                else None
            ours = _by_strategy(batch, name, case)
            words = batch_answer(ours)[2] if detail else batch_cell(ours)
            row[f"batch, case {case}"] = words + (f"; 2019: {NAMES[best_2019]}" if best_2019 else "")
        for case in cases:
            reference_rows = _by_strategy(theirs["baseline_searches"], name, case) if solution.reference_name else {}
            best_2019 = (realtime_2019 if detail else realtime_2019_short)(reference_rows) if reference_rows else None
            searched = _by_strategy(searches, name, case)
            probed = _by_strategy(probes, name, case) if probes is not None else {}
            if detail:
                _, words = realtime_answer(searched)
                measured = block_answer(probed)[2] if probed else ""
                said = "; ".join(part for part in (words if searched or not measured else "", measured) if part)
                said = said + (f"; 2019: {best_2019}" if best_2019 else "")
            else:
                said = realtime_cell(searched, probed, f"2019: {best_2019}" if best_2019 else "") or "not measured"
            row[f"real time, case {case}"] = said
        rows.append(row)
    return pd.DataFrame(rows).set_index("solution") if rows else pd.DataFrame()


def realtime_2019(rows: dict[str, dict[str, Any]]) -> str | None:
    """The 2019 article's best in real time: the shortest loss-free interval, or where nothing kept up, the
    strategy that lost least at 1,000 ns."""
    best, _ = realtime_answer(rows)
    if best:
        return NAMES[best]
    losses = {s: float(rows[s]["loss_pct"]) for s in REAL if s in rows and pd.notna(rows[s].get("loss_pct"))}
    if not losses:
        return None
    least = min(losses, key=losses.__getitem__)
    return f"none kept up, {NAMES[least]} lost least ({losses[least]:.2g} %)"


def _by_strategy(frame: pd.DataFrame, solution: str, case: str) -> dict[str, dict[str, Any]]:
    if not len(frame):
        return {}
    part = frame[(frame["solution"] == solution) & (frame["case"] == case)]
    return {str(r["strategy"]): r for r in part.to_dict("records")}


def pooling_against_allocation_in_real_time(probes: pd.DataFrame) -> list[block_figures.LossComparison]:
    """Per solution and case of the real-time blocks: pooling's loss against allocation's at the blocks'
    interval, in each boot (its outcome: an effects outcome; both keeping up in every probe is no difference)."""
    comparisons = []
    for _, part in probes.groupby(["solution", "case"], sort=False):
        rows = {str(r["strategy"]): r for r in part.to_dict("records")}
        if "pool" in rows and "alloc" in rows:
            comparisons.append(block_figures.compare_losses(rows["pool"], rows["alloc"]))
    return comparisons


def _realtime_blocks_sentence(probes: pd.DataFrame | None) -> str:
    if probes is None or not len(probes):
        return ""
    comparisons = pooling_against_allocation_in_real_time(probes)
    tally = effects.tally_of(comparisons)
    if not tally.judged:
        return ""
    interval = int(probes["interval_ns"].iloc[0])
    standing = [c.by_boot[c.boot].n_a for c in comparisons if c.measured]  # the newest boot's probes
    repeats = int(pd.Series(standing).median()) if standing else int(pd.to_numeric(probes["probes"]).median())
    boots = max(len(c.by_boot) for c in comparisons)
    return (f" At one packet every {interval:,} ns, does pooling lose fewer packets than allocation? It "
            f"{tally.text('solution and case pairs', SAYS)}. Each pair is judged by the difference of median losses over "
            f"{repeats} probes a strategy and its 95 % interval"
            f"{over_boots(boots)}.")


def over_boots(boots: int) -> str:
    """How a verdict's interval is taken, where several boots measured it."""
    return (f", taken across the boots that measured it (up to {boots}), resampling boots and then repetitions, "
            f"so that a pair holds only where its boots agree" if boots > 1 else ", in one boot")


def abstract(batch: pd.DataFrame, searches: pd.DataFrame, reference_figures: pd.DataFrame, boots: int,
             probes: pd.DataFrame | None = None) -> str:
    """The first screen's few sentences, each counted from the data."""
    ranked = batch[(batch["strategy"] != "dummy") & ~batch["baseline"].astype(bool)]
    pairs, agreements = [], []
    for (_, _), part in ranked.groupby(["solution", "case"], sort=False):
        rows = {str(r["strategy"]): r for r in part.to_dict("records")}
        outcome, _, agree = versus(rows.get("pool"), rows.get("alloc"))
        pairs.append(outcome)
        agreements.append(agree)
    tally = effects.tally_agreements(pairs, agreements)
    runs = pd.to_numeric(batch["runs"], errors="coerce")
    reps = runs[runs >= 2]  # the cells measured as blocks (a single run decides nothing)
    if tally.judged:
        first = (f"**Batch:** does pooling take at least {effects.pct(effects.MARGIN)} less time per packet than "
                 f"allocation? It {tally.text('solution and case pairs', SAYS)}. Each pair is judged by the ratio of medians "
                 f"over {int(reps.median())} repetitions a cell and its 95 % interval"
                 f"{over_boots(boots)}.")
    else:
        first = (f"**Batch:** the {tally.not_measured} solution and case pairs shown have one run a cell, which "
                 f"decides nothing: their figures are shown, but no verdict is drawn from them.")
    found = searches[(searches["outcome"] == "found") & ~searches["baseline"].astype(bool)]
    judged = searches[searches["outcome"].isin(["found", "lost"]) & ~searches["baseline"].astype(bool)]
    best: dict[str, int] = {}
    for (_, _), part in judged.groupby(["solution", "case"], sort=False):
        tied = shortest_standing({str(r["strategy"]): r for r in part.to_dict("records")})
        if tied:
            names = [NAMES[s] for s in tied]
            named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]} tied"
            best[named] = best.get(named, 0) + 1
    groups = judged.groupby(["solution", "case"]).ngroups
    counted = most_often(best)
    searched_count = len(searches[~searches["baseline"].astype(bool)])
    against = int(found["lost_above_ns"].notna().sum()) if "lost_above_ns" in found else 0
    contradicted = (f"; for {against} of them a stored run lost packets at that interval or a longer one, so "
                    f"{len(found) - against} {'stands' if len(found) - against == 1 else 'stand'}" if against else "")
    second = (f"**Real time:** of {searched_count} strategy searches over {show.count(groups, 'solution and case pair')}, "
              f"{len(found)} found an interval without loss{contradicted}. "
              + (f"The shortest {'standing ' if against else ''}interval came most often from {counted}. Each "
                 f"is one search, so it has no confidence interval; the real-time answer table names every pair's."
                 if counted else "No pair has an interval that stood.")) if groups \
        else "**Real time:** nothing was searched."
    answer = headline.lead(batch)
    parts = [f"**In short:** {answer}" if answer else "", first, f"{second}{_realtime_blocks_sentence(probes)}"]
    return "\n\n".join(part for part in parts if part)  # a paragraph each: the answer, batch, real time


def most_often(best: dict[str, int]) -> str:
    """'mix (8 of 17 pairs)', 'allocation and mix tied (1 of 1 pair)': the winner that won most pairs, never a
    list of every winner (the table lists them); several that won as many are each named."""
    if not best:
        return ""
    top = max(best.values())
    leaders = [name for name, n in best.items() if n == top]
    total = sum(best.values())
    each = " each" if len(leaders) > 1 else ""
    said = leaders[0] if len(leaders) == 1 else f"{'; '.join(leaders[:-1])} or {leaders[-1]}"
    return f"{said} ({top} of {total} {'pair' if total == 1 else 'pairs'}{each})"


def boots_of(batch: pd.DataFrame) -> int:
    """How many boots of the machine the batch figures come from (every boot a block completed in)."""
    boots: set[str] = set()
    for samples in batch.get("boot_samples", pd.Series(dtype=object)):
        if isinstance(samples, dict):
            boots.update(samples)
    return len(boots)


def _live(case: str) -> str:
    return f"{lists.live_packets(case, 1.0):,}"


TERMS = {
    "strategy": f"how the processor gets a packet buffer: allocation (a new one each time), pooling (from a pool of "
                f"{lists.POOL_SIZE:,} buffers), mix (a pool of {lists.ENGINE_FACTS['mix_pool_size']:,}, allocating "
                f"when it runs dry)",
    "case": f"how many packets stay alive at the article's sizes: A {_live('A')}, B {_live('B')}, C {_live('C')} "
            f"(nearly as many as the pool holds)",
    "batch": "the source produces as fast as the processor consumes; the figure is the time per packet",
    "real time": "a clock produces one packet per tick; the figures are the shortest tick interval with no packet "
                 "lost, and the share of packets lost at a fixed interval",
    "search": "the real-time runs that look for the shortest loss-free tick interval: doubling, then bisecting "
              "between a lossy and a loss-free interval to within 10 %; one run per interval tried, the last "
              "confirmed by a longer one",
    "probe": "one real-time run at a fixed interval; a strategy keeps up there where no probe of it lost a packet",
    "solution": "a runtime and its memory manager: a JDK and collector, or a C++ design and allocator",
    "cell": "one configuration measured: a solution, a case and a strategy, and in real time a tick interval",
    "boot": "one start of the machine (a virtual machine may move to other hardware between boots); figures from "
            "different boots can differ by more than the spread within one",
    "block": "the runs one comparison rests on: every strategy of a solution and case, interleaved and repeated in "
             "one boot of the machine",
    "95 % interval": "the 95 % bootstrap interval of a median, a ratio of medians or a difference of medians, over a "
                     "block's repetitions; a comparison's resamples the boots that measured it too",
    "undecided": f"a ratio's 95 % interval does not clear parity by the {effects.pct(effects.MARGIN)} margin, "
                 "or a difference of losses' interval holds zero: more boots or repetitions would decide it",
}


def glossary(solutions: list[str]) -> pd.DataFrame:
    """The few terms a reader needs, then what each shown solution's short label stands for."""
    rows = [{"term": term, "meaning": meaning} for term, meaning in TERMS.items()]
    rows += [{"term": s.label, "meaning": s.about or s.label} for s in study.solutions(tuple(solutions))]
    return pd.DataFrame(rows)


def show_answer(reference_figures: pd.DataFrame, runs: pd.DataFrame | None = None,
                heap_multiples: dict[str, float] | None = None) -> None:
    """The answer (the article moves it to its first screen): the citation; where the store holds the answer's
    blocks (runs: analysis.model.answer_runs), three sentences and the forest plot of pooling against
    allocation per solution and case."""
    show.note(f"This study repeats the measurements of {CITATION}, on today's JDKs and C++ allocators.")
    if runs is not None and len(runs):
        fits = model.fits(runs, tests=[model.BATCH, model.REALTIME])
        show.note(depends.answer_sentences(runs, fits, heap_multiples))
        show.show_figure(depends.forest_pair(fits, depends.reference_effects(reference_figures)))
        show.note(FOREST_KEY)


def show_best_tables(batch: pd.DataFrame, searches: pd.DataFrame, reference_figures: pd.DataFrame, boots: int,
              probes: pd.DataFrame | None = None) -> None:
    """The best strategy of each solution and case, batch and real time, in a few words a cell beside the 2019
    article's best; the same in full, how the counts come out, and the terms, folded."""
    table = answer_table(batch, searches, reference_figures, probes)
    detail = answer_table(batch, searches, reference_figures, probes, detail=True)
    realtime = "in real time: each strategy's shortest loss-free interval" + (
        ", then who keeps up at one interval over repeated probes" if probes is not None and len(probes) else "")
    for test, words in (("batch", "in batch: its margin over the next in time per packet, with its 95 % interval"),
                        ("real time", realtime)):
        part = table[[c for c in table.columns if c.startswith(test + ",")]] if len(table) else table
        if len(part.columns):
            part = part.rename(columns=lambda c: c.split(", ")[1])
            show.show_table(wrapping(part), caption=f"The best strategy of each solution and case {words}; "
                                                    f"the 2019 article's best beside it")
    if len(table) and table.map(lambda v: CONTRADICTED_MARK in str(v)).any().any():
        show.note(CONTRADICTED_KEY)
    for test in ("batch", "real time"):
        part = detail[[c for c in detail.columns if c.startswith(test + ",")]] if len(detail) else detail
        if len(part.columns):
            show.show_details(f"The {test} table in full: probes, boots and contradicted searches",
                              part.rename(columns=lambda c: c.split(", ")[1]).reset_index())
    show.show_details_text("How the counts come out", abstract(batch, searches, reference_figures, boots, probes))
    shown = sorted(set(batch["solution"]) | set(searches["solution"]))
    show.show_details("Terms and solutions", glossary(shown))
