"""Records a profile's blocks (batch, real time, several threads, the C++ choice of pool), a solution at a time, and
prints what each measured.

`python -m allocorpool blocks --profile full --solutions paper --solution g1` measures (or reads back)
every batch block of one solution (one per case), in this boot; with --realtime, its real-time blocks
(every strategy's probes at a million packets a second, one block per case). `make record` runs every
solution of a selection this way and commits the store after each, so that a session that ends keeps
every finished block. What it prints is for the person running it; the chapters compute their own tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from allocorpool import effects, lists, profiles
from allocorpool.analysis import blocks as block_figures
from allocorpool.run.experiments import batch as measure_batch, continuum as measure_continuum
from allocorpool.run.experiments import handoff as measure_handoff, heap as measure_heap
from allocorpool.run.experiments import jdks as measure_jdks, threads as measure_threads
from allocorpool.run.sweep import Sweep


def names(profile_name: str, selection: str) -> list[str]:
    """The solutions of a selection that the profile holds, in the study's order."""
    prof = profiles.profile(profile_name)
    return [s.name for s in profiles.solutions(None, prof, lists.selection(selection))]


def jdk_names(profile_name: str) -> list[str]:
    """The JDK and collector solutions of the profile's JDKs chapter (profiles.jdk_solutions)."""
    return [s.name for s in profiles.jdk_solutions(profiles.profile(profile_name).jdks)]


def record(profile_name: str, solution: str, realtime: bool = False) -> str:
    """Measures the solution's batch (or real-time) blocks in this boot (what the store lacks) and words the
    result."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    sweep = Sweep(profile_name, progress=True)
    if realtime:
        probes = measure_batch.probe_blocks(sweep.executor, [chosen])
        return "\n".join(_probes_words(solution, r) for r in probes.to_dict("records"))
    batch = measure_batch.batch(sweep.executor, [chosen])
    lines = []
    for case, part in batch.groupby("case", sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(rows[s])}" for s in lists.STRATEGIES if s in rows)
        compared = block_figures.compare(rows["pool"], rows["alloc"]) if "pool" in rows and "alloc" in rows else None
        effect = f"; pooling / allocation {_effect_words(compared)}" if compared else ""
        lines.append(f"{solution} case {case}: {figures} ns per packet{effect}")
    return "\n".join(lines)


def record_headroom(profile_name: str, solution: str) -> str:
    """Measures the solution's heap-headroom blocks in this boot (the minimum heaps first, where the store lacks
    them) and words the result: per case and factor, each strategy's figure and pooling over allocation."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    sweep = Sweep(profile_name, progress=True)
    lines = []
    for row in measure_heap.headroom(sweep.executor, [chosen]).to_dict("records"):
        figures = block_figures.cell_figures(row["runs"])
        by = {r["strategy"]: {**figures[r["cell"]], "samples": figures[r["cell"]]["boot_samples"][figures[r["cell"]]["boot"]]}
              for r in row["runs"].drop_duplicates("cell").to_dict("records") if r["cell"] in figures}
        spreads = ", ".join(f"{s} {by[s]['spread'].text('ns')}" for s in lists.HEADROOM_STRATEGIES if s in by)
        ratio = effects.ratio(by["pool"]["samples"], by["alloc"]["samples"]) if {"pool", "alloc"} <= set(by) else None
        lines.append(f"{solution} case {row['case']} at {row['factor']:g}x the minimum heap ({row['heap_mb']:,} MB): "
                     f"{spreads}" + (f"; pooling / allocation {ratio.text()}" if ratio else ""))
    return "\n".join(lines)


