"""What the answer depends on (chapter 18, and the README's answer): pooling against allocation per solution and
case from analysis.model's fits over every boot, by host class, with the boots that would decide what is
undecided, what the host and the calibration explain, and what two CPUs hide (process CPU time beside wall time).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from allocorpool import effects, lists
from allocorpool.analysis import model

CASES = ("A", "B", "C")
# One colour per verdict, the same in every figure of the chapter
COLOURS = {model.FASTER: "#1b7837", model.SLOWER: "#b2182b", model.EQUAL: "#2166ac", model.UNDECIDED: "#999999"}
SYMBOLS = {model.AMD: "circle", model.INTEL: "diamond", model.OTHER: "square"}
CPU_NAMES = model.CPU_NAMES


short_label = model.short_label


def _order(fits: Iterable[model.Fit]) -> list[model.Fit]:
    """Fits in the paper selection's solution order, then case."""
    order = {name: i for i, name in enumerate(lists.selection("paper") or ())}
    return sorted(fits, key=lambda f: (order.get(f.solution, len(order)), f.solution, f.case))


def effect_text(estimate: model.Estimate, log_scale: bool, predict: bool = False) -> str:
    """'0.25× (0.22-0.28)' for a ratio, '-50 points (-53 to -47)' for a loss difference; with predict, the
    interval is the prediction for a new machine."""
    low, high = (estimate.predict_low, estimate.predict_high) if predict else (estimate.low, estimate.high)
    if not math.isfinite(estimate.point):
        return "not measured"
    if log_scale:
        if not (math.isfinite(low) and math.isfinite(high)):
            return f"{math.exp(estimate.point):.2f}×"
        return f"{math.exp(estimate.point):.2f}× ({math.exp(low):.2f}-{math.exp(high):.2f})"
    low, high = max(low, -100.0), min(high, 100.0)  # a difference of two shares cannot leave ±100 points
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{estimate.point:+.1f} points"
    return f"{estimate.point:+.1f} points ({low:+.1f} to {high:+.1f})"


def verdict_words(estimate: model.Estimate) -> str:
    words = model.WORDS[estimate.verdict]
    if estimate.verdict == model.UNDECIDED and estimate.needed is not None:
        more = "over 100" if estimate.needed > model.MAX_BOOTS else f"{estimate.needed}"
        words += f", {more} boots to decide"
    return words


def cell_text(fit: model.Fit) -> str:
    """One comparison for a table cell, per host class: 'AMD 0.25× (0.22-0.28), pooling faster'."""
    if not fit.estimates:
        return "not measured"
    parts = []
    for cls, estimate in fit.estimates.items():
        parts.append(f"{cls} {effect_text(estimate, fit.log_scale)}, {model.WORDS[estimate.verdict]}")
    return "; ".join(parts)


def answer_table(fits: Sequence[model.Fit], test: str) -> pd.DataFrame:
    """Solutions by case: each cell pooling against allocation per host class (cell_text)."""
    rows: dict[str, dict[str, str]] = {}
    for fit in _order(f for f in fits if f.test == test):
        rows.setdefault(short_label(fit.solution), {case: "not measured" for case in CASES})[fit.case] = cell_text(fit)
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(CASES))
    table.index.name = "solution"
    return table.rename(columns={c: f"case {c}" for c in CASES})


def counts(fits: Sequence[model.Fit], test: str) -> dict[str, dict[str, int]]:
    """Per host class, how many comparisons came out each way."""
    out: dict[str, dict[str, int]] = {}
    for fit in fits:
        if fit.test != test:
            continue
        for cls, estimate in fit.estimates.items():
            out.setdefault(cls, dict.fromkeys(model.VERDICTS, 0))[estimate.verdict] += 1
    return out


def _count_words(tally: dict[str, int]) -> str:
    named = [(model.WORDS[v], n) for v, n in tally.items() if n and v != model.NOT_MEASURED]
    return ", ".join(f"{words} in {n}" for words, n in named) + f" of {sum(n for _, n in named)}"


