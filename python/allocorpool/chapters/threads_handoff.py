"""Chapter 17's hand-off: one producer thread acquires and fills every packet, N workers process and release them,
so that every buffer is released on another thread than the one that took it (the engine's --handoff, Java). Its
table and sentences read the hand-off table (run.experiments.handoff.handoffs) as the chapter's own tables read the
thread table: time per packet is wall time (the producer makes every packet), beside the threads' CPU time.
A count of workers that ran with the producer on fewer CPUs than threads (a 2-CPU machine's two workers) is
labelled so wherever it shows (shared_cpus)."""

from __future__ import annotations

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.thread_costs import cpu_view
from allocorpool.chapters.page import display as show
from allocorpool.chapters import threads
from allocorpool.analysis.claims import versus
from allocorpool.chapters.threads_costs import cpu_table, held_findings, netty_table
from allocorpool.data.records import MISSING
from allocorpool.lists import HANDOFF_STRATEGIES, THREAD_STRATEGY_LABELS

ALLOC = "alloc"
RULE = ("Each pool's median time per packet over allocation's in the same solution, case and worker count, with its "
        "95 % interval, which resamples the boots that measured both and then each boot's repetitions. "
        f"The pool is faster where the interval lies below 1 by the {effects.pct(effects.MARGIN)} margin, slower "
        "where it lies above it, and otherwise the pair reads undecided.")
OUTCOME = {"wall time": "wall time outcome", "CPU time": "CPU time outcome"}  # against_allocation's, not shown


def shared_cpus(table: pd.DataFrame) -> dict[int, int]:
    """The worker counts whose measured runs had fewer CPUs than threads (the workers and the producer): each with
    the fewest CPUs such a run had. The threads then took turns on the CPUs, as the collector's threads do."""
    table = threads.measured(table)
    if not len(table) or "cpus" not in table:
        return {}
    ok = table[table["status"].eq("ok") & table["cpus"].notna()]
    short = ok[ok["threads"].astype(int) + 1 > ok["cpus"].astype(int)]
    return {int(n): int(part["cpus"].min()) for n, part in short.groupby("threads")}


def workers_text(n: int, shared: dict[int, int]) -> str:
    """A worker count as a table shows it: with its threads and CPUs where they outnumbered the CPUs."""
    return f"{n} ({n + 1} threads, {shared[n]} CPUs)" if n in shared else str(n)


def crew(n: int, shared: dict[int, int]) -> str:
    """One producer and n workers, in words, with the CPUs they shared where they outnumbered them."""
    return f"one producer and {show.count(n, 'worker')}" + (f" on {shared[n]} CPUs" if n in shared else "")


def shared_note(shared: dict[int, int]) -> str:
    """What a count of workers that outnumbered the CPUs with its producer measured, computed from shared_cpus."""
    if not shared:
        return ""
    said = "; ".join(f"{show.count(n, 'worker')} and the producer ran as {n + 1} threads on {c} CPUs"
                     for n, c in sorted(shared.items()))
    return (f"{said[0].upper()}{said[1:]}. The system shared the CPUs between them and the collector's threads. Wall "
            "time then counts the waits for a CPU: compare the strategies at that count with each other, beside "
            "their CPU time. A machine with a CPU for every thread measures it without sharing.")


def fastest(table: pd.DataFrame) -> list[str]:
    """Sentences computed from the table: per worker count, the strategy with the lowest median time per packet in
    each solution and case, and its margin over the next (threads.best_text's rule)."""
    shared = shared_cpus(table)
    table = threads.measured(table)
    lines = []
    for (label, solution, case), part in table.groupby(["label", "solution", "case"], sort=False):
        for n in sorted(int(v) for v in part["threads"].unique()):
            said = threads.best_text(threads.by_strategy(table, solution, case, n))
            lines.append(f"{label}, case {case}, {crew(n, shared)}: {said}.")
    return lines


