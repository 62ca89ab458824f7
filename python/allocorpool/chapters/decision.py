"""Chapter 16, the decision chart: the reader's rate and live set against every real-time point the
profile's store holds (analysis.decision), the cells that prove the answer, the cells to run where
nothing decides it, and the article's real-time conclusions restated as regions of the chart."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool import study
from allocorpool.analysis import decision
from allocorpool.analysis.decision import Budget
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.sections import stored_runs
from allocorpool.chapters.page.figures import STRATEGY_COLOURS
from allocorpool.effects import FAILS, HOLDS, NOT_MEASURED
from allocorpool.run.experiments import continuum as measure_continuum, jdks as measure_jdks
from allocorpool.run.experiments import realtime as measure_realtime
from allocorpool.run.runner import Cell
from allocorpool.study import Profile, Solution, continuum_cells, live_packets

if TYPE_CHECKING:
    from allocorpool.run.sweep import Sweep

def check_question(rate_per_s: float, live_packets: int, budget: str) -> Budget:
    """The question's budget, or a clear error for a question the chart cannot answer."""
    parsed = decision.parse_budget(budget)
    if not rate_per_s > 0 or not live_packets > 0:
        raise ValueError(f"rate_per_s ({rate_per_s}) and live_packets ({live_packets}) must be positive")
    return parsed


def points(sweep: Sweep) -> pd.DataFrame:
    """Every real-time point the sweep's store holds: the searches of every solution, the continuum's
    probes and the probes across the JDKs (a replay reads them; a sweep that runs would run them)."""
    scale = sweep.profile.scale
    searches = measure_realtime.realtime(sweep.executor, sweep.solutions())
    continuum = measure_continuum.continuum(sweep.executor, sweep.continuum_solutions(), sweep.off_heap_solutions())
    jdks = measure_jdks.across_jdks(sweep.executor, sweep.selection)
    across = as_named(jdks, study.jdk_solutions(sweep.profile.jdks), sweep.solutions())
    across = across.assign(live_packets=[live_packets(case, scale) for case in across["case"]])
    cases = {case: live_packets(case, scale) for case in sweep.profile.cases}
    return pd.concat([decision.search_points(searches.table, cases, sweep.profile.search.high_ns, searches.probes),
                      decision.probe_points(stored_runs(sweep, searches.probes, cases), "stored run"),
                      decision.probe_points(continuum.curves, "continuum probe"),
                      decision.probe_points(across, "probe across the JDKs")], ignore_index=True)


def as_named(frame: pd.DataFrame, solutions: list[Solution], named: list[Solution]) -> pd.DataFrame:
    """frame's rows (of solutions) under the name and label of the solution of named that runs the same
    configuration, where one does: one configuration is one pair of the chart, not two that may disagree."""
    if not len(frame):
        return frame
    by_configuration: dict[tuple, Solution] = {}
    for solution in named:
        by_configuration.setdefault(solution.configuration, solution)
    own = {s.name: s for s in solutions}
    same = {name: by_configuration.get(s.configuration, s) for name, s in own.items()}
    renamed = frame["solution"].map(lambda n: same[n].name if n in same else n)
    relabelled = frame["solution"].map(lambda n: same[n].label if n in same else None)
    return frame.assign(solution=renamed, label=relabelled.fillna(frame["label"]) if "label" in frame else relabelled)


def show_answer(answer: pd.DataFrame, rate_per_s: float, live_packets: int, budget: Budget = Budget()) -> None:
    interval = 1e9 / rate_per_s
    holding = answer[answer["verdict"] == HOLDS]
    counts = answer["verdict"].value_counts()
    holds, fails, unknown = (int(counts.get(verdict, 0)) for verdict in (HOLDS, FAILS, NOT_MEASURED))
    outcomes = f"{holds} {'holds' if holds == 1 else 'hold'}" + (
        f", {fails} fail and {unknown} {'is' if unknown == 1 else 'are'} not decided by any measurement" if unknown
        else f" and {fails} fail")
    head = (f"The question: {rate_per_s:,.0f} packets per second (one every {interval:,.0f} ns), {live_packets:,} "
            f"packets live, {budget}. Of {show.count(len(answer), 'solution and strategy', 'solutions and strategies')}, "
            f"{outcomes}.")
    if len(holding):
        best = holding.iloc[0]
        head += (f" The widest margin is {best['label']} with {best['strategy_label'].lower()}: it kept up with packets "
                 f"{best['margin']:.2g}× as fast.")
    contradicted = answer[answer["rule"] == decision.SAME_LIVE_SET]
    if len(contradicted):
        head += (f" For {show.count(len(contradicted), 'pair')} the store contradicts the premise that a larger live "
                 "set is never easier, so only runs at this live set decide them.")
    show.note(head)
    shown = answer.assign(margin=answer["margin"].map(lambda m: f"{m:.2g}×" if pd.notna(m) else None))
    shown = shown[["label", "strategy_label", "verdict", "margin", "rule", "proof"]].rename(columns={
        "label": "solution", "strategy_label": "strategy", "margin": "rate headroom", "rule": "decided from",
        "proof": "the run that decides"})
    failing = shown["verdict"] == FAILS
    if (~failing).any():
        show.show_table(shown[~failing].set_index(["solution", "strategy"]),
                        "The answer, best first: the pairs that hold" + (" or that no measurement decides"
                                                                         if unknown else ""))
    if failing.any():  # folded: the reader's choice is among the pairs above
        show.show_details(f"The {show.count(int(failing.sum()), 'pair')} that fail, with the run that decides each",
                          shown[failing].drop(columns=["rate headroom"]))