def boots_of(runs: pd.DataFrame, test: str = model.BATCH) -> dict[str, int]:
    """How many boots of each host class measured the test's blocks."""
    part = runs[runs["test"] == test]
    return {cls: int(n) for cls, n in part.groupby("host_class")["boot"].nunique().items()}


def lead(runs: pd.DataFrame, fits: Sequence[model.Fit]) -> str:
    """The answer in sentences, counted from the fits: boots and machines, then the batch verdicts per host class,
    then how much of the spread lies between boots and how much of that the host class explains."""
    boots = boots_of(runs)
    if not boots:
        return "No comparison of pooling with allocation was measured in repeated blocks."
    machines = " and ".join(f"{n} on {CPU_NAMES[c]}" for c, n in sorted(boots.items()))
    tallies = counts(fits, model.BATCH)
    per_class = " ".join(f"On {CPU_NAMES[c]}: {_count_words(t)} solution and case pairs." for c, t in sorted(tallies.items()))
    cpus = sorted({int(c) for c in pd.to_numeric(runs["cpus"], errors="coerce").dropna()}) if "cpus" in runs else []
    sized = f"{' or '.join(map(str, cpus))}-CPU machines" if cpus else "machines"
    text = (f"Batch time per packet, pooling against allocation, was measured in {sum(boots.values())} boots of "
            f"{sized} ({machines}). {per_class}")
    shares = [f.between_share for f in fits if f.test == model.BATCH and math.isfinite(f.between_share)]
    hosts = [f.host_share() for f in fits if f.test == model.BATCH and math.isfinite(f.host_share())]
    if shares:
        text += (f" In the median pair, {effects.pct(float(np.median(shares)))} of one boot's variance of the gain "
                 f"lies between boots")
        text += (f", and the host class explains {effects.pct(float(np.median(hosts)))} of that." if hosts else ".")
    return text


def test_words(test: str) -> str:
    """What a test's table compares, for its heading."""
    if test == model.BATCH:
        return "batch at the article's heap, pooling/allocation time per packet"
    if test == model.REALTIME:
        return "real time at 1 µs, pooling's loss less allocation's"
    return f"{test}, pooling/allocation time per packet"


def _range(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}×" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}×"


def answer_sentences(runs: pd.DataFrame, fits: Sequence[model.Fit],
                     heap_multiples: dict[str, float] | None = None) -> str:
    """The first screen's answer in three sentences, computed from the fits: case C with its margins, cases A
    and B with what they turn on, then the limits (machines, heap, CPUs)."""
    batch = [(f, cls, e) for f in fits if f.test == model.BATCH for cls, e in f.estimates.items()]
    if not batch:
        return "No comparison of pooling with allocation was measured in repeated blocks."
    alive = [(f, e) for f, _, e in batch if f.case == "C"]
    gains = [math.exp(e.point) for _, e in alive if e.verdict == model.FASTER]
    first = (f"Where nearly every buffer stays alive (case C), pooling took {_range(gains)} allocation's time per "
             f"packet in {len(gains)} of {len(alive)} solution and machine pairs"
             if gains else f"Where nearly every buffer stays alive (case C), pooling was faster in none of "
                           f"{len(alive)} solution and machine pairs")
    others = [e.verdict for _, e in alive if e.verdict != model.FASTER]
    if others and len(set(others)) == 1:
        first += f"; the other {len(others)} {'is' if len(others) == 1 else 'are'} {model.WORDS[others[0]]}."
    else:
        first += f"; of the other {len(others)}, {_tally_words(others)}." if others else "."
    few = [(f, cls, e) for f, cls, e in batch if f.case != "C"]
    verdicts = [e.verdict for _, _, e in few]
    ratios = {v: [math.exp(e.point) for _, _, e in few if e.verdict == v] for v in (model.FASTER, model.SLOWER)}
    flipped = sum(1 for f in fits if f.test == model.BATCH and f.case != "C"
                  and {e.verdict for e in f.estimates.values()} >= {model.FASTER, model.SLOWER})
    second = (f"Where few stay alive (cases A and B), it turns on the solution and the machine: "
              f"{_tally_words(verdicts, ratios)} of {len(verdicts)} pairs"
              + (f", and the CPU model reverses {flipped} of the comparisons." if flipped else "."))
    boots = boots_of(runs)
    machines = " and ".join(f"{n} {CPU_NAMES[c]}" for c, n in sorted(boots.items()))
    cpus = sorted({int(c) for c in pd.to_numeric(runs.get("cpus", pd.Series(dtype=float)), errors="coerce").dropna()})
    sized = f"{' or '.join(map(str, cpus))}-CPU" if cpus else "small"
    multiples = sorted(v for v in (heap_multiples or {}).values() if v and math.isfinite(v))
    heap = (f"Java's 2 GB heap, {_range(multiples).rstrip('×')} times case C's minimum heap"
            if multiples else "Java's 2 GB heap")
    total = sum(boots.values())
    third = (f"Limits: {total} boot{'s' * (total != 1)} of {sized} virtual machines ({machines}), {heap}, and a "
             f"collector that shares the consumer's CPUs.")
    return " ".join((first, second, third))


