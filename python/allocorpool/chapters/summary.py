"""Chapter 09, the summary: both summary tables, the best figure of each column, and the article's
conclusions, each a computed verdict."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from allocorpool import effects, study
from allocorpool.analysis import blocks as block_figures
from allocorpool.analysis import consistency as same
from allocorpool.analysis.min_heap import TOO_SMALL, heap_verdict
from allocorpool.data.records import MISSING, row_failure
from allocorpool.chapters import batch as batch_chapter
from allocorpool.chapters.page import display as show
from allocorpool.chapters import realtime_blocks
from allocorpool.chapters.page import tables
from allocorpool.analysis.claims import (Claim, every, per_group_effect, pooling_keeps_up_as_well_as_allocation,
                                         searched, versus)
from allocorpool.chapters.page.claims import verdicts_of
from allocorpool.effects import Verdict
from allocorpool.run.experiments import heap as measure_heap


def show_best(batch: pd.DataFrame, searches: pd.DataFrame, cases: tuple[str, ...]) -> None:
    """The best figure of each column of both tests, and the best Java one, as a table; in real time, of the
    searches that stand (where the table says which a stored loss contradicts: analysis.stored_probes.losses_above)."""
    rows = []
    found = searches[searches["outcome"] == "found"]
    contradicted = found["lost_above_ns"].notna() if "lost_above_ns" in found else pd.Series(False, index=found.index)
    for test, frame, column, unit in (("batch", batch[batch["strategy"] != "dummy"], "ns_per_packet", "ns per packet"),
                                      ("real time", found[~contradicted], "interval_ns", "ns between packets")):
        ranked = frame[~frame["baseline"]]
        for case in cases:
            in_case = ranked[ranked["case"] == case]
            overall = tables.best(in_case, column, ["case"])
            java = tables.best(in_case[in_case["engine"] == "java"], column, ["case"])
            rows.append({"test": test, "case": case, "figure": unit,
                         "best": next((f"{r.label}, {r.strategy_label.lower()}: {getattr(r, column):,.0f}"
                                       for r in overall.itertuples()), "none"),
                         "best Java": next((f"{r.label}, {r.strategy_label.lower()}: {getattr(r, column):,.0f}"
                                            for r in java.itertuples()), "none")})
    show.show_table(pd.DataFrame(rows).set_index(["test", "case"]), "The best figure of each column, and the best Java one")
    unsolved = searches[(searches["outcome"] != "found") & ~searches["baseline"]]
    said = (f"In real time, {unsolved.shape[0]} of {int((~searches['baseline']).sum())} searched cells have no loss-free "
            "interval")
    if contradicted.any():
        said += (f", and a stored run that lost at a longer interval contradicts the loss-free interval of "
                 f"{int(contradicted[~found['baseline']].sum())} more")
    show.note(said + ".")


def show_realtime_blocks(probes: pd.DataFrame) -> None:
    """The real-time blocks' table, or one sentence where the profile measured none."""
    blocks = realtime_blocks.measured(probes)
    if blocks is None:
        show.note("No strategy was probed repeatedly at one interval here: the real-time answer rests on the "
                  "searches alone.")
        return
    show.show_table(tables.wrapping(realtime_blocks.table(blocks).set_index(["solution", "case"])),
                    caption=f"Real time at {int(blocks['interval_ns'].iloc[0]):,} ns: each strategy over its "
                            "block's probes in every boot, and pooling's loss against allocation's across the boots "
                            "that probed both")


# ---- the article's conclusions ----------------------------------------------------------------
ZGC_C_LIMIT_NS = 500  # "two million packets per second"
REF = study.REFERENCE_NS