def against_allocation(table: pd.DataFrame) -> pd.DataFrame:
    """Each hand-off pool over allocation in each solution, case and worker count, in wall time and in the threads'
    CPU time: the ratio of medians with its 95 % interval over the boots and their repetitions and its outcome (below 1:
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


def tallies(compared: pd.DataFrame, shared: dict[int, int] | None = None) -> list[str]:
    """Sentences computed from against_allocation's outcomes: per worker count and pool, how its pairs came out in
    wall time and in CPU time (shared: shared_cpus of the table compared)."""
    lines = []
    for (n, pool), part in compared.groupby(["workers", "pool"], sort=False):
        said = [f"in {clock} {effects.tally(part[OUTCOME[clock]]).text('', effects.FASTER_WORDS).rstrip()}"
                for clock in OUTCOME]
        lines.append(f"{pool} against allocation, {crew(int(n), shared or {})}: {'; '.join(said)} solution and case "
                     "pairs.")
    return lines


def _workers(frame: pd.DataFrame, shared: dict[int, int], level: str = "threads") -> pd.DataFrame:
    """A hand-off table indexed by solution, case, `level` (the worker count), ..., its count shown as workers_text."""
    if not len(frame):
        return frame
    names = ["workers" if name == level else name for name in frame.index.names]
    flat = frame.reset_index()
    flat[level] = [workers_text(int(n), shared) for n in flat[level]]
    return flat.rename(columns={level: "workers"}).set_index(names)


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
    shared = shared_cpus(table)
    show.show_table(_workers(threads.figures_table(table), shared),
                    "Hand-off: time per packet, ns (wall time: one producer makes every packet), median (95 % "
                    "interval), by the number of workers")
    if shared:
        show.note(shared_note(shared))
    show.show_table(_workers(cpu_table(table, wall="wall ns/packet"), shared),
                    "Hand-off: wall time per packet beside the threads' CPU time (the producer's and the workers') "
                    "and the whole process's, ns; the share of the threads' time the collector held them")
    for line in held_findings(table, netty=False):
        show.note(line)
    compared = against_allocation(table)
    if len(compared):
        shown_ = compared.drop(columns=list(OUTCOME.values()))
        show.show_table(_workers(shown_.set_index(["solution", "case", "workers", "pool"]), shared, "workers"),
                        "Hand-off: each pool's time per packet over allocation's, in wall time and in the threads' "
                        "CPU time, ratio of medians (95 % interval): below 1, the pool is faster")
        for line in tallies(compared, shared):
            show.note(line)
        show.note(f"How each is decided: {RULE}")
    netty = netty_table(table)
    if len(netty):
        show.show_table(_workers(netty, shared), "Hand-off: Netty's allocator after each run (buffers acquired on the "
                                                 "producer, released on a worker)")
    for line in fastest(table):
        show.note(line)
    show.show_unfinished(shown.assign(run_status=shown["status"]), ["run_status"], "hand-off run")
    if (table["status"] == MISSING).any():
        show.note(missing_note(table))


def missing_note(table: pd.DataFrame) -> str:
    """The hand-off cells not measured: the worker counts no machine measured (a machine with a CPU for each worker
    does), and the strategies missing at a count that was."""
    missing = table[table["status"] == MISSING]
    shown = threads.measured(table)
    counts = set(shown["threads"].astype(int)) if len(shown) else set()
    whole = sorted({int(n) for n in missing["threads"]} - counts)
    partial = missing[missing["threads"].astype(int).isin(counts)]
    said = []
    if whole:
        said.append(f"{show.series(whole)} workers, which need a machine with a CPU for each worker")
    if len(partial):
        said.append(", ".join(dict.fromkeys(THREAD_STRATEGY_LABELS[s] for s in partial["strategy"])) + " at "
                    + show.series(sorted({int(n) for n in partial["threads"]})) + " workers")
    return f"Hand-off: {show.count(len(missing), 'cell')} not measured ({'; '.join(said)})."