def cells_to_run(answer: pd.DataFrame, solutions: dict[str, Solution], rate_per_s: float, live_packets: int,
                 prof: Profile) -> list[Cell]:
    """For each pair no measurement decides: the real-time probe that would, at the question's interval
    and live set (FIFO = store = half of it), under the profile."""
    interval = max(1, round(1e9 / rate_per_s))
    size = live_packets / 2 / prof.scale  # continuum_cells scales its size
    return [continuum_cells(solutions[row.solution], row.strategy, round(size), prof, interval_ns=interval)[1]
            for row in answer[answer["verdict"] == NOT_MEASURED].itertuples()]


def show_cells_to_run(cells: list[Cell]) -> None:
    if not cells:
        show.note("Every pair is decided by a measurement: there is nothing to run for this question.")
        return
    show.note(f"{show.count(len(cells), 'pair')} {'is' if len(cells) == 1 else 'are'} not decided by any "
              "measurement. The real-time probes below would decide them; a sweep of this chapter runs them.")
    show.show_table(pd.DataFrame([{
        "engine": f"JDK {cell.jdk} {cell.collector}" if cell.engine == "java" else f"C++ {cell.design} {cell.allocator}",
        "strategy": cell.strategy, "interval, ns": cell.interval_ns,
        "internal queue": cell.internal_queue_size, "store": cell.stored_count} for cell in cells]).set_index(
        ["engine", "strategy"]), "The probes that would decide them", precision=0)


PANELS_PER_ROW = 3


def chart(points: pd.DataFrame, rate_per_s: float, live_packets: int) -> go.Figure:
    """Small multiples, a panel per solution: the highest loss-free rate measured against the live set, a line
    per strategy in its colour, and the question as a star in each panel. Below and left of a line, that pair
    holds. The panels share their axes, so a reader compares solutions by position alone."""
    best = decision.frontier(points)
    labels = list(dict.fromkeys(best["label"]))
    rows = max(1, -(-len(labels) // PANELS_PER_ROW))
    fig = make_subplots(rows=rows, cols=PANELS_PER_ROW, shared_xaxes="all", shared_yaxes="all",
                        subplot_titles=labels, horizontal_spacing=0.04, vertical_spacing=0.09 if rows > 1 else 0.1)
    legend: set[str] = set()
    for i, label in enumerate(labels):
        row, col = i // PANELS_PER_ROW + 1, i % PANELS_PER_ROW + 1
        for strategy, part in best[best["label"] == label].groupby("strategy_label", sort=False):
            part = part.sort_values("live_packets")
            fig.add_trace(go.Scatter(x=part["live_packets"], y=part["rate_per_s"], mode="lines+markers", name=strategy,
                                     legendgroup=strategy, showlegend=strategy not in legend,
                                     line={"color": STRATEGY_COLOURS.get(strategy)},
                                     hovertemplate=f"{label}, {strategy}<br>%{{x:,}} packets live: loss-free at "
                                                   "%{y:,.0f} packets/s<extra></extra>"), row=row, col=col)
            legend.add(strategy)
        fig.add_trace(go.Scatter(x=[live_packets], y=[rate_per_s], mode="markers", name="your question",
                                 legendgroup="question", showlegend=i == 0,
                                 marker={"symbol": "star", "size": 12, "color": "black"}), row=row, col=col)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    for col in range(1, PANELS_PER_ROW + 1):
        fig.update_xaxes(title_text="packets live", row=rows, col=col)
    for row in range(1, rows + 1):
        fig.update_yaxes(title_text="packets/s, loss-free", row=row, col=1)
    fig.update_layout(title="The highest loss-free rate measured against the live set, per solution",
                      height=160 + 230 * rows, legend={"orientation": "h", "y": -0.08 if rows > 2 else -0.15})
    return fig


def regions(points: pd.DataFrame, rate_per_s: float) -> list[str]:
    """Per strategy: the largest live set at which a Java and a C++ solution hold at this rate, decided as the
    chart's answer decides (analysis.decision.decide: a loss at conditions no harder outweighs a loss-free
    run); the article's real-time conclusions are these boundaries at 1,000 ns."""
    lines = []
    interval = 1e9 / rate_per_s
    holding = []
    for (_, _), pair in points.groupby(["solution", "strategy"], sort=False):
        for live in sorted(pair.loc[pair["loss_free_ns"] <= interval, "live_packets"].unique(), reverse=True):
            if decision.decide(pair, rate_per_s, int(live))["verdict"].iloc[0] == HOLDS:
                holding.append({**pair.iloc[0][["label", "engine", "strategy_label"]].to_dict(), "live_packets": live})
                break
    held = pd.DataFrame(holding, columns=["label", "engine", "strategy_label", "live_packets"])
    for strategy, part in points.groupby("strategy_label", sort=False):
        said = []
        for engine, name in (("java", "Java"), ("cpp", "C++")):
            if not (part["engine"] == engine).any():
                continue
            found = held[(held["strategy_label"] == strategy) & (held["engine"] == engine)]
            if found.empty:
                said.append(f"{name}: at none of the live sets measured")
            else:
                top = found.loc[found["live_packets"].idxmax()]
                said.append(f"{name}: up to {int(top['live_packets']):,} packets live ({top['label']})")
        lines.append(f"**{strategy}** loss-free at {rate_per_s:,.0f} packets/s — " + "; ".join(said) + ".")
    return lines
