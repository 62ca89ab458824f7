"""Chapter 17's hand-off: one producer thread acquires and fills every packet, N workers process and release them,
so that every buffer is released on another thread than the one that took it (the engine's --handoff, Java). Its
table and sentences read the hand-off table (run.experiments.handoff.handoffs) as the chapter's own tables read the
thread table: time per packet is wall time (the producer makes every packet), beside the threads' CPU time."""

from __future__ import annotations

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.thread_costs import cpu_view
from allocorpool.chapters.page import display as show
from allocorpool.chapters import threads
from allocorpool.analysis.claims import versus
from allocorpool.chapters.threads_costs import cpu_table, netty_table
from allocorpool.data.records import MISSING
from allocorpool.lists import HANDOFF_STRATEGIES, THREAD_STRATEGY_LABELS

ALLOC = "alloc"
RULE = ("Each pool's median time per packet over allocation's in the same solution, case and worker count, with its "
        "95 % interval over the block's repetitions. The pool is faster where the interval lies below 1 by the "
        f"{effects.pct(effects.MARGIN)} margin, slower where it lies above it, and otherwise the pair reads undecided.")
OUTCOME = {"wall time": "wall time outcome", "CPU time": "CPU time outcome"}  # against_allocation's, not shown


def fastest(table: pd.DataFrame) -> list[str]:
    """Sentences computed from the table: per worker count, the strategy with the lowest median time per packet in
    each solution and case, and its margin over the next (threads.best_text's rule)."""
    table = threads.measured(table)
    lines = []
    for (label, solution, case), part in table.groupby(["label", "solution", "case"], sort=False):
        for n in sorted(int(v) for v in part["threads"].unique()):
            said = threads.best_text(threads.by_strategy(table, solution, case, n))
            lines.append(f"{label}, case {case}, one producer and {show.count(n, 'worker')}: {said}.")
    return lines


def against_allocation(table: pd.DataFrame) -> pd.DataFrame:
    """Each hand-off pool over allocation in each solution, case and worker count, in wall time and in the threads'
    CPU time: the ratio of medians with its 95 % interval over the block's repetitions and its outcome (below 1:
    the pool is faster), decided as RULE says. Each clock's outcome is also kept as such (OUTCOME[clock]), for the
    tallies, and not shown."""
    wall, cpu = threads.measured(table), threads.measured(cpu_view(table))
    rows = []
    for (label, solution, case), part in wall.groupby(["label", "solution", "case"], sort=False):
        for n in sorted(int(v) for v in part["threads"].unique()):
            by_wall = threads.by_strategy(wall, solution, case, n)
            by_cpu = threads.by_strategy(cpu, solution, case, n) if len(cpu) else {}
            for pool in HANDOFF_STRATEGIES:
                if pool == ALLOC or pool not in by_wall:
                    continue
                said = {}
                for clock, rows_ in (("wall time", by_wall), ("CPU time", by_cpu)):
                    a, b = rows_.get(pool), rows_.get(ALLOC)
                    ok = a is not None and b is not None and a.get("status") == b.get("status") == "ok"
                    outcome, effect, _ = versus(a if ok else None, b if ok else None)
                    said[clock] = f"{effect}, {effects.FASTER_WORDS[outcome]}" if ok else effects.NOT_MEASURED
                    said[OUTCOME[clock]] = outcome if ok else effects.NOT_MEASURED
                rows.append({"solution": label, "case": case, "workers": n, "pool": THREAD_STRATEGY_LABELS[pool],
                             **said})
    return pd.DataFrame(rows)


def tallies(compared: pd.DataFrame) -> list[str]:
    """Sentences computed from against_allocation's outcomes: per worker count and pool, how its pairs came out in
    wall time and in CPU time."""
    lines = []
    for (n, pool), part in compared.groupby(["workers", "pool"], sort=False):
        said = [f"in {clock} {effects.tally(part[OUTCOME[clock]]).text('', effects.FASTER_WORDS).rstrip()}"
                for clock in OUTCOME]
        lines.append(f"{pool} against allocation, one producer and {show.count(int(n), 'worker')}: "
                     f"{'; '.join(said)} solution and case pairs.")
    return lines


def show_handoff(table: pd.DataFrame) -> None:
    """The hand-off section: its figures (wall time per packet, the threads' CPU time, Netty's metrics), which
    strategy is fastest, and the runs that did not finish or were not measured."""
    if table.empty:
        show.note("Hand-off: no solution of a hand-off engine (Java) in this selection, or no machine with a CPU "
                  "for the producer and each worker.")
        return
    shown = threads.measured(table)
    if not len(shown):
        show.note(f"Hand-off: not measured ({show.count(len(table), 'cell')} planned).")
        return
    figures = threads.figures_table(table)
    show.show_table(figures.rename_axis(["solution", "case", "workers"]) if len(figures) else figures,
                    "Hand-off: time per packet, ns (wall time: one producer makes every packet), median (95 % "
                    "interval), by the number of workers")
    show.show_table(cpu_table(table), "Hand-off: wall time per packet beside the threads' CPU time (the producer's "
                                      "and the workers') and the whole process's, ns")
    compared = against_allocation(table)
    if len(compared):
        shown_ = compared.drop(columns=list(OUTCOME.values()))
        show.show_table(shown_.set_index(["solution", "case", "workers", "pool"]),
                        "Hand-off: each pool's time per packet over allocation's, in wall time and in the threads' "
                        "CPU time, ratio of medians (95 % interval): below 1, the pool is faster")
        for line in tallies(compared):
            show.note(line)
        show.note(f"How each is decided: {RULE}")
    netty = netty_table(table)
    if len(netty):
        show.show_table(netty, "Hand-off: Netty's allocator after each run (buffers acquired on the producer, "
                               "released on a worker)")
    for line in fastest(table):
        show.note(line)
    show.show_unfinished(shown.assign(run_status=shown["status"]), ["run_status"], "hand-off run")
    missing = table[table["status"] == MISSING]
    if len(missing):
        strategies = ", ".join(dict.fromkeys(THREAD_STRATEGY_LABELS[s] for s in missing["strategy"]))
        show.note(f"Hand-off: {show.count(len(missing), 'cell')} not measured ({strategies}).")
