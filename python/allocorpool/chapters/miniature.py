"""Chapter 12, the miniature: do the small profiles keep what decides the outcome?

A small profile scales every count of the model by its scale and the heaps with them (less the part
a collector needs whatever the live set), and its input queue's capacity in time as its pauses
measured, so that a pause keeps its ratio to what the queue bridges and the heap its ratio to the
live set. Whether that is enough is measured, not assumed: the sentinel cells (study.SENTINELS) are
run at the article's sizes (the full profile's store) and at the small profile's; a pause must
outlast the queue in both or in neither, and for each (solution, case) three things must agree: the
verdict (does it lose packets at 1000 ns?), the loss-free interval within a factor of two where both
find one, and the order of the strategies.
"""

from __future__ import annotations

import math

import pandas as pd

from allocorpool.analysis.search import REFERENCE_NS
from allocorpool.chapters import display as show
from allocorpool.chapters.claims import HOLDS, Verdict, every, show_claims
from allocorpool.chapters.claims import Claim as Check

FACTOR = 2.0


def loses_at_reference(row: dict) -> bool | None:
    """Whether a search's cell loses packets at 1000 ns: no loss-free interval, or one above 1000 ns."""
    if row.get("outcome") == "lost":
        return True
    if row.get("outcome") == "found":
        return row["interval_ns"] > REFERENCE_NS
    return None


def _order(part: pd.DataFrame) -> tuple[str, ...]:
    """Strategies from the best to the worst real-time figure: loss-free intervals from the shortest,
    then the cells that lose everywhere, from the one that loses least at 1000 ns, then the rest."""
    def rank(row: dict) -> tuple[int, float]:
        if row["outcome"] == "found":
            return 0, row["interval_ns"]
        if row["outcome"] == "lost" and row.get("loss_pct") is not None and not pd.isna(row["loss_pct"]):
            return 1, row["loss_pct"]
        return 2, math.inf
    key = {r["strategy_label"]: rank(r) for r in part.to_dict("records")}
    return tuple(sorted(key, key=lambda s: (key[s], s)))


def compare(small: pd.DataFrame, full: pd.DataFrame) -> pd.DataFrame:
    """One row per sentinel cell: both results, and whether verdict and interval agree; the strategy
    order of its (solution, case) alongside."""
    keys = ["solution", "label", "strategy_label", "case"]
    both = small[keys + ["outcome", "interval_ns", "loss_pct"]].merge(
        full[keys + ["outcome", "interval_ns", "loss_pct"]], on=keys, suffixes=("_small", "_full"))
    rows = []
    for record in both.to_dict("records"):
        mine = {"outcome": record["outcome_small"], "interval_ns": record["interval_ns_small"]}
        theirs = {"outcome": record["outcome_full"], "interval_ns": record["interval_ns_full"]}
        small_loses, full_loses = loses_at_reference(mine), loses_at_reference(theirs)
        verdict = None if small_loses is None or full_loses is None else small_loses == full_loses
        interval = None
        if mine["outcome"] == theirs["outcome"] == "found":
            ratio = mine["interval_ns"] / theirs["interval_ns"]
            interval = 1 / FACTOR <= ratio <= FACTOR
        rows.append({**{k: record[k] for k in keys}, "small": _text(record, "small"), "full": _text(record, "full"),
                     "verdict agrees": verdict, "interval within 2x": interval})
    table = pd.DataFrame(rows)
    orders = []
    for (solution, case), part in both.groupby(["solution", "case"], sort=False):
        s_part = small[(small["solution"] == solution) & (small["case"] == case)]
        f_part = full[(full["solution"] == solution) & (full["case"] == case)]
        judged = s_part["outcome"].isin(["found", "lost"]).all() and f_part["outcome"].isin(["found", "lost"]).all()
        orders.append({"solution": solution, "case": case, "order small": " < ".join(_order(s_part)),
                       "order full": " < ".join(_order(f_part)),
                       "order agrees": _order(s_part) == _order(f_part) if judged else None})
    return table.merge(pd.DataFrame(orders), on=["solution", "case"]) if len(table) else table


def _text(record: dict, side: str) -> str:
    outcome = record[f"outcome_{side}"]
    if outcome == "found":
        return f"{record[f'interval_ns_{side}']:.0f} ns"
    if outcome == "lost":
        loss = record[f"loss_pct_{side}"]
        return "lost" + (f" {loss:.2g}% at 1000 ns" if pd.notna(loss) else "")
    return str(outcome)


