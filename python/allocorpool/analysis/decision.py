"""The decision chart: for a message rate, a live set and a budget (no loss, or no loss and a metered
latency percentile under a limit), which strategy and solution holds, by what margin, and on which cells
that rests.

Every real-time measurement of the study is a point: a live set (packets held: the internal FIFO and
the store) and an interval between packets, with a verdict.
- A search (run.experiments.realtime) gives the smallest loss-free interval of its case, or, where none was
  loss-free up to the largest interval probed, that it loses there.
- A probe at one interval (the continuum's, the JDKs chapter's) keeps up there or loses there.
Two monotonic facts decide a question from points that are not exactly on it: a larger live set is
never easier (more to copy, a longer collection), and a longer interval is never harder. So a
solution *holds* at (interval, live set) when a point with at least that live set was loss-free at
that interval or a shorter one; it *fails* when a point with at most that live set lost at that
interval or a longer one; otherwise the study has not measured it, and the cell that would decide
it is listed to run. A loss at conditions no harder than the question's outweighs any loss-free
point: a loss is a fact, a loss-free run only a sample. The facts are a premise, and the store can
contradict it: a loss with a smaller live set at a clearly longer interval (EDGE: near a cell's edge
probes lose or keep up by chance) than a loss-free point's. For such a pair only its points at the
question's live set decide.

The margin of a solution that holds is the question's interval over the
smallest loss-free interval that proves it: how much faster the messages could come.

A latency budget (`parse_budget`: "p99.9 <= 5 ms") adds the metered latency of the loss-free point:
it proves only where its percentile is within the limit, and a loss-free point with at most the live
set, at that interval or a longer one, whose percentile exceeds the limit makes the pair fail (the
same two monotonic facts, for lateness). A point measured before the engines metered latency proves
nothing under a latency budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from allocorpool.analysis.search import LATENCY_FIELDS
from allocorpool.effects import FAILS, HOLDS, NOT_MEASURED

POINT_COLUMNS = ["solution", "label", "engine", "strategy", "strategy_label", "live_packets", "loss_free_ns",
                 "loses_at_ns", *LATENCY_FIELDS, "source", "key", "machine"]
# The percentiles a latency budget may name, and the point's field that holds each.
PERCENTILES = {"p50": "latency_p50_ns", "p99": "latency_p99_ns", "p99.9": "latency_p999_ns", "max": "latency_max_ns"}
NO_LOSS = "no loss"
_BUDGET = re.compile(r"\s*(p50|p99\.9|p99|max)\s*(?:<=|≤)\s*(\d+(?:\.\d+)?)\s*ms\s*")


@dataclass(frozen=True)
class Budget:
    """What a pair must do to hold: lose nothing and, when `percentile` is set, make that percentile of
    its packets no later than `limit_ms` after they were due."""

    percentile: str | None = None  # a key of PERCENTILES
    limit_ms: float | None = None

    @property
    def field(self) -> str | None:
        return PERCENTILES[self.percentile] if self.percentile else None

    def __str__(self) -> str:
        return NO_LOSS if self.percentile is None else f"no loss and {self.percentile} ≤ {self.limit_ms:g} ms"


def parse_budget(text: str) -> Budget:
    """"no loss", or a percentile of the metered latency under a limit: "p99.9 <= 5 ms" (p50, p99, p99.9 or
    max; <= or ≤; milliseconds)."""
    if text.strip() == NO_LOSS:
        return Budget()
    match = _BUDGET.fullmatch(text)
    if not match:
        raise ValueError(f"budget {text!r}: either {NO_LOSS!r} or a latency percentile under a limit in ms, "
                         f"such as 'p99.9 <= 5 ms' (percentiles: {', '.join(PERCENTILES)})")
    return Budget(match.group(1), float(match.group(2)))

ANSWER_COLUMNS = ["solution", "label", "engine", "strategy", "strategy_label", "verdict", "margin", "rule", "proof",
                  "proof_live_packets", "proof_key"]
# How a pair was decided: from any point, by the two monotonic facts, or, where the pair's own points contradict
# them, only from points at the question's live set.
MONOTONIC = "any live set"
SAME_LIVE_SET = "this live set only"


# Near the shortest interval a cell keeps up at, probes of one cell both lose and keep up by chance; a loss
# contradicts the premises only clearly away from that edge: at an interval this much longer (the search's
# resolution) with a smaller live set.
EDGE = 0.10


def contradictions(part: pd.DataFrame) -> list[tuple[int, int]]:
    """The (loss-free, lossy) point pairs of one (solution, strategy) that break the premise that a larger live
    set is never easier: a loss with a smaller live set at a clearly longer interval (EDGE) than a loss-free
    point's. Index labels."""
    free = part.dropna(subset=["loss_free_ns"])
    lost = part.dropna(subset=["loses_at_ns"])
    return [(f, lo) for f, fr in free.iterrows() for lo, lr in lost.iterrows()
            if lr["live_packets"] < fr["live_packets"] and lr["loses_at_ns"] >= fr["loss_free_ns"] * (1 + EDGE)]