def _tally_words(verdicts: list[str], ratios: dict[str, list[float]] | None = None) -> str:
    """'pooling faster in 3, undecided in 2'; with ratios (pooling's time over allocation's, by verdict), each
    decided verdict's range in brackets: 'pooling faster (0.41-0.93×) in 3'."""
    named = [(model.WORDS[v] + (f" ({_range(ratios[v])})" if (ratios or {}).get(v) else ""), verdicts.count(v))
             for v in model.VERDICTS if verdicts.count(v)]
    return ", ".join(f"{words} in {n}" for words, n in named)


def readme_lines(runs: pd.DataFrame) -> list[str]:
    """The README's answer: the lead, then the batch and real-time tables (rows: solutions; columns: cases)."""
    fits = model.fits(runs)
    lines = [lead(runs, fits)]
    tests = model.tests_of(runs)
    headroom = [t for t in tests if t not in model.TESTS]
    for group in ([t for t in tests if t in model.TESTS[:1]], headroom, [t for t in tests if t == model.REALTIME]):
        if not group:
            continue
        what = test_words(group[0]) if len(group) == 1 else "batch at multiples of the minimum heap"
        lines += ["", f"| {what} | case A | case B | case C |", "| --- | --- | --- | --- |"]
        for test in group:
            table = answer_table(fits, test)
            multiple = test.split(" at ")[1].split(" the")[0] if len(group) > 1 else ""
            lines += [f"| {name}{', ' + multiple if multiple else ''} | " + " | ".join(row) + " |"
                      for name, row in table.iterrows()]
    return lines


def comparison_table(fits: Sequence[model.Fit], test: str, cpu_fits: Sequence[model.Fit] = ()) -> pd.DataFrame:
    """Every comparison of a test and host class: the effect with its interval, the prediction for a new
    machine, the between-boot SD, the CPU-time effect beside it (batch), the verdict and the boots that would
    decide it."""
    cpu = {(f.solution, f.case): f for f in cpu_fits}
    rows = []
    for fit in _order(f for f in fits if f.test == test):
        for cls, estimate in fit.estimates.items():
            sd = fit.between_sd
            spread = (f"{100 * math.expm1(sd):.0f} %" if fit.log_scale else f"{sd:.1f} points") \
                if math.isfinite(sd) else "one boot"
            row = {"solution": short_label(fit.solution), "case": fit.case,
                   "machines": f"{CPU_NAMES[cls]}, {estimate.boots} boot{'s' * (estimate.boots != 1)}",
                   "pooling against allocation": effect_text(estimate, fit.log_scale),
                   "a new machine": effect_text(estimate, fit.log_scale, predict=True),
                   "between boots (SD)": spread}
            if model.is_batch(fit.test):
                other = cpu.get((fit.solution, fit.case))
                mate = other.estimates.get(cls) if other is not None else None
                row["CPU time"] = effect_text(mate, True) if mate is not None else "not measured"
            row["verdict"] = verdict_words(estimate)
            rows.append(row)
    return pd.DataFrame(rows)