def record_threads(profile_name: str, solution: str, probes: bool = True,
                   cases: Sequence[str] | None = None, scalings: Sequence[str] | None = None) -> str:
    """Measures the solution's several-threads blocks in this boot (what the store lacks) and words the result:
    each strategy's thread time per packet at each thread count, and each pool over allocation; then (unless not
    probes), where its engine runs several real-time consumers, each strategy's probes at each count of them.
    `cases` and `scalings` (None: the profile's) measure some only: a case C block can take an hour."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    prof = profiles.profile(profile_name)
    for field, chosen_ones, valid in (("cases", cases, lists.CASES), ("scalings", scalings, lists.THREAD_SCALINGS)):
        if chosen_ones:
            for one in chosen_ones:
                lists.named(dict.fromkeys(valid), one, field[:-1])
            prof = replace(prof, threads=replace(prof.threads, **{field: tuple(chosen_ones)}))
    sweep = Sweep(prof, progress=True)
    table = measure_threads.threads(sweep.executor, [chosen])
    lines = []
    for (case, scaling, threads), part in table.groupby(["case", "scaling", "threads"], sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(r)}" for s, r in rows.items())
        effects_ = "; ".join(f"{s} / alloc {_effect_words(block_figures.compare(rows[s], rows['alloc']))}"
                             for s in lists.THREAD_POOLS if s in rows and "alloc" in rows)
        lines.append(f"{solution} case {case}, {threads} thread(s), {scaling} scaling: {figures} ns per packet "
                     f"(thread time); {effects_}")
    if not probes:
        return "\n".join(lines)
    probed = measure_threads.thread_probes(sweep.executor, [chosen])
    lines += [f"{solution} case {r['case']}, {r['threads']} consumer{'s' if r['threads'] != 1 else ''} at "
              f"{r['interval_ns']} ns each, {r['strategy']}: "
              f"{r['lossy']} of {r['probes']} probes lost, {r['failed']} failed, median loss {r['loss_pct']}"
              for r in probed.to_dict("records")]
    return "\n".join(lines)


def record_handoff(profile_name: str, solution: str) -> str:
    """Measures a Java solution's hand-off blocks in this boot (one producer, N workers, at each count this machine
    has N CPUs for; what the store lacks) and words the result: each strategy's wall and thread CPU time per
    packet, and each pool over allocation."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    if chosen.engine not in lists.HANDOFF_ENGINES:
        raise ValueError(f"solution {solution!r} has no hand-off blocks; one of the "
                         f"{', '.join(lists.HANDOFF_ENGINES)} engine's")
    table = measure_handoff.handoffs(Sweep(profile_name, progress=True).executor, [chosen])
    lines = []
    for (case, threads), part in table.groupby(["case", "threads"], sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(r)}" + (f" (CPU {r['thread_cpu_ns_per_packet']:.4g})"
                                                    if r["status"] == "ok" and r.get("thread_cpu_ns_per_packet") else "")
                            for s, r in rows.items())
        effects_ = "; ".join(f"{s} / alloc {_effect_words(block_figures.compare(rows[s], rows['alloc']))}"
                             for s in lists.HANDOFF_STRATEGIES[1:] if s in rows and "alloc" in rows
                             and rows[s]["status"] == rows["alloc"]["status"] == "ok")
        lines.append(f"{solution} case {case}, hand-off to {threads} worker(s): {figures} ns per packet (wall, "
                     f"thread CPU); {effects_}")
    return "\n".join(lines)


def record_pool_choice(profile_name: str, solution: str) -> str:
    """Measures a C++ solution's choice-of-pool blocks in this boot (what the store lacks) and words the result:
    each strategy's time per packet and the standard pool over the free list and over allocation."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    if chosen.name not in lists.POOL_CHOICE_SOLUTIONS:
        raise ValueError(f"solution {solution!r} has no choice-of-pool blocks; one of "
                         f"{', '.join(lists.POOL_CHOICE_SOLUTIONS)}")
    table = measure_batch.pool_choice(Sweep(profile_name, progress=True).executor, [chosen])
    lines = []
    for case, part in table.groupby("case", sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(r)}" for s, r in rows.items())
        ratios = "; ".join(f"pmr / {s} {_effect_words(block_figures.compare(rows['pmr'], rows[s]))}"
                           for s in ("pool", "alloc") if rows["pmr"]["status"] == rows[s]["status"] == "ok")
        lines.append(f"{solution} case {case}: {figures} ns per packet; {ratios}")
    return "\n".join(lines)


def record_jdks(profile_name: str, solution: str) -> str:
    """Measures one JDK and collector's blocks of the JDKs chapter in this boot (what the store lacks), then each
    strategy's real-time probe at the plan's interval, and words the result: each strategy's time per packet and
    pooling over allocation, per case of the chapter's plan, and whether each probe kept up."""
    prof = profiles.profile(profile_name)
    known = {s.name: s for s in profiles.jdk_solutions(prof.jdks)}
    chosen = lists.named(known, solution, "JDK and collector of the JDKs chapter")
    sweep = Sweep(profile_name, progress=True)
    cases = [case for case in (prof.jdks.cases or prof.cases) if case in prof.cases]
    blocks, figures = measure_jdks.jdk_blocks(sweep.executor, [chosen], cases)
    lines = []
    for (_, case), block in blocks.items():
        rows = {cell.strategy: {"status": "ok" if cell.key in figures else "missing", "ns_per_packet": None,
                                **_spread_row(figures.get(cell.key))} for cell in block.cells}
        said = ", ".join(f"{s} {_figure(r)}" for s, r in rows.items())
        ratio = (f"; pool / alloc {_effect_words(block_figures.compare(rows['pool'], rows['alloc']))}"
                 if all(rows.get(s, {}).get("status") == "ok" for s in ("pool", "alloc")) else "")
        lines.append(f"{solution} case {case}: {said} ns per packet{ratio}")
    interval_ns = prof.jdks.interval_ns
    for case in cases:
        for strategy in prof.jdks.strategies:
            row, probe = measure_jdks.jdk_probe(sweep.executor, chosen, strategy, case)
            said = (row["status"] if row["status"] != "ok" else "keeps up (one probe)" if probe.ok
                    else f"loses {probe.lost_pct:.3g} % (one probe)" if probe.lost_pct else "falls behind (one probe)")
            lines.append(f"{solution} case {case} {strategy} at {interval_ns} ns: {said}")
    return "\n".join(lines)