def flat_cpp_best_in_real_time(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = []
    for case, part in searched(searches).groupby("case", sort=False):
        found = part[part["outcome"] == "found"]
        if not len(found):
            continue
        best = found.loc[found["interval_ns"].idxmin()]
        flat = found[found["solution"].str.startswith("flat-")]
        rows.append({"case": case, "best": f"{best['label']} {best['strategy_label']}",
                     "best_ns": best["interval_ns"], "best_flat_ns": flat["interval_ns"].min() if len(flat) else None})
    table = pd.DataFrame(rows)
    return every(table, lambda r: None if pd.isna(r["best_flat_ns"]) else r["best_flat_ns"] <= r["best_ns"],
                 ["case", "best", "best_ns", "best_flat_ns"], "cases")


def java_keeps_up_in_every_case(searches: pd.DataFrame, probes: pd.DataFrame | None = None, **_: object) -> Verdict:
    """Conclusion 2: some Java solution keeps up at a million packets a second (the reference interval, or
    shorter) in every case: in every probe of its real-time block where the blocks were measured, else by its
    search. A loss-free interval up to the searches' ceiling is not enough: 2,000 ns is half the rate the
    article asked for."""
    blocks = realtime_blocks.measured(probes)
    if blocks is not None and (blocks["engine"] == "java").any():
        return replace(realtime_blocks.keeps_up_somewhere_in_every_case(blocks[blocks["engine"] == "java"]),
                       rule=f"Per case, every Java solution and strategy probed repeatedly at {REF:,} ns: holds in a "
                            "case where one of them lost no packet in any probe.")
    java = searched(searches)[lambda f: f["engine"] == "java"]
    rows = [{"case": case, "Java cells that keep up at 1,000 ns or less": int(
        ((part["outcome"] == "found") & (part["interval_ns"] <= study.REFERENCE_NS)).sum()), "of": len(part)}
            for case, part in java.groupby("case", sort=False)]
    return every(pd.DataFrame(rows), lambda r: r["Java cells that keep up at 1,000 ns or less"] > 0,
                 ["case", "Java cells that keep up at 1,000 ns or less", "of"], "cases")


def fewer_allocations_help_java_in_real_time(searches: pd.DataFrame, probes: pd.DataFrame | None = None,
                                             **_: object) -> Verdict:
    """Conclusion 3: in Java real time, allocating less helps: where the real-time blocks were measured, the
    better of mix and pooling loses less than allocation at a million packets a second (the difference of
    median losses and its interval); else, by the searches, it keeps up at an interval no longer than
    allocation's (or keeps up where allocation does not), per solution and case."""
    blocks = realtime_blocks.measured(probes)
    if blocks is not None and (blocks["engine"] == "java").any():
        return replace(realtime_blocks.less_loss(blocks[blocks["engine"] == "java"], ("mix", "pool"), "alloc",
                                                 "Java solution and case pairs"),
                       rule=f"Per Java solution and case, probed repeatedly at {REF:,} ns: the better of mix and "
                            "pooling's median loss minus allocation's, with its 95 % interval; holds where the "
                            "interval lies below zero.")
    java = searched(searches)[lambda f: (f["engine"] == "java") & f["judged"]]
    rows = []
    for (label, case), part in java.groupby(["label", "case"], sort=False):
        by = {r["strategy"]: r for r in part.to_dict("records")}
        if "alloc" not in by or not ({"mix", "pool"} & set(by)):
            continue
        less = [by[s] for s in ("mix", "pool") if s in by and by[s]["outcome"] == "found"]
        best = min((r["interval_ns"] for r in less), default=None)
        alloc = by["alloc"]["interval_ns"] if by["alloc"]["outcome"] == "found" else None
        rows.append({"label": label, "case": case, "allocation": alloc, "mix or pooling, best": best})

    def helps(row: dict[str, Any]) -> bool | None:
        best, alloc = row["mix or pooling, best"], row["allocation"]
        if best is None or pd.isna(best):
            return False if alloc is not None and not pd.isna(alloc) else None  # nothing keeps up: not judged
        return alloc is None or pd.isna(alloc) or best <= alloc
    return every(pd.DataFrame(rows), helps, ["label", "case", "allocation", "mix or pooling, best"],
                 "Java solution and case pairs")


def gc_is_the_biggest_risk(batch: pd.DataFrame, searches: pd.DataFrame, queue_ms: float | None = None,
                           probes: pd.DataFrame | None = None, **_: object) -> Verdict:
    """Conclusion 6: where a Java cell loses packets at 1,000 ns (in some probe of its real-time block, or by
    its search where no block was measured), a collection pause longer than the input queue (queue_ms of
    ticks) is there to explain it: the batch run's longest pause outlasts the queue."""
    if queue_ms is None:
        return Verdict(effects.NOT_MEASURED, "not measured: the article's tables give no pause per cell")
    blocks = realtime_blocks.measured(probes)
    if blocks is not None and (blocks["engine"] == "java").any():
        lossy = realtime_blocks.lossy(blocks[blocks["engine"] == "java"])
    else:
        java = searched(searches)[lambda f: (f["engine"] == "java") & f["judged"]]
        lossy = java[(java["outcome"] == "lost") | (java["interval_ns"] > study.REFERENCE_NS)]
    pauses = batch.set_index(["solution", "strategy", "case"])["gc_pause_max_ms"]
    rows = [{"label": r["label"], "strategy_label": r["strategy_label"], "case": r["case"],
             "longest pause, ms": pauses.get((r["solution"], r["strategy"], r["case"])), "queue, ms": queue_ms}
            for r in lossy.to_dict("records")]

    def explained(row: dict[str, Any]) -> bool | None:
        pause = row["longest pause, ms"]
        return None if pause is None or pd.isna(pause) else bool(pause >= queue_ms)
    return every(pd.DataFrame(rows), explained, ["label", "strategy_label", "case", "longest pause, ms", "queue, ms"],
                 "Java cells that lose at 1,000 ns")


def pooling_beats_allocation_everywhere(batch: pd.DataFrame, searches: pd.DataFrame,
                                        probes: pd.DataFrame | None = None, **_: object) -> Verdict:
    """Batch: pooling's time per packet below allocation's by the margin over its interval; real time, where
    the blocks were measured: pooling loses less than allocation at a million packets a second (the
    difference of median losses and its interval), else pooling keeps up at an interval no longer than
    allocation's by the searches. The verdict counts both tests' pairs."""
    in_batch = batch_chapter.pooling_beats_allocation(batch=batch)
    blocks = realtime_blocks.measured(probes)
    if blocks is not None:
        real_time = realtime_blocks.less_loss(blocks, ("pool",), "alloc", "pairs").cells
    else:
        real_time = pooling_keeps_up_as_well_as_allocation(searches=searches).cells.copy()
    if blocks is None and len(real_time):
        real_time["outcome"] = real_time.pop("agrees").map(
            lambda ok: effects.NOT_MEASURED if ok is None or pd.isna(ok) else effects.HOLDS if ok else effects.FAILS)
        real_time["effect"] = ("loss-free interval: allocation " + real_time.pop("allocation").astype(str)
                               + ", pooling " + real_time.pop("pooling").astype(str))
    cells = pd.concat([in_batch.cells.assign(test="batch"), real_time.assign(test="real time")], ignore_index=True)
    if not len(cells):
        return Verdict(effects.NOT_MEASURED, "no solution and case pairs to check")
    tally = effects.tally_table(cells)
    real_rule = (f"pooling's median loss at {REF:,} ns minus allocation's, over repeated probes, holds where its "
                 "95 % interval lies below zero" if blocks is not None else
                 "pooling keeps up at an interval no longer than allocation's, one search each")
    return Verdict(tally.outcome(), tally.text("solution and case pairs of both tests"), cells,
                   rule=f"Batch: pooling's median time per packet over allocation's, holds where its 95 % interval "
                        f"lies {effects.pct(effects.MARGIN)} below parity. Real time: {real_rule}.")


def mix_best_when_few_are_kept(batch: pd.DataFrame, **_: object) -> Verdict:
    """Java: mix beats pooling in case A (few packets kept), pooling beats mix in case C (many kept)."""
    java = batch[(batch["engine"] == "java") & ~batch["baseline"].astype(bool)]
    java = java.assign(ns_per_packet=java["ns_per_packet"].where(java["status"] == "ok"))

    def order(rows: dict) -> tuple[str, str, str]:
        case = next(iter(rows.values()))["case"]
        first, second = ("Mix", "Pooling") if case == "A" else ("Pooling", "Mix")
        outcome, text, boots = versus(rows.get(first), rows.get(second))
        return outcome, f"{first.lower()} / {second.lower()} {text}", boots
    return per_group_effect(java[java["case"].isin(["A", "C"])], order)


def zgc_keeps_up_in_c(searches: pd.DataFrame, **_: object) -> Verdict:
    rows = searched(searches)[lambda f: (f["solution"] == "zgc") & (f["case"] == "C") & f["strategy"].isin(["mix", "pool"])]
    return every(rows, lambda r: None if not r["judged"] else
                 r["outcome"] == "found" and r["interval_ns"] <= ZGC_C_LIMIT_NS,
                 ["label", "strategy_label", "case", "outcome", "interval_ns"])


def a_longer_queue_lets_pooling_keep_up(what_if: pd.DataFrame | None = None, **_: object) -> Verdict:
    if what_if is None:
        return Verdict(effects.NOT_MEASURED, "not measured: the article did not try it")
    rows = what_if[what_if["solution"] == "parallel-11"]
    return every(rows, lambda r: r["keeps_up"] if r["status"] == "ok" else None,
                 ["label", "strategy_label", "case", "queue_ms", "keeps_up", "loss_pct"])


MUCH_WORSE = 1.5  # "much worse": half as slow again per packet
ONE_MILLION, TEN_MILLION = 1_000_000, 10_000_000


def _much_worse(larger: list[float], one_million: list[float]) -> tuple[str, str, bool]:
    """The time per packet with a larger pool over that with one million buffers, against MUCH_WORSE: by the
    ratio of medians and its 95 % interval where each side has several runs, else (one run each) by the two
    figures alone, the margin applied as for the 2019 article's figures. The claim holds where the ratio clears
    MUCH_WORSE by the margin: the effects' outcome of "the larger pool is faster than that" turned round.
    Also whether an interval decided."""
    effect = effects.ratio(larger, one_million)
    if effect.measured:
        outcome, text = effect.outcome(MUCH_WORSE), effect.text()
    else:
        point = None if pd.isna(effect.ratio) else float(effect.ratio)
        each = "one run each" if effect.n_num == effect.n_den == 1 else "too few runs for an interval"
        outcome = effects.decide_point(point, MUCH_WORSE)
        text = "not measured" if point is None else f"{point:.2f} x ({each})"
    return {effects.HOLDS: effects.FAILS, effects.FAILS: effects.HOLDS}.get(outcome, outcome), text, effect.measured


def ten_million_buffers(pool_sizes: pd.DataFrame | None = None, **_: object) -> Verdict:
    """Chapter 14's pool-size what-if (case B, pooling) for the Java pools: more buffers are much worse where
    the time per packet with them is MUCH_WORSE x that with one million, by the margin (_much_worse). A pool
    on the heap is compared at the largest size that fits its heap, found by chapter 14's bisection, since ten
    million buffers of 1 KiB cannot fit a 10 GB heap: a fact of size, stated beside the verdict, not a
    slowness. A pool off the heap is compared at ten million. C++ is shown beside them, not judged."""
    from allocorpool.analysis.claims import tallied
    from allocorpool.chapters.continuum import figures_at, reason
    from allocorpool.run.experiments.continuum import FOUND, NO_HEAP, ON_HEAP, PLAN, pool_place

    if pool_sizes is None:
        return Verdict(effects.NOT_MEASURED, "not measured: the article gave no figure")
    one, ten = ONE_MILLION, TEN_MILLION
    judged_rows, beside, did_not_fit, heap_pools, intervals = [], [], 0, 0, []
    for (solution, label), part in pool_sizes.groupby(["solution", "label"], sort=False):
        plan = part[part["step"] == PLAN] if "step" in part else part
        ends = [plan[plan["pool_size"] == size].to_dict("records") for size in (one, ten)]
        if any(not rows or all(r["status"] == MISSING for r in rows) for rows in ends):
            continue  # the store has no run of it (a replay of another selection): not named
        big = ends[1][0]
        where = part["pool"].iloc[0] if "pool" in part else pool_place(study.SOLUTIONS_BY_NAME[solution])
        out = big["status"] != "ok" and heap_verdict(big["status"], row_failure(big),
                                                     _text(big.get("error"))) == TOO_SMALL
        compared, at = (ten, f"{ten:,}") if big["status"] == "ok" else (None, "—")
        if where == ON_HEAP:
            heap_pools += 1
            did_not_fit += out
            largest = part["largest_fitting"].iloc[0] if "largest_fitting" in part else None
            if out and "search" in part and part["search"].iloc[0] == FOUND and pd.notna(largest) and largest > one:
                compared, at = int(largest), f"{int(largest):,}, the largest that fits"

        larger, base = figures_at(part, compared), figures_at(part, one)
        outcome, effect, interval = _much_worse(larger, base) if larger and base else \
            (effects.NOT_MEASURED, "not measured", False)
        row = {"label": label, "buffers kept": where,
               f"{ten:,} buffers": "ran" if big["status"] == "ok" else
               ("did not fit in the heap" if where == ON_HEAP else "ran out of memory") if out
               else f"did not finish: {reason(big.get('error'), big['status'])}",
               "compared at": at, f"{one:,} buffers, ns": _median(base), "ns there": _median(larger),
               "effect": effect, "outcome": outcome}
        if where == NO_HEAP:
            beside.append(row)
        else:
            judged_rows.append(row)
            intervals.append(interval)
    if not judged_rows and not beside:
        return Verdict(effects.NOT_MEASURED, "not measured yet: chapter 14 runs the pool sizes")
    judged = tallied(pd.DataFrame(judged_rows), "Java solutions' pools")
    summary = judged.summary + (
        f"; {did_not_fit} of the {heap_pools} pools on the heap did not fit it with {ten:,} buffers: 10 M buffers of "
        "1 KiB, about 1.1 KiB each with their objects, cannot fit a 10 GB heap" if did_not_fit else "")
    how = ("the ratio of medians with its 95 % interval" if intervals and all(intervals) else
           "one run each" if not any(intervals) else
           "the ratio of medians with its 95 % interval where each side has several runs, else one run each")
    cells = pd.concat([judged.cells, pd.DataFrame(beside).assign(outcome="shown, not judged")], ignore_index=True)
    return replace(judged, summary=summary, cells=cells, rule=_pool_rule(how))


def _pool_rule(how: str) -> str:
    return (f"Case B, pooling, per Java solution: the time per packet with the larger pool over that with "
            f"{ONE_MILLION:,} buffers, {how}. It holds where that exceeds {MUCH_WORSE:g} times by the "
            f"{effects.pct(effects.MARGIN)} margin, and fails where it falls short of it by as much. A pool on the heap is compared at "
            "the largest size that fits it, found by bisection, as 10 M buffers of 1 KiB cannot fit a 10 GB heap; "
            f"a pool off the heap at {TEN_MILLION:,}.")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _median(values: list[float]) -> float | None:
    return float(pd.Series(values).median()) if values else None


CONCLUSIONS = (
    Claim("For true real time, C or C++ without allocation: flat C++ has the best real-time interval in every case",
          flat_cpp_best_in_real_time,
          "Per case, the shortest loss-free interval of flat C++ against the shortest of every solution, one "
          "search each: holds in a case where flat C++'s is no longer.",
          said="Flat C++ is best in real time", shown=8),
    Claim("Java can approach real time: some Java solution keeps up with a million packets a second in every case",
          java_keeps_up_in_every_case,
          f"Per case, the Java searches: holds in a case where one found a loss-free interval of {REF:,} ns or "
          "less.",
          said="Some Java keeps up with a million packets a second", shown=4),
    Claim("In Java real time too, allocating less helps: mix or pooling does better than allocation",
          fewer_allocations_help_java_in_real_time,
          "Per Java solution and case, one search each: holds where the better of mix and pooling keeps up at an "
          "interval no longer than allocation's.",
          said="In Java real time, allocating less helps", shown=4),
    Claim("To pool: pooling beats allocation in every test, batch (by 5 %, over its interval) and real time",
          pooling_beats_allocation_everywhere,
          f"Batch: pooling's median time per packet over allocation's, holds where its 95 % interval lies "
          f"{effects.pct(effects.MARGIN)} below parity. Real time: pooling's median loss at {REF:,} ns minus allocation's, over "
          "repeated probes, holds where its 95 % interval lies below zero; without such probes, one search each.",
          said="Pooling beats allocation in every test", shown=18),
    Claim("Mix is best when few packets are kept (case A); pooling overtakes it when most are (case C), in Java",
          mix_best_when_few_are_kept,
          "Per Java solution: mix's median time per packet over pooling's in case A, pooling's over mix's in case "
          f"C; holds where the ratio's 95 % interval lies {effects.pct(effects.MARGIN)} below parity.",
          said="Mix is best in case A, pooling in case C", shown=2),
    Claim("The collector is the biggest risk: where Java loses packets, a pause longer than the input queue explains it",
          gc_is_the_biggest_risk,
          f"Each Java cell that lost packets at {REF:,} ns: holds where its batch run's longest pause outlasts the "
          "input queue. A collector that reports no pause to the engine (ZGC on JDK 11) is not judged.",
          said="The collector is the biggest risk", shown=3),
    Claim(f"ZGC handles even case C, with mix and pooling at {ZGC_C_LIMIT_NS} ns or less", zgc_keeps_up_in_c,
          f"ZGC's mix and pooling in case C, one search each: holds where both keep up at {ZGC_C_LIMIT_NS} ns or "
          "less.",
          said="ZGC keeps up in case C", shown=6),
    Claim("Ten million buffers instead of one million would be much worse", ten_million_buffers, _pool_rule("one run each"),
          said="Ten million buffers are much worse than one million", shown=14),
    Claim("An input queue holding a second of packets would let pooling keep up even with the article's \"CMS\"",
          a_longer_queue_lets_pooling_keep_up,
          "The article's \"CMS\" with an input queue of one second of packets: holds where its probes lose no "
          "packet.",
          said="A one-second input queue lets pooling keep up", shown=4),
)


show_conclusions = verdicts_of(CONCLUSIONS, None, "The article's conclusions on this machine")


def machine_table(facts: pd.DataFrame) -> pd.DataFrame:
    """The machine facts as the reader reads them: a long list (the commits) is counted, not printed, so the
    table fits the page; the Methods appendix lists them."""
    if not len(facts):
        return facts

    def short(row: pd.Series) -> str:
        values = [v for v in str(row["value"]).split(", ") if v]
        if row["what"] == "commit" and len(values) > 3:
            return (f"{tables.commits_counted(values, ' over every run of the store')} (the Methods appendix "
                    f"lists those of the runs the chapters show)")
        return ", ".join({"True": "yes", "False": "no"}.get(v, v) for v in values)
    return facts.assign(value=facts.apply(short, axis=1))


def reproducibility(batch: pd.DataFrame, names: dict[str, str] | None = None) -> pd.DataFrame:
    """Pooling against allocation in each (solution, case), boot by boot (named by names: machine n): its
    outcome and ratio in every boot that completed the block, and whether the boots agree."""
    return block_figures.boot_table(_pool_against_alloc(batch), names)


def _pool_against_alloc(batch: pd.DataFrame) -> list[tuple[dict[str, Any], block_figures.Comparison]]:
    """Pooling against allocation in each (solution, case) whose block stores its runs by boot."""
    ranked = batch[(batch["strategy"] != "dummy") & ~batch["baseline"].astype(bool)]
    compared = []
    for (label, case), part in ranked.groupby(["label", "case"], sort=False):
        rows = {str(r["strategy"]): r for r in part.to_dict("records")}
        if "pool" in rows and "alloc" in rows and isinstance(rows["pool"].get("boot_samples"), dict):
            compared.append(({"solution": label, "case": case},
                             block_figures.compare(rows["pool"], rows["alloc"])))
    return compared


SHOWN_CONFIGURATIONS = 30  # the longest table of configurations whose figures differ that the chapter prints


def show_consistency(index: pd.DataFrame, names: dict[str, str] | None = None) -> None:
    """How the configurations measured more than once agree (analysis.consistency), and those that do not, each
    boot named by names (machine n)."""
    table = same.consistency(index)
    for boot, name in (names or {}).items():
        table["figures"] = table["figures"].str.replace(f"{boot}: ", f"{name}: ", regex=False)
    if not len(table):
        show.note("No configuration was measured more than once: there is nothing to compare.")
        return
    count = table["outcome"].value_counts()
    show.note(f"{len(table)} configurations were measured more than once. Their figures agree in "
              f"{count.get(same.AGREE, 0)}, depend on the boot in {count.get(same.BOOTS_DISAGREE, 0)} and differ "
              f"between the runs of one boot in {count.get(same.RUNS_DISAGREE, 0)}; "
              f"{count.get(same.CANNOT_TELL, 0)} have one run in each place and cannot tell. Figures agree where "
              "each place's median, with its 95 % interval, overlaps every other's.")
    differ = table[table["outcome"].isin([same.BOOTS_DISAGREE, same.RUNS_DISAGREE])]
    if len(differ):
        shown = differ.head(SHOWN_CONFIGURATIONS)
        cut = f" (the first {len(shown)} of {len(differ)})" if len(shown) < len(differ) else ""
        show.show_table(shown.set_index("configuration"),
                        f"Configurations whose figures differ, each boot's median ns per packet{cut}")


def show_reproducibility(batch: pd.DataFrame, names: dict[str, str] | None = None) -> None:
    """The reproducibility table, or one sentence where no block was measured or one boot measured them all."""
    compared = _pool_against_alloc(batch)
    table = block_figures.boot_table(compared, names)
    if not len(table):
        show.note("No batch block is stored yet: there is no verdict to compare between boots.")
        return
    boots = [c for c in table.columns if c.startswith(("boot ", "machine ")) and c != "boots agree"]
    counted = effects.tally_of(comparison for _, comparison in compared)
    flips, opposite = counted.flips, counted.opposite
    if len(boots) < 2:
        show.note(f"Every batch block here was measured on one machine only ({boots[0] if boots else 'none'}): "
                  f"the table shows each verdict once; a sweep after another boot adds one.")
    else:
        show.note(f"{len(boots)} machines measured these blocks; in {flips} of {len(table)} solution and case pairs "
                  f"they disagree on whether pooling beats allocation, and in {opposite or 'none'} of them one machine "
                  f"finds pooling faster where another finds it slower. Taken across the machines, \"pooling beats "
                  f"allocation\" {replace(counted, flips=0, opposite=0).text('pairs')}.")
    across = [c for c in ("across the boots", "boots agree") if c in table.columns]
    show.show_table(table.set_index(["solution", "case"])[across or boots[:1]],
                    caption="Pooling / allocation, time per packet, across the machines (the verdict that stands): "
                            "outcome, ratio of medians and 95 % interval")
    long = table.melt(id_vars=["solution", "case"], value_vars=boots, var_name="machine", value_name="verdict there")
    show.show_details("The same on each machine", long.dropna(subset=["verdict there"]))


def heap_multiples(stored, chosen, case: str) -> dict[str, float]:
    """Each chosen Java solution's heap (buffers on the heap) as a multiple of the case's minimum heap, the larger
    of its strategies' (chapter 13's bisections, read from the store: stored is a replay, which runs nothing);
    solutions whose minimum the store lacks are left out."""
    out = {}
    for solution in chosen:
        if solution.engine != "java" or solution.native_buffers or solution.baseline:
            continue
        found = [measure_heap.min_heap(stored.executor, solution, strategy, case)[0]["min_heap_mb"]
                 for strategy in ("alloc", "pool")]
        heap = solution.heap_mb(stored.profile.scale)
        if heap and all(found):
            out[solution.name] = heap / max(found)
    return out