def reference_effects(reference: pd.DataFrame | None) -> dict[tuple[str, str, str], float]:
    """The 2019 article's pooling against allocation, on the model's scales, by (solution, case, test): the
    ratio of its batch figures, and at 1 µs its loss less allocation's (a loss-free interval at or under 1 µs
    is no loss there; a loss given only at a longer interval is not known)."""
    if reference is None or not len(reference):
        return {}
    out: dict[tuple[str, str, str], float] = {}
    by_name = {s.reference_name: s.name for s in lists.SOLUTIONS if s.reference_name and s.name in
               (lists.selection("paper") or ())}
    rows = reference[reference["solution"].isin(list(by_name))]
    batch = rows[(rows["test"] == "batch") & (rows["metric"] == "ns_per_packet")]
    figures = {(r["solution"], r["strategy"], r["case"]): float(r["value"]) for r in batch.to_dict("records")}
    loss: dict[tuple[str, str, str], float] = {}
    for r in rows[rows["test"] == "realtime"].to_dict("records"):
        key = (r["solution"], r["strategy"], r["case"])
        if r["metric"] == "min_interval_ns" and float(r["value"]) <= 1000:
            loss[key] = 0.0
        elif r["metric"] == "lost_pct_at_1000ns" and (pd.isna(r["heap_gb"]) or float(r["heap_gb"]) < 10):
            loss.setdefault(key, float(r["value"]))
    for name, solution in by_name.items():
        for case in CASES:
            pool, alloc = figures.get((name, "Pooling", case)), figures.get((name, "Allocation", case))
            if pool and alloc:
                out[(solution, case, model.BATCH)] = pool / alloc
            lost_pool, lost_alloc = loss.get((name, "Pooling", case)), loss.get((name, "Allocation", case))
            if lost_pool is not None and lost_alloc is not None:
                out[(solution, case, model.REALTIME)] = lost_pool - lost_alloc
    return out


def _draw(fig: go.Figure, fits: Sequence[model.Fit], test: str, column: int | None,
          reference: dict[tuple[str, str, str], float], shown: set) -> list[str]:
    """One test's rows of a forest plot onto fig (in a subplot column, where given); the row labels."""
    chosen = [f for f in _order(fits) if f.test == test and f.estimates]
    log_scale = model.is_batch(test)
    scale = np.exp if log_scale else (lambda v: v)
    rows = [f"{short_label(f.solution)}, {f.case}" for f in chosen]
    where = {"row": 1, "col": column} if column else {}
    for fit, row in zip(chosen, rows):
        for cls, e in fit.estimates.items():
            point, low, high = (float(scale(v)) for v in (e.point, e.low, e.high))
            if math.isfinite(e.predict_low):
                fig.add_trace(go.Scatter(x=[float(scale(e.predict_low)), float(scale(e.predict_high))], y=[row, row],
                                         mode="lines", showlegend=False, hoverinfo="skip",
                                         line={"color": COLOURS.get(e.verdict, "#999999"), "width": 1}), **where)
            legend = (e.verdict, cls)
            rank = 10 * model.VERDICTS.index(e.verdict) + sorted(CPU_NAMES).index(cls)
            fig.add_trace(go.Scatter(
                x=[point], y=[row], mode="markers", name=f"{model.WORDS[e.verdict]}, {CPU_NAMES[cls]}",
                legendgroup=f"{e.verdict}{cls}", showlegend=legend not in shown, legendrank=rank,
                marker={"color": COLOURS.get(e.verdict, "#999999"), "symbol": SYMBOLS[cls], "size": 9},
                error_x={"type": "data", "symmetric": False, "array": [high - point], "arrayminus": [point - low],
                         "thickness": 2.5, "width": 0},
                hovertemplate=f"{row}, {CPU_NAMES[cls]}: {effect_text(e, log_scale)}<extra></extra>"), **where)
            shown.add(legend)
        then = reference.get((fit.solution, fit.case, model.BATCH if log_scale else model.REALTIME))
        if then is not None and test in (model.BATCH, model.REALTIME):
            fig.add_trace(go.Scatter(x=[then], y=[row], mode="markers", name="2019 article (one run)",
                                     legendgroup="2019", showlegend="2019" not in shown, legendrank=1000,
                                     marker={"symbol": "x-thin", "size": 10, "line": {"width": 2, "color": "#222222"}},
                                     hovertemplate=f"{row}, 2019: %{{x:.2f}}<extra></extra>"), **where)
            shown.add("2019")
    margin = model.MARGINS[model.BATCH if log_scale else model.REALTIME]
    band = (math.exp(-margin), math.exp(margin)) if log_scale else (-margin, margin)
    fig.add_vrect(x0=band[0], x1=band[1], fillcolor="#cccccc", opacity=0.4, line_width=0, **where)
    fig.add_vline(x=1 if log_scale else 0, line_color="#555555", line_width=1, **where)
    axis = {"row": 1, "col": column} if column else {}
    if log_scale:
        fig.update_xaxes(type="log", title="pooling's time over allocation's (log)", tickvals=[0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2],
                         ticktext=["0.1", "0.2", "0.3", "0.5", "0.7", "1", "1.5", "2"], **axis)
    else:
        fig.update_xaxes(title="pooling's loss less allocation's, points", range=[-100, 100], **axis)
    return rows