def record_continuum(profile_name: str, solution: str) -> str:
    """Measures one solution's continuum in this boot (what the store lacks: with its single runs stored, the
    blocks of each size) and words the batch result: each strategy's time per packet at each size, and
    allocation over pooling."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    if chosen.name not in lists.CONTINUUM_SOLUTIONS:
        raise ValueError(f"solution {solution!r} is not in the continuum; one of {', '.join(lists.CONTINUUM_SOLUTIONS)}")
    sweep = Sweep(profile_name, progress=True)
    curves = measure_continuum.continuum(sweep.executor, [chosen], sweep.off_heap_solutions()).curves
    lines = []
    for size, part in curves.groupby("size", sort=True):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        said = ", ".join(f"{s} {_figure({**r, 'status': r['batch_status']})}" for s, r in rows.items()
                         if r["batch_status"] == "ok")
        ratio = (f"; alloc / pool {_effect_words(block_figures.compare(rows['alloc'], rows['pool']))}"
                 if all(rows.get(s, {}).get("batch_status") == "ok" for s in ("alloc", "pool")) else "")
        statuses = ", ".join(sorted({str(r["batch_status"]) for r in rows.values()} - {"ok"}))
        lines.append(f"{solution} at {int(size):,}: " + (f"{said} ns per packet{ratio}" if said else
                                                         f"no batch run finished ({statuses or 'not run'})"))
    return "\n".join(lines)


def _spread_row(found: dict | None) -> dict:
    """A cell's figures (analysis.blocks.cell_figures' entry) as a row _figure and compare read."""
    if found is None:
        return {}
    return {"ns_per_packet": found["spread"].median, **block_figures.spread_columns(found)}


def _effect_words(compared: block_figures.Comparison) -> str:
    """The newest boot's ratio (the boot the figures beside it come from), then, where several boots measured
    the block, the ratio over them all: the one that stands."""
    newest = compared.by_boot.get(compared.boot) if compared.boot is not None else None
    if newest is None or compared.over is None:
        return f"{compared.effect.text()}: {compared.outcome()}"
    return (f"{newest.text()} in this boot: {newest.outcome(compared.threshold)}; over "
            f"{len(compared.by_boot)} boots {compared.over.text()}: {compared.outcome()}")


def _probes_words(solution: str, row: dict) -> str:
    """A real-time block's cell: its probes over every boot that completed the block (they decide), the median
    loss in percent with the digits a reader needs."""
    boots = row.get("boots") or 0
    over = f"over {boots} boot{'s' if boots != 1 else ''}, " if boots else ""
    loss = row.get("loss_pct")
    median = "not measured" if loss is None or (isinstance(loss, float) and math.isnan(loss)) else f"{loss:.3g} %"
    return (f"{solution} case {row['case']} {row['strategy']} at {row['interval_ns']} ns: {over}{row['lossy']} of "
            f"{row['probes']} probes lost, {row['failed']} failed, median loss {median}")


def _figure(row: dict) -> str:
    if row["status"] != "ok":
        return row["status"]
    runs = row.get("runs")
    single = runs is None or (isinstance(runs, float) and math.isnan(runs))  # a run outside any block
    return effects.Spread(row["ns_per_packet"], row.get("ns_low", math.nan), row.get("ns_high", math.nan),
                          1 if single else int(runs)).text()
