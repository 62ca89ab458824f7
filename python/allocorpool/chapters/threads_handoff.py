"""Chapter 17's hand-off: one producer thread acquires and fills every packet, N workers process and release them,
so that every buffer is released on another thread than the one that took it (the engine's --handoff, Java). Its
table and sentences read the hand-off table (run.experiments.handoff.handoffs) as the chapter's own tables read the
thread table: time per packet is wall time (the producer makes every packet), beside the threads' CPU time."""

from __future__ import annotations

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters import threads
from allocorpool.chapters.threads_costs import cpu_table, netty_table
from allocorpool.data.records import MISSING
from allocorpool.lists import THREAD_STRATEGY_LABELS


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