def search_points(searches: pd.DataFrame, live_packets: dict[str, int], high_ns: int,
                  probes: pd.DataFrame | None = None) -> pd.DataFrame:
    """The points of the real-time searches: a found interval is loss-free there; a search that found
    none lost at every interval up to high_ns. With the searches' probes, a search that found an interval
    also lost at the longest interval any of its probes lost at (below the one found, or a probe there that
    a repeat contradicted): a loss is a fact at its rate, where a loss-free probe needs its second one.
    Failed and missing searches say nothing."""
    rows = []
    cells = ("solution", "strategy", "case")
    lossy = (probes[(probes["status"] == "ok") & ~probes["ok"].astype(bool)] if probes is not None and len(probes)
             else pd.DataFrame(columns=[*cells, "interval_ns", "key", "machine"]))
    slowest_loss = lossy.sort_values("interval_ns").groupby(list(cells)).tail(1).set_index(list(cells))
    for row in searches.to_dict("records"):
        if row["outcome"] not in ("found", "lost"):
            continue
        found = row["outcome"] == "found"
        labels = {c: row[c] for c in ("solution", "label", "engine", "strategy", "strategy_label")}
        rows.append({**labels, "live_packets": live_packets[row["case"]],
                     "loss_free_ns": row["interval_ns"] if found else None, "loses_at_ns": None if found else high_ns,
                     **{name: row.get(name) if found else None for name in LATENCY_FIELDS},
                     "source": f"search, case {row['case']}", "key": row.get("reference_key"),
                     "machine": row.get("machine")})
        cell = tuple(row[c] for c in cells)
        if found and cell in slowest_loss.index:
            probe = slowest_loss.loc[cell]
            rows.append({**labels, "live_packets": live_packets[row["case"]], "loss_free_ns": None,
                         "loses_at_ns": int(probe["interval_ns"]), **dict.fromkeys(LATENCY_FIELDS),
                         "source": f"search probe, case {row['case']}", "key": probe["key"],
                         "machine": probe["machine"]})
    return pd.DataFrame(rows, columns=POINT_COLUMNS)


def probe_points(probes: pd.DataFrame, source: str) -> pd.DataFrame:
    """The points of single probes (columns live_packets, interval_ns, keeps_up, probe_key): loss-free
    or lost at their interval; a probe that failed says nothing."""
    done = probes.dropna(subset=["keeps_up"])
    keeps = done["keeps_up"].astype(bool)
    return pd.DataFrame({
        **{c: done[c] for c in ("solution", "label", "engine", "strategy", "strategy_label", "live_packets")},
        "loss_free_ns": done["interval_ns"].where(keeps), "loses_at_ns": done["interval_ns"].where(~keeps),
        **{name: done[name].where(keeps) for name in LATENCY_FIELDS},
        "source": source, "key": done["probe_key"], "machine": done["machine"]}, columns=POINT_COLUMNS)