def forest(fits: Sequence[model.Fit], test: str = model.BATCH,
           reference: dict[tuple[str, str, str], float] | None = None) -> go.Figure:
    """A forest plot: per solution and case (rows) and host class (marker), the effect with its 95 % interval
    (thick) and the prediction for a new machine (thin), coloured by verdict, the margin drawn as a band, and
    the 2019 article's figure (a cross) where it has one."""
    fig = go.Figure()
    rows = _draw(fig, fits, test, None, reference or {}, set())
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=rows, title=None)
    fig.update_layout(height=120 + 26 * max(1, len(rows)), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "y": -0.12}, template="plotly_white")
    return fig


def forest_pair(fits: Sequence[model.Fit], reference: dict[tuple[str, str, str], float] | None = None) -> go.Figure:
    """The answer in one figure: batch (left) and real time at 1 µs (right), rows shared (forest's marks)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=("Batch: pooling's time over allocation's",
                                        "Real time at 1 µs: pooling's loss less allocation's, points"))
    shown: set = set()
    rows = _draw(fig, fits, model.BATCH, 1, reference or {}, shown)
    more = _draw(fig, fits, model.REALTIME, 2, reference or {}, shown)
    order = rows + [r for r in more if r not in rows]
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=order, title=None)
    # From the top: the tool bar, the key, the titles that say what each scale measures, the scales, the rows;
    # so that the first screen reads the key and the scales even where the rows run on below it.
    height = 150 + 24 * max(1, len(order))
    fig.update_xaxes(side="top", title=None)
    fig.update_annotations(yshift=24, font={"size": 15})
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 135, "b": 10},
                      legend={"orientation": "h", "yref": "container", "y": 1 - 32 / height, "yanchor": "top",
                              "x": 0, "font": {"size": 11}},
                      template="plotly_white")
    return fig


def budget_table(fits: Sequence[model.Fit]) -> pd.DataFrame:
    """analysis.model.budget for the reader: the boots each undecided comparison has and the boots more that
    would decide it."""
    table = model.budget(fits)
    more = ["unknown: one boot shows no spread between boots" if not math.isfinite(m) and now < 2 else
            "none would: its effect sits on the margin" if not math.isfinite(m) else
            f"over {model.MAX_BOOTS}" if n > model.MAX_BOOTS else f"{int(m)}"
            for m, n, now in zip(table["more boots"], table["boots to decide"], table["boots now"])]
    return table.assign(**{"more boots": more}).drop(columns=["boots to decide"])


def cores(runs: pd.DataFrame) -> pd.DataFrame:
    """Per solution, case and strategy of the batch runs: median wall and CPU time per packet and the cores the
    process kept busy (CPU over wall: 1 is one core, 2 both of a 2-CPU machine)."""
    batch = runs[(runs["test"] == model.BATCH)].dropna(subset=["ns_per_packet", "cpu_ns_per_packet"])
    if batch.empty:
        return pd.DataFrame(columns=["solution", "case", "strategy", "wall ns", "CPU ns", "cores busy"])
    table = batch.groupby(["solution", "case", "strategy"], sort=False).agg(
        wall=("ns_per_packet", "median"), cpu=("cpu_ns_per_packet", "median")).reset_index()
    table["cores busy"] = table["cpu"] / table["wall"]
    table["solution"] = table["solution"].map(short_label)
    table["strategy"] = table["strategy"].map({"alloc": "allocation", "pool": "pooling"})
    return table.rename(columns={"wall": "wall ns", "cpu": "CPU ns"})


def cores_figure(runs: pd.DataFrame) -> go.Figure:
    """CPU time against wall time per packet, every batch run of the answer: a run on the lower line kept one
    core busy, on the upper both of a 2-CPU machine."""
    batch = runs[(runs["test"] == model.BATCH)].dropna(subset=["ns_per_packet", "cpu_ns_per_packet"])
    fig = go.Figure()
    for strategy, colour in (("alloc", "#b2182b"), ("pool", "#1b7837")):
        part = batch[batch["strategy"] == strategy]
        fig.add_trace(go.Scatter(
            x=part["ns_per_packet"], y=part["cpu_ns_per_packet"], mode="markers",
            name={"alloc": "allocation", "pool": "pooling"}[strategy],
            marker={"color": colour, "size": 6, "opacity": 0.6},
            text=[f"{short_label(s)}, {c}" for s, c in zip(part["solution"], part["case"])],
            hovertemplate="%{text}: wall %{x:,.0f} ns, CPU %{y:,.0f} ns<extra></extra>"))
    if len(batch):
        low, high = float(batch["ns_per_packet"].min()) * 0.8, float(batch["ns_per_packet"].max()) * 1.2
        for busy in (1, 2):
            fig.add_trace(go.Scatter(x=[low, high], y=[busy * low, busy * high], mode="lines", showlegend=False,
                                     line={"color": "#555555", "width": 1, "dash": "dot"}, hoverinfo="skip"))
            fig.add_annotation(x=math.log10(high), y=math.log10(busy * high), text=f"{busy} core{'s' * (busy > 1)}",
                               showarrow=False, xanchor="right", yanchor="bottom")
    fig.update_xaxes(type="log", title="wall time per packet, ns (log scale)")
    fig.update_yaxes(type="log", title="process CPU time per packet, ns (log scale)")
    fig.update_layout(height=420, template="plotly_white", margin={"l": 10, "r": 10, "t": 30, "b": 10})
    return fig


def cores_sentence(runs: pd.DataFrame) -> str:
    """What the CPU time says of the two CPUs: the busiest and the least busy strategy and collector."""
    table = cores(runs)
    if table.empty:
        return "No batch run of the answer recorded its CPU time."
    java = table[table["solution"].isin([short_label(s) for s in ("parallel-11", "g1", "zgc")])]
    if java.empty:
        return ""
    by = java.groupby("strategy")["cores busy"].median()
    busiest = java.loc[java["cores busy"].idxmax()]
    return (f"In the median Java-on-heap run, allocation kept {by.get('allocation', math.nan):.2f} cores busy "
            f"and pooling {by.get('pooling', math.nan):.2f}; {busiest['solution']} case {busiest['case']} with "
            f"{busiest['strategy']} kept {busiest['cores busy']:.2f} of the 2. Where a run keeps more than one core "
            f"busy, the collector's threads work beside the consumer, and a machine with more CPUs would give them "
            f"cores of their own: a 2-CPU machine cannot say how the strategies compare there.")


def explained_table(runs: pd.DataFrame) -> pd.DataFrame:
    """analysis.model.explained for the reader: the term, its effect on pooling/allocation in percent with the
    interval, and the share of the boots' spread it explains alone."""
    table = model.explained(runs)
    if table.empty:
        return table
    return pd.DataFrame({"what the boot had": table["term"],
                         "change in pooling/allocation": [f"{c:+.0f} % ({lo:+.0f} to {hi:+.0f})" for c, lo, hi in
                                                          zip(table["coefficient_pct"], table["low_pct"],
                                                              table["high_pct"])],
                         "share of the boots' spread explained": [effects.pct(v) for v in table["r2"]]})