def _check(column: str, what: str = "sentinel cells"):
    def check(table: pd.DataFrame, **_: object) -> Verdict:
        rows = table.drop_duplicates(["solution", "case"]) if column == "order agrees" else table
        return every(rows, lambda r: r[column] if r[column] is not None and not pd.isna(r[column]) else None,
                     [c for c in rows.columns if c not in ("verdict agrees", "interval within 2x", "order agrees")]
                     + [column], what)
    return check


def _pauses_check(pauses: pd.DataFrame, **_: object) -> Verdict:
    return every(pauses, lambda r: bool(r["outlasts the queue in both or neither"]), list(pauses.columns),
                 "sentinel cells")


CHECKS = (
    Check("A pause outlasts the input queue in the small profile exactly when it does at the article's sizes",
          _pauses_check),
    Check("The verdict agrees: a cell loses packets at 1000 ns in the small profile exactly when it does at the "
          "article's sizes", _check("verdict agrees")),
    Check("The loss-free interval agrees within a factor of two where both find one", _check("interval within 2x")),
    Check("The strategies come in the same order", _check("order agrees", "solution and case pairs")),
)


def pauses(small: pd.DataFrame, full: pd.DataFrame, small_queue_ms: float, full_queue_ms: float) -> pd.DataFrame:
    """One row per sentinel cell with a finished batch run in both profiles (sweep.batch rows): the
    longest pause of each against its profile's input queue, and whether a pause outlasts the queue
    in both or in neither. That is what decides a real-time verdict, so it is what the small profile's
    queue must keep."""
    keys = ["solution", "label", "strategy_label", "case"]
    wanted = ["gc_pause_max_ms"]
    both = (small[small["status"] == "ok"][keys + wanted]
            .merge(full[full["status"] == "ok"][keys + wanted], on=keys, suffixes=("_small", "_full")))
    both = both.dropna(subset=["gc_pause_max_ms_small", "gc_pause_max_ms_full"])
    small_share = both["gc_pause_max_ms_small"] / small_queue_ms
    full_share = both["gc_pause_max_ms_full"] / full_queue_ms
    return pd.DataFrame({
        **{k: both[k] for k in keys},
        "longest pause small (ms)": both["gc_pause_max_ms_small"], "longest pause full (ms)": both["gc_pause_max_ms_full"],
        "small / full": (both["gc_pause_max_ms_small"] / both["gc_pause_max_ms_full"]).where(
            both["gc_pause_max_ms_full"] > 0),
        "pause / queue small": small_share, "pause / queue full": full_share,
        "outlasts the queue in both or neither": (small_share > 1) == (full_share > 1),
    }).reset_index(drop=True)


def show_pauses(table: pd.DataFrame, small_name: str, small_queue_ms: float, full_queue_ms: float) -> None:
    """The pause table and the queue its pauses call for."""
    if not len(table):
        show.note("No sentinel cell has a finished batch run in both profiles: the pauses cannot be compared yet.")
        return
    show.show_table(table.set_index(["label", "case", "strategy_label"]).drop(columns=["solution"]),
                    caption=f"The longest pause of each sentinel cell's batch run: profile {small_name} against "
                            f"the article's sizes, each against its input queue ({small_queue_ms:g} ms and "
                            f"{full_queue_ms:g} ms)")
    ratio = table["small / full"].dropna()
    if len(ratio):
        show.note(f"Profile {small_name}'s pauses are {ratio.median():.2g} x those at the article's sizes (the median "
                  f"of {len(ratio)} cells, from {ratio.min():.2g} to {ratio.max():.2g} x), so a queue of "
                  f"{full_queue_ms * ratio.median():.2g} ms keeps the median pause's share of the article's "
                  f"{full_queue_ms:g} ms; profile {small_name}'s holds {small_queue_ms:g} ms.")


def show_comparison(small: pd.DataFrame, full: pd.DataFrame, small_name: str, pause_table: pd.DataFrame) -> list:
    """The sentinel table and the checks of the miniature (pause_table: pauses())."""
    if not len(full):
        show.note("The full profile's store holds no sentinel search: there is nothing to compare with yet.")
        return []
    table = compare(small, full)
    show.show_table(table.set_index(["label", "case", "strategy_label"]).drop(columns=["solution"]),
                    caption=f"Sentinel cells: profile {small_name} against the article's sizes (profile full)")
    checked = [(check, check.check(table=table, pauses=pause_table), None) for check in CHECKS]
    show_claims(checked, f"Is profile {small_name} a true miniature?")
    holds = [v.verdict == HOLDS for _, v, _ in checked]
    show.note(f"{sum(holds)} of {len(holds)} checks hold: profile {small_name} "
              + ("keeps what decides the outcome on these cells." if all(holds) else
                 "does not keep everything that decides the outcome; the cells against it are listed above."))
    return checked