def decide(points: pd.DataFrame, rate_per_s: float, live_packets: int, budget: Budget = Budget()) -> pd.DataFrame:
    """A row per (solution, strategy) with points: holds, fails or not measured at the question's rate,
    live set and budget, with the margin and the point that proves it. Those that hold come first, widest
    margin first, then those not measured, then those that fail."""
    if not rate_per_s > 0 or not live_packets > 0:
        raise ValueError(f"the rate ({rate_per_s}) and the live set ({live_packets}) must be positive")
    interval = 1e9 / rate_per_s
    rows = []
    for (solution, strategy), part in points.groupby(["solution", "strategy"], sort=False):
        first = part.iloc[0]
        monotonic = not contradictions(part)
        if monotonic:
            proving = part[(part["live_packets"] >= live_packets) & (part["loss_free_ns"] <= interval)]
            against = part[(part["live_packets"] <= live_packets) & (part["loses_at_ns"] >= interval)]
        else:  # the pair's own points break the premise: only points at this live set decide
            here = part[part["live_packets"] == live_packets]
            against = here[here["loses_at_ns"] >= interval]
            proving = here[here["loss_free_ns"] <= interval]
        if budget.field:
            limit_ns = budget.limit_ms * 1e6
            latency = pd.to_numeric(part[budget.field], errors="coerce")
            proving = proving[latency[proving.index] <= limit_ns]
            too_late = part[(part["live_packets"] <= live_packets) & (part["loss_free_ns"] >= interval)
                            & (latency > limit_ns)]
            against = pd.concat([against, too_late])
            against = against[~against.index.duplicated()]
        verdict, margin, proof = NOT_MEASURED, None, None
        if len(against):  # a loss at conditions no harder than the question's is a fact; a loss-free run is not
            proving = proving.head(0)
        if len(proving):
            proof = proving.loc[proving["loss_free_ns"].idxmin()]
            verdict, margin = HOLDS, interval / proof["loss_free_ns"]
        elif len(against):
            proof = against.loc[against["live_packets"].idxmin()]
            verdict = FAILS
        rows.append({"solution": solution, "label": first["label"], "engine": first["engine"], "strategy": strategy,
                     "strategy_label": first["strategy_label"], "verdict": verdict, "margin": margin,
                     "rule": MONOTONIC if monotonic else SAME_LIVE_SET,
                     "proof": None if proof is None else _proof_text(proof, budget),
                     "proof_live_packets": None if proof is None else proof["live_packets"],
                     "proof_key": None if proof is None else proof["key"]})
    answer = pd.DataFrame(rows, columns=ANSWER_COLUMNS)
    order = answer["verdict"].map({HOLDS: 0, NOT_MEASURED: 1, FAILS: 2})
    return answer.assign(_order=order, _margin=-answer["margin"].fillna(0)).sort_values(
        ["_order", "_margin"], kind="stable").drop(columns=["_order", "_margin"]).reset_index(drop=True)


def _proof_text(point: pd.Series, budget: Budget) -> str:
    if pd.notna(point["loss_free_ns"]):
        late = ""
        if budget.field and pd.notna(point[budget.field]):
            late = f", {budget.percentile} {point[budget.field] / 1e6:.3g} ms late"
        return (f"{point['source']}: loss-free at {point['loss_free_ns']:,.0f} ns{late} with "
                f"{point['live_packets']:,} packets live")
    return f"{point['source']}: loses at {point['loses_at_ns']:,.0f} ns with {point['live_packets']:,} packets live"


def frontier(points: pd.DataFrame) -> pd.DataFrame:
    """Per (solution, strategy, live set): the highest rate known loss-free (packets per second), from
    the smallest loss-free interval at that live set; live sets with only losses are left out."""
    found = points.dropna(subset=["loss_free_ns"])
    best = found.groupby(["solution", "label", "engine", "strategy", "strategy_label", "live_packets"], sort=False)[
        "loss_free_ns"].min().reset_index()
    return best.assign(rate_per_s=1e9 / best["loss_free_ns"])
