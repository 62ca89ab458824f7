"""Chapter 17's figures beside wall time: the threads' CPU time per packet (a figure and tables read as the wall
time ones are, from analysis.thread_costs.cpu_view), Netty's allocator metrics per strategy, and the strong-scaling
comparison (the case's live set split between the threads) beside the weak one, and how much of the threads' time
the collector held them. Every sentence is computed from the chapter's table (run.experiments.threads.threads)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.thread_costs import HELD, HELD_MUCH, NETTY_COLUMNS, PROCESS_CPU, THREAD_CPU, cpu_view
from allocorpool.chapters.page import display as show
from allocorpool.chapters import threads
from allocorpool.data.records import MISSING
from allocorpool.lists import STRONG, THREAD_STRATEGY_LABELS, THREAD_STRATEGY_NAMES, WEAK

NETTY_HEADINGS = {"netty_allocations": "arena allocations", "netty_deallocations": "arena deallocations",
                  "netty_cache_share": "served by a thread cache", "netty_chunk_usage_pct": "chunk usage",
                  "netty_used_bytes": "memory held", "netty_thread_caches": "thread caches"}


def scaling_view(table: pd.DataFrame, scaling: str) -> pd.DataFrame:
    """The rows of one scaling (weak: every thread the case's live set; strong: the case split)."""
    if not len(table) or "scaling" not in table:
        return table if scaling == WEAK else table.iloc[0:0]
    return table[table["scaling"].fillna(WEAK) == scaling]


def _cell(value: Any, text: str) -> str:
    return "" if _absent(value) else text


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _spread(median: Any, low: Any, high: Any) -> str:
    """A median with its interval, in the digits the interval supports, where both are known ('1,166 (1,061-1,225)',
    as every figure of the study reads); the median alone in whole ns ('1,166'), or nothing."""
    if _absent(median):
        return ""
    if _absent(low) or _absent(high):
        return _ns(median)
    return effects.Spread(float(median), float(low), float(high), 2).text()  # an interval: two runs or more


def _ns(value: Any) -> str:
    """A time in whole ns with thousands separated ('3,233'), or nothing."""
    return "" if _absent(value) else f"{float(value):,.0f}"


def cpu_table(table: pd.DataFrame, wall: str = "wall ns/packet (thread time)") -> pd.DataFrame:
    """Per solution, case and thread count, each strategy's wall time per packet beside its threads' CPU time per
    packet (median, 95 % interval), the process's (median: the collector's and compiler's threads too) and the share
    of the threads' time the collector held them (the run that stands for the cell; none in C++). `wall` heads the
    wall time: thread time in a threaded run, wall time in a hand-off (its producer makes every packet)."""
    table = threads.measured(table)
    rows = []
    for (label, case, n), part in table.groupby(["label", "case", "threads"], sort=False):
        for r in part.to_dict("records"):
            ok = r.get("status") == "ok"
            cpu, low, high = (r.get(k) for k in (THREAD_CPU, "thread_cpu_low", "thread_cpu_high"))
            rows.append({"solution": label, "case": case, "threads": int(n), "strategy": r["strategy_label"],
                         wall: _ns(r["ns_per_packet"]) if ok else str(r.get("status")),
                         "threads' CPU ns/packet": _spread(cpu, low, high) if ok else "",
                         "process CPU ns/packet": _ns(r.get(PROCESS_CPU)) if ok else "",
                         HELD_HEADING: _cell(r.get(HELD), f"{r.get(HELD) or 0:.0f} %") if ok else ""})
    return pd.DataFrame(rows).set_index(["solution", "case", "threads", "strategy"]) if rows else pd.DataFrame()


HELD_HEADING = "held by the collector"


def held_findings(table: pd.DataFrame, netty: bool = True) -> list[str]:
    """Sentences computed from the table: in how many Java cells the collector held the threads more than a
    quarter of their time, and which strategy's; with `netty`, where Netty's heap pool was held far longer than its
    direct pool in the same solution, case and count, the cell of the widest gap."""
    part = threads.measured(table)
    part = part[part["status"].eq("ok") & part[HELD].notna()] if len(part) and HELD in part else part.iloc[0:0]
    if not len(part):
        return []
    much = part[part[HELD].astype(float) > HELD_MUCH]
    by_strategy = "; ".join(f"{THREAD_STRATEGY_NAMES[str(s)]} {n}"
                            for s, n in much["strategy"].value_counts().items())
    lines = [f"The collector stopped or stalled the threads for more than {HELD_MUCH:.0f} % of their time in "
             f"{len(much)} of {show.count(len(part), 'Java cell')}" + (f" ({by_strategy})." if len(much) else ".")]
    gaps = []
    for _, cells in part.groupby(["label", "case", "threads"], sort=False) if netty else ():
        by = cells.set_index("strategy")
        if {"netty-pooled-heap", "netty-pooled-direct"} <= set(by.index):
            heap, direct = by.loc["netty-pooled-heap"], by.loc["netty-pooled-direct"]
            gaps.append((float(heap[HELD]) - float(direct[HELD]), heap, direct))
    wide = [g for g in gaps if g[0] > HELD_MUCH]
    if wide:
        _, heap, direct = max(wide, key=lambda g: g[0])
        used = heap.get("netty_used_bytes")
        memory = "" if _absent(used) else f" ({float(used) / 2**20:,.0f} MiB in that cell)"
        others = len(wide) - 1
        lines.append(f"Netty's heap pool keeps its chunks in the Java heap{memory}, its direct pool outside it. "
                     f"{heap['label']}, case {heap['case']}, {show.count(int(heap['threads']), 'thread')}: the "
                     f"collector held the heap pool's threads {float(heap[HELD]):.0f} % of their time, the direct "
                     f"pool's {float(direct[HELD]):.0f} %, and the heap pool took "
                     f"{float(heap['ns_per_packet']) / float(direct['ns_per_packet']):.1f} x as long per packet"
                     + (f" ({show.count(others, 'other cell')} with a gap over {HELD_MUCH:.0f} points)."
                        if others else "."))
    return lines


def netty_table(table: pd.DataFrame) -> pd.DataFrame:
    """Netty's allocator metrics of the run that stands for each Netty strategy's cell: a row per solution, case,
    thread count and strategy."""
    table = threads.measured(table)
    if not len(table) or "netty_allocations" not in table:
        return pd.DataFrame()
    part = table[table["status"].eq("ok") & table["netty_allocations"].notna()]
    rows = []
    for r in part.to_dict("records"):
        share, usage, used = r.get("netty_cache_share"), r.get("netty_chunk_usage_pct"), r.get("netty_used_bytes")
        rows.append({"solution": r["label"], "case": r["case"], "threads": int(r["threads"]),
                     "strategy": r["strategy_label"],
                     NETTY_HEADINGS["netty_allocations"]: f"{int(r['netty_allocations']):,}",
                     NETTY_HEADINGS["netty_deallocations"]: _cell(r.get("netty_deallocations"),
                                                                  f"{int(r.get('netty_deallocations') or 0):,}"),
                     NETTY_HEADINGS["netty_cache_share"]: _cell(share, f"{100 * (share or 0):.1f} %"),
                     NETTY_HEADINGS["netty_chunk_usage_pct"]: _cell(usage, f"{usage or 0:.0f} %"),
                     NETTY_HEADINGS["netty_used_bytes"]: _cell(used, f"{(used or 0) / 2**20:,.0f} MiB"),
                     NETTY_HEADINGS["netty_thread_caches"]: _cell(r.get("netty_thread_caches"),
                                                                  f"{int(r.get('netty_thread_caches') or 0)}")})
    return pd.DataFrame(rows).set_index(["solution", "case", "threads", "strategy"]) if rows else pd.DataFrame()


def cpu_findings(table: pd.DataFrame) -> list[str]:
    """Sentences computed from the table: per thread count, how much of the threads' wall time the strategies'
    threads spent on a CPU (their CPU time over thread time, median over the cells and its range)."""
    table = threads.measured(table)
    lines = []
    for n, part in table.groupby("threads"):
        ok = part[part["status"].eq("ok")]
        shares = (ok[THREAD_CPU].astype(float) / ok["ns_per_packet"].astype(float)).dropna() \
            if THREAD_CPU in ok and len(ok) else pd.Series(dtype=float)
        if len(shares):
            lines.append(f"With {show.count(int(n), 'thread')}, the threads were on a CPU for "
                         f"{100 * shares.min():.0f} to {100 * shares.max():.0f} % of their thread time (median "
                         f"{100 * shares.median():.0f} % over {show.count(len(shares), 'cell')}): the rest they "
                         "waited, for a CPU or on each other.")
    return lines


def netty_findings(table: pd.DataFrame) -> list[str]:
    """Sentences computed from the Netty metrics: the share of buffers the thread caches served, per strategy."""
    found = netty_table(table)
    if not len(found):
        return []
    part = threads.measured(table)
    part = part[part["netty_cache_share"].notna()] if "netty_cache_share" in part else part.iloc[0:0]
    lines = []
    for strategy, rows in part.groupby("strategy", sort=False):
        shares = rows["netty_cache_share"].astype(float)
        lines.append(f"{THREAD_STRATEGY_LABELS[str(strategy)]}: a thread cache served {100 * shares.min():.1f} to "
                     f"{100 * shares.max():.1f} % of the buffers (over {show.count(len(shares), 'cell')}); the "
                     "arenas the rest.")
    return lines


def show_costs(table: pd.DataFrame) -> None:
    """The CPU figure and tables beside the wall ones (weak scaling), then Netty's metrics."""
    weak = scaling_view(table, WEAK)
    if not len(threads.measured(weak)):
        return
    cpu = cpu_view(weak)
    if len(threads.measured(cpu)[lambda t: t["status"].eq("ok")]):
        show.show_figure(threads.figure(cpu, per="CPU-second",
                                        title="Throughput per second of the threads' CPU time (flat: perfect scaling)"))
    show.show_table(cpu_table(weak), "Wall and CPU time per packet, ns: thread time (elapsed x threads), the "
                                     "threads' own CPU time (median, 95 % interval) and the whole process's; the "
                                     "share of the threads' time the collector held them")
    counts = threads.measured(cpu)["threads"].unique() if len(cpu) else []
    if len(counts) > 1:
        show.show_table(threads.scaling_table(cpu), "Scaling in CPU time: the threads' CPU time per packet at N "
                                                    "threads over one thread's (1: perfect), 95 % interval")
    for line in cpu_findings(weak) + held_findings(weak):
        show.note(line)
    netty = netty_table(weak)
    if len(netty):
        show.show_table(netty, "Netty's allocator after each run (PooledByteBufAllocatorMetric, the arenas of the "
                               "strategy's kind): what the arenas allocated and freed, the share of the buffers a "
                               "thread cache served, the chunks' mean usage, the memory held, the thread caches")
    else:
        show.note("Netty's allocator metrics: no Netty run measured.")
    for line in netty_findings(weak):
        show.note(line)


def live_set_note(table: pd.DataFrame, scaling: str) -> str:
    """The packets each thread held at the end, per thread count (their range over the cells)."""
    part = threads.measured(scaling_view(table, scaling))
    part = part[part["status"].eq("ok")] if len(part) else part
    if not len(part) or "live_set_per_thread" not in part or part["live_set_per_thread"].isna().all():
        return f"Live set per thread under {scaling} scaling: not measured."
    said = []
    for n, rows in part.groupby("threads"):
        held = rows["live_set_per_thread"].dropna().astype(float)
        if len(held):
            said.append(f"{show.count(int(n), 'thread')}: {held.min():,.0f}"
                        + (f" to {held.max():,.0f}" if held.max() > held.min() else ""))
    return f"Packets each thread held (its live set) under {scaling} scaling: " + "; ".join(said) + "."


def show_strong(table: pd.DataFrame) -> None:
    """Strong scaling: the case's live set split between the threads, as the chapter measured before weak scaling
    became its comparison; its tables read as the weak ones."""
    strong = scaling_view(table, STRONG)
    show.note(live_set_note(table, WEAK))
    if not len(strong) or not len(threads.measured(strong)):
        show.note("Strong scaling: not measured.")
        return
    show.note(live_set_note(table, STRONG))
    if note := threads.boots_note(strong, "strong-scaling"):
        show.note(note)
    show.show_table(threads.figures_table(strong), "Strong scaling: thread time per packet, ns, median (95 % "
                                                   "interval)")
    if threads.measured(strong)["threads"].nunique() > 1:
        show.show_table(threads.scaling_table(strong), "Strong scaling: thread time per packet at N threads over "
                                                       "one thread's, 95 % interval")
    show.show_unfinished(strong.assign(run_status=strong["status"]), ["run_status"], "strong-scaling run")
    missing = strong[strong["status"] == MISSING]
    if len(missing):
        show.note(f"Strong scaling: {show.count(len(missing), 'cell')} not measured.")


BATCH_STRATEGIES = ("alloc", "pool")  # the strategies both chapters run, one thread each


def _median(samples: Any) -> float:
    values = [float(v) for v in (samples or []) if not _absent(v)]
    return float(pd.Series(values).median()) if values else math.nan


def against_batch(table: pd.DataFrame, batch: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """One thread of this chapter beside the batch chapters' figure for the same solution, case and strategy: each
    figure with the machine (boot, named by names) it stands for, and, where a machine ran both, this chapter's
    median over the batch block's there (1: the two engines agree)."""
    one = threads.measured(scaling_view(table, WEAK))
    one = one[one["status"].eq("ok") & one["threads"].eq(1)] if len(one) else one
    if not len(one) or not len(batch):
        return pd.DataFrame()
    stood = {(r["solution"], r["case"], r["strategy"]): r
             for r in batch[batch["status"].eq("ok")].to_dict("records")}
    rows, apart, together = [], 0, []
    for r in one.to_dict("records"):
        b = stood.get((r["solution"], r["case"], r["strategy"]))
        if r["strategy"] not in BATCH_STRATEGIES or b is None:
            continue
        mine, theirs = r.get("boot_samples") or {}, b.get("boot_samples") or {}
        shared = [boot for boot in mine if boot in theirs]
        same = [_median(mine[boot]) / _median(theirs[boot]) for boot in shared]
        apart += str(r.get("boot")) != str(b.get("boot"))
        together += same
        rows.append({"solution": r["label"], "case": r["case"], "strategy": r["strategy_label"],
                     "one thread here, ns": f"{r['ns_per_packet']:,.1f} ({names.get(str(r.get('boot')), 'one run')})",
                     "batch chapters, ns": f"{b['ns_per_packet']:,.1f} ({names.get(str(b.get('boot')), 'one run')})",
                     "here over batch": f"{r['ns_per_packet'] / b['ns_per_packet']:.2f}",
                     "same machine": ", ".join(f"{x:.2f} ({names.get(boot, boot)})" for x, boot in zip(same, shared))
                     or "none ran both"})
    compared = pd.DataFrame(rows).set_index(["solution", "case", "strategy"]) if rows else pd.DataFrame()
    compared.attrs["apart"] = apart  # pairs whose two figures stand for different machines
    compared.attrs["together"] = together  # here over batch on each machine that ran both, every pair
    return compared


def batch_note(compared: pd.DataFrame, threads_s: tuple[float, float], batch_s: tuple[float, float]) -> str:
    """Why one thread here and the batch chapters read differently, computed from against_batch's table: how far
    apart the figures are, how often they come from one machine, and what one machine said where it ran both."""
    if not len(compared):
        return "One thread here against the batch chapters: no pair both measured."
    ratios = compared["here over batch"].astype(float)
    together = compared.attrs.get("together", [])
    said = (f"One thread here takes {ratios.min():.2f} to {ratios.max():.2f} times the batch chapters' figure "
            f"(over {show.count(len(ratios), 'pair')}). The two run the same packet loop, here inside the "
            f"several-threads engine, {threads_s[0]:g} s after {threads_s[1]:g} s of warm-up against {batch_s[0]:g} s "
            f"after {batch_s[1]:g} s there. Each figure stands for its newest machine, and the two come from "
            f"different machines in {compared.attrs.get('apart', 0)} of {show.count(len(ratios), 'pair')}.")
    if together:
        said += (f" Where one machine ran both ({show.count(len(together), 'time')}), one thread here took "
                 f"{min(together):.2f} to {max(together):.2f} times the batch block's time.")
    return said


def show_against_batch(table: pd.DataFrame, batch: pd.DataFrame, names: dict[str, str], profile: Any) -> None:
    """One thread here beside the batch chapters' figures, and why they differ (batch_note)."""
    plan, blocks = profile.threads, profile.blocks
    here = (plan.batch_s or blocks.batch_s or profile.batch_s,
            plan.batch_warmup_s or blocks.batch_warmup_s or profile.batch_warmup_s)
    there = (blocks.batch_s or profile.batch_s, blocks.batch_warmup_s or profile.batch_warmup_s)
    compared = against_batch(table, batch, names)
    if len(compared):
        show.show_table(compared, "One thread here against the batch chapters: time per packet, ns (the machine "
                                  "each stands for), their ratio, and the ratio on each machine that ran both")
    show.note(batch_note(compared, here, there))
