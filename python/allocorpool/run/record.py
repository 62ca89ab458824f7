"""Records a profile's blocks (batch, real time, several threads, the C++ choice of pool), a solution at a time, and
prints what each measured.

`python -m allocorpool blocks --profile full --solutions paper --solution g1` measures (or reads back)
every batch block of one solution (one per case), in this boot; with --realtime, its real-time blocks
(every strategy's probes at a million packets a second, one block per case). `make record` runs every
solution of a selection this way and commits the store after each, so that a session that ends keeps
every finished block. What it prints is for the person running it; the chapters compute their own tables.
"""

from __future__ import annotations

from allocorpool import effects, lists, profiles
from allocorpool.analysis import blocks as block_figures
from allocorpool.run.sweep import Sweep


def names(profile_name: str, selection: str) -> list[str]:
    """The solutions of a selection that the profile holds, in the study's order."""
    prof = profiles.profile(profile_name)
    return [s.name for s in profiles.solutions(None, prof, lists.selection(selection))]


def record(profile_name: str, solution: str, realtime: bool = False) -> str:
    """Measures the solution's batch (or real-time) blocks in this boot (what the store lacks) and words the
    result."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    sweep = Sweep(profile_name, progress=True)
    if realtime:
        probes = sweep.probe_blocks([chosen])
        return "\n".join(f"{solution} case {r['case']} {r['strategy']} at {r['interval_ns']} ns: {r['lossy']} of "
                         f"{r['probes']} probes lost, {r['failed']} failed, median loss {r['loss_pct']}"
                         for r in probes.to_dict("records"))
    batch = sweep.batch([chosen])
    lines = []
    for case, part in batch.groupby("case", sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(rows[s])}" for s in lists.STRATEGIES if s in rows)
        compared = block_figures.compare(rows["pool"], rows["alloc"]) if "pool" in rows and "alloc" in rows else None
        effect = f"; pooling / allocation {compared.effect.text()}: {compared.outcome()}" if compared else ""
        lines.append(f"{solution} case {case}: {figures} ns per packet{effect}")
    return "\n".join(lines)


def record_threads(profile_name: str, solution: str) -> str:
    """Measures the solution's several-threads blocks in this boot (what the store lacks) and words the result:
    each strategy's thread time per packet at each thread count, and each pool over allocation."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    table = Sweep(profile_name, progress=True).threads([chosen])
    lines = []
    for (case, threads), part in table.groupby(["case", "threads"], sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(r)}" for s, r in rows.items())
        effects_ = "; ".join(f"{s} / alloc {block_figures.compare(rows[s], rows['alloc']).effect.text()}"
                             for s in lists.THREAD_POOLS if s in rows and "alloc" in rows)
        lines.append(f"{solution} case {case}, {threads} thread(s): {figures} ns per packet (thread time); {effects_}")
    return "\n".join(lines)


def record_pool_choice(profile_name: str, solution: str) -> str:
    """Measures a C++ solution's choice-of-pool blocks in this boot (what the store lacks) and words the result:
    each strategy's time per packet and the standard pool over the free list and over allocation."""
    chosen = lists.named(lists.SOLUTIONS_BY_NAME, solution, "solution")
    if chosen.name not in lists.POOL_CHOICE_SOLUTIONS:
        raise ValueError(f"solution {solution!r} has no choice-of-pool blocks; one of "
                         f"{', '.join(lists.POOL_CHOICE_SOLUTIONS)}")
    table = Sweep(profile_name, progress=True).pool_choice([chosen])
    lines = []
    for case, part in table.groupby("case", sort=False):
        rows = {r["strategy"]: r for r in part.to_dict("records")}
        figures = ", ".join(f"{s} {_figure(r)}" for s, r in rows.items())
        ratios = "; ".join(f"pmr / {s} {block_figures.compare(rows['pmr'], rows[s]).effect.text()}"
                           for s in ("pool", "alloc") if rows["pmr"]["status"] == rows[s]["status"] == "ok")
        lines.append(f"{solution} case {case}: {figures} ns per packet; {ratios}")
    return "\n".join(lines)


def _figure(row: dict) -> str:
    if row["status"] != "ok":
        return row["status"]
    return effects.Spread(row["ns_per_packet"], row["ns_low"], row["ns_high"], int(row["runs"] or 0)).text()
