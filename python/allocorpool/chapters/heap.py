"""Chapter 13, the heap as a multiple of the minimum heap: each cell's minimum heap, the time per
packet at multiples of it, and each collector's lower-bound overhead in wall and CPU time. Every
sentence stating a result is computed here from the chapter's tables."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.figures import LOG_TICKS, line_colours

CELL = ["label", "strategy_label", "case"]
COST_LABELS = {"ns_per_packet": "wall ns per packet", "cpu_ns_per_packet": "CPU ns per packet"}
OVERHEAD_LABELS = {"overhead_wall": "wall time", "overhead_cpu": "CPU time"}


def show_minimum(minimum: pd.DataFrame) -> None:
    """Each cell's minimum heap beside the heap the study gives the solution elsewhere (the
    article's 2 GB at this profile's scale), with the ratio of the two."""
    if minimum.empty:
        show.note("No Java solution of this profile's selection is in this chapter.")
        return
    table = minimum.assign(
        ratio=[row.solution_heap_mb / row.min_heap_mb if row.min_heap_mb else None for row in minimum.itertuples()])
    shown = table[["label", "strategy_label", "case", "outcome", "min_heap_mb", "solution_heap_mb", "ratio", "runs"]]
    show.show_table(shown.rename(columns={
        "label": "solution", "strategy_label": "strategy", "min_heap_mb": "minimum heap, MB",
        "solution_heap_mb": "the study's heap, MB", "ratio": "study's heap / minimum", "runs": "bisection runs"}
    ).set_index(["solution", "strategy", "case"]),
        "The smallest heap each cell completes in (bisection over -Xmx)", precision=1)
    failed = minimum[minimum["outcome"].isin(["failed", "missing"])]
    if len(failed):
        show.show_failures(failed.assign(stderr_tail=None), "minimum-heap search")
    found = table.dropna(subset=["ratio"])
    if len(found):
        tight = found.loc[found["ratio"].idxmin()]
        roomy = found.loc[found["ratio"].idxmax()]
        show.note(f"The heap this profile gives each solution (the heap its other chapters use) is "
                  f"{tight['ratio']:.1f}× the minimum for "
                  f"{tight['label']} {tight['strategy_label']} {tight['case']}, the tightest cell here, and "
                  f"{roomy['ratio']:.1f}× for {roomy['label']} {roomy['strategy_label']} {roomy['case']}: one "
                  "heap size is a different amount of room for each collector and strategy.")


def cost_figure(multiples: pd.DataFrame, cost: str) -> go.Figure:
    """Cost per packet against the heap factor: one panel per (strategy, case), a line per solution
    through the median of each factor's runs, with bars from the cheapest run to the dearest."""
    ok = multiples[multiples["status"] == "ok"].dropna(subset=[cost])
    panels = list(dict.fromkeys(zip(ok["strategy_label"], ok["case"])))
    fig = make_subplots(rows=1, cols=max(1, len(panels)), shared_yaxes=True,
                        subplot_titles=[f"{strategy} {case}" for strategy, case in panels] or [""])
    colours = line_colours(ok["label"])
    for col, (strategy, case) in enumerate(panels, 1):
        part = ok[(ok["strategy_label"] == strategy) & (ok["case"] == case)]
        for label, runs in part.groupby("label", sort=False):
            rows = runs.groupby(["factor", "heap_mb"], as_index=False)[cost].agg(["median", "min", "max"])
            fig.add_trace(go.Scatter(x=rows["factor"], y=rows["median"], mode="lines+markers", name=label,
                                     legendgroup=label, showlegend=col == 1, line={"color": colours[label]},
                                     error_y=dict(type="data", symmetric=False, array=rows["max"] - rows["median"],
                                                  arrayminus=rows["median"] - rows["min"]),
                                     customdata=rows["heap_mb"],
                                     hovertemplate=f"{label}<br>%{{x}}× minimum (%{{customdata}} MB): "
                                                   f"%{{y:.0f}} ns<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="heap / minimum heap", type="log", row=1, col=col)
    fig.update_yaxes(type="log", tickvals=LOG_TICKS)  # every panel: a shared axis must be log in each
    fig.update_yaxes(title_text=COST_LABELS[cost], row=1, col=1)
    fig.update_layout(title=f"Batch: {COST_LABELS[cost]} at multiples of the minimum heap", height=420)
    return fig


def repeated(runs: pd.DataFrame) -> bool:
    """Whether some cell ran more than once at one factor (the table then gives each factor's range)."""
    return not runs.empty and runs.groupby([*CELL, "factor"]).size().max() > 1


def overhead_table(multiples: pd.DataFrame, overhead: str) -> pd.DataFrame:
    """Lower-bound overhead in percent: a row per solution, strategy and case, a column per factor;
    the median of the factor's runs, and where it ran more than once, the range of its runs."""
    rows = multiples.dropna(subset=[overhead])
    stats = rows.groupby([*CELL, "factor"], sort=False)[overhead].agg(["median", "min", "max"]) * 100
    values = stats.apply(lambda cell: f"{cell['median']:.0f} ({cell['min']:.0f} to {cell['max']:.0f})",
                         axis=1) if repeated(rows) else stats["median"]
    table = values.unstack("factor").reindex(pd.MultiIndex.from_frame(rows[CELL].drop_duplicates()))
    table.columns = [f"{factor:g}×" for factor in table.columns]
    return table.reset_index().rename(columns={"label": "solution", "strategy_label": "strategy"})


def show_overheads(multiples: pd.DataFrame) -> None:
    for overhead, what in OVERHEAD_LABELS.items():
        table = overhead_table(multiples, overhead)
        if table.empty:
            show.note(f"No run at a multiple of a minimum heap measured its {what}.")
            continue
        ranges = "; median (lowest to highest) of each factor's runs" if repeated(
            multiples.dropna(subset=[overhead])) else ""
        show.show_table(table.set_index(["solution", "strategy", "case"]),
                        f"Lower-bound overhead in {what}, % over the cheapest configuration of the same strategy "
                        f"and case{ranges}", precision=0)
    if multiples["overhead_wall"].notna().any():
        show.show_table(collector_overheads(multiples).set_index("solution"),
                        "Median lower-bound overhead of each collector over its cells, %", precision=0)
        show.note(overhead_sentence(multiples))


def collector_overheads(multiples: pd.DataFrame) -> pd.DataFrame:
    """Per collector, its median lower-bound overhead (over its cells, each the median of its runs) in
    wall and CPU time at the smallest and the largest factor measured; a column per time and factor."""
    cells = multiples.dropna(subset=["overhead_wall"]).groupby(
        [*CELL, "factor"], as_index=False, sort=False)[list(OVERHEAD_LABELS)].median()
    columns = {}
    for factor in sorted({cells["factor"].min(), cells["factor"].max()}):
        at = cells[cells["factor"] == factor].groupby("label", sort=False)[list(OVERHEAD_LABELS)].median() * 100
        columns.update({f"{what} at {factor:g}×": at[time] for time, what in OVERHEAD_LABELS.items()
                        if at[time].notna().any()})
    return pd.DataFrame(columns).reindex(cells["label"].unique()).rename_axis("solution").reset_index()


def overhead_sentence(multiples: pd.DataFrame) -> str:
    """What the collectors' table is taken against, and how far the repeats of one cell spread;
    empty where no run finished."""
    ok = multiples.dropna(subset=["overhead_wall"])
    if ok.empty:
        return ""
    cells = [*CELL, "factor"]
    runs = ok.groupby(cells, sort=False)["overhead_wall"].agg(["max", "min", "size"])
    spread = (runs["max"] - runs["min"])[runs["size"] > 1]
    said = ("Each overhead is taken against the cheapest configuration of its cell among the "
            f"{ok['label'].nunique()} solutions measured here. A wider selection can only lower that baseline "
            "and raise every overhead.")
    if len(spread):
        widest = spread.idxmax()
        said += (f"\nThe runs of one configuration differ by up to {spread.max() * 100:.0f} percentage points "
                 f"({widest[0]} {widest[1]} {widest[2]} at {widest[3]:g}×) and by a median "
                 f"{spread.median() * 100:.0f}, so one run's overhead can be off by as much.")
    return said
