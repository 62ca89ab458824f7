"""Chapter 12, the miniature: do the small profiles keep what decides the outcome?

A small profile scales every count of the model by its scale and the heaps with them (less the part
a collector needs whatever the live set), and its input queue's capacity in time as its pauses
measured (less the delay a packet sees whatever the live set, kept whole), so that a pause keeps
its ratio to what the queue bridges and the heap its ratio to the live set. Whether that is enough
is measured, not assumed: the sentinel cells (study.SENTINELS) are run at the article's sizes (the
full profile's store) and at the small profile's; a pause must outlast the queue in both or in
neither, and for each (solution, case) three things must agree: the verdict (does it lose packets at
1,000 ns?), the loss-free interval within a factor of two where both find one, and the order of the
strategies (a tie in either profile orders nothing).
"""

from __future__ import annotations

import math
from itertools import combinations

import pandas as pd

from allocorpool import effects
from allocorpool.analysis.search import REFERENCE_NS, RESOLUTION, loses_at_reference
from allocorpool.chapters.page import display as show
from allocorpool.analysis.claims import Claim as Check
from allocorpool.analysis.claims import every
from allocorpool.chapters.page.claims import show_claims
from allocorpool.effects import Verdict

FACTOR = 2.0
# A verdict at 1,000 ns is on the edge at the article's sizes when its own probes there cannot tell:
# loss-free and lossy probes within the search's resolution (10 %) of 1,000 ns, or a loss at 1,000 ns
# that the article's tables would print as 0 %.
EDGE_BAND = (round(REFERENCE_NS * (1 - RESOLUTION)), round(REFERENCE_NS * (1 + RESOLUTION)))
EDGE_LOSS_PCT = 0.5
LOOSE = 2.0  # a probe at this many times its cell's batch time per packet or more: its consumer is mostly idle


def _ranks(part: pd.DataFrame) -> dict[str, tuple[int, float]]:
    """Each strategy's real-time figure, best first: loss-free intervals from the shortest, then the
    cells that lose everywhere, from the one that loses least at 1,000 ns, then the rest."""
    def rank(row: dict) -> tuple[int, float]:
        if row["outcome"] == "found":
            return 0, row["interval_ns"]
        if row["outcome"] == "lost" and row.get("loss_pct") is not None and not pd.isna(row["loss_pct"]):
            return 1, row["loss_pct"]
        return 2, math.inf
    return {r["strategy_label"]: rank(r) for r in part.to_dict("records")}


def _order(ranks: dict[str, tuple[int, float]]) -> str:
    """The strategies from the best to the worst, "=" between a tie."""
    ordered = sorted(ranks, key=lambda s: (ranks[s], s))
    text = ordered[:1]
    for before, after in zip(ordered, ordered[1:]):
        text += [" = " if ranks[before] == ranks[after] else " < ", after]
    return "".join(text)


def _same_order(small: dict[str, tuple[int, float]], full: dict[str, tuple[int, float]]) -> bool:
    """No two strategies in opposite order: a tie in either profile is compatible with any order."""
    def sign(ranks: dict[str, tuple[int, float]], a: str, b: str) -> int:
        return (ranks[a] > ranks[b]) - (ranks[a] < ranks[b])
    pairs = combinations(sorted(small.keys() & full.keys()), 2)
    return all(sign(small, a, b) * sign(full, a, b) >= 0 for a, b in pairs)


def on_the_edge(probes: pd.DataFrame) -> dict[tuple[str, str, str], str]:
    """The cells whose verdict at 1,000 ns their own probes leave open (EDGE_BAND, EDGE_LOSS_PCT), keyed
    (solution, strategy_label, case), with why; probes: run.experiments.sentinels.sentinels(...).probes."""
    if not len(probes):
        return {}
    edges = {}
    finished = probes[probes["status"] == "ok"]
    for (solution, strategy, case), part in finished.groupby(["solution", "strategy_label", "case"]):
        near = part[part["interval_ns"].between(*EDGE_BAND)]
        at_reference = part[part["interval_ns"] == REFERENCE_NS]["lost_pct"].dropna()
        if near["ok"].any() and not near["ok"].all():
            edges[(solution, strategy, case)] = (f"loss-free and lossy probes between {EDGE_BAND[0]} and "
                                                 f"{EDGE_BAND[1]} ns")
        elif len(at_reference) and 0 < at_reference.max() < EDGE_LOSS_PCT:
            edges[(solution, strategy, case)] = f"lost {at_reference.max():.2g} % at 1,000 ns"
    return edges


def compare(small: pd.DataFrame, full: pd.DataFrame, edges: dict[tuple[str, str, str], str] | None = None,
            small_long: pd.DataFrame | None = None, full_long: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per sentinel cell: both results, and whether verdict and interval agree, with why the
    article's sizes leave its verdict open where they do (edges: on_the_edge of the full probes); the
    verdict over the long runs (run.experiments.sentinels.sentinel_long_runs of each profile) where both are
    given; the strategy order of its (solution, case) alongside."""
    edges = edges or {}
    long_runs = {side: _long_verdicts(table) for side, table in (("small", small_long), ("full", full_long))}
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
        cell = (record["solution"], record["strategy_label"], record["case"])
        edge = edges.get(cell)
        row = {**{k: record[k] for k in keys}, "small": _text(record, "small"), "full": _text(record, "full"),
               "verdict agrees": verdict, "on the edge at full size": edge or "",
               "verdict agrees off the edge": None if edge else verdict, "interval within 2x": interval}
        if small_long is not None and full_long is not None:
            (small_loses, small_text), (full_loses, full_text) = (long_runs[side].get(cell, (None, "not run"))
                                                                  for side in ("small", "full"))
            row |= {"small long run": small_text, "full long run": full_text,
                    "verdict agrees over a long run": None if small_loses is None or full_loses is None
                    else small_loses == full_loses}
        rows.append(row)
    table = pd.DataFrame(rows)
    orders = []
    for (solution, case), part in both.groupby(["solution", "case"], sort=False):
        s_part = small[(small["solution"] == solution) & (small["case"] == case)]
        f_part = full[(full["solution"] == solution) & (full["case"] == case)]
        judged = s_part["outcome"].isin(["found", "lost"]).all() and f_part["outcome"].isin(["found", "lost"]).all()
        small_ranks, full_ranks = _ranks(s_part), _ranks(f_part)
        orders.append({"solution": solution, "case": case, "order small": _order(small_ranks),
                       "order full": _order(full_ranks),
                       "order agrees": _same_order(small_ranks, full_ranks) if judged else None})
    return table.merge(pd.DataFrame(orders), on=["solution", "case"]) if len(table) else table


def _long_verdicts(table: pd.DataFrame | None) -> dict[tuple[str, str, str], tuple[bool | None, str]]:
    """Each cell's verdict at 1,000 ns over its long run (or its search's loss there), with a word on it."""
    verdicts = {}
    for r in (table.to_dict("records") if table is not None else []):
        if r["search_loses"]:
            text = "lost in the search"
        elif r["loses"] is None:
            text = f"{r['status']}: {r['error']}" if r.get("error") else str(r["status"])
        else:
            text = (f"lost {r['lost_pct']:.2g} % over {r['long_run_s']:g} s" if r["loses"]
                    else f"no loss over {r['long_run_s']:g} s")
        verdicts[(r["solution"], r["strategy_label"], r["case"])] = (None if r["loses"] is None else bool(r["loses"]),
                                                                    text)
    return verdicts


def _text(record: dict, side: str) -> str:
    outcome = record[f"outcome_{side}"]
    if outcome == "found":
        return f"{record[f'interval_ns_{side}']:,.0f} ns"
    if outcome == "lost":
        loss = record[f"loss_pct_{side}"]
        return "lost" + (f" {loss:.2g}% at 1,000 ns" if pd.notna(loss) else "")
    return str(outcome)


_JUDGED = ("verdict agrees", "verdict agrees off the edge", "verdict agrees over a long run", "interval within 2x",
           "order agrees")


def _check(column: str, what: str = "sentinel cells"):
    def check(table: pd.DataFrame, **_: object) -> Verdict:
        rows = table.drop_duplicates(["solution", "case"]) if column == "order agrees" else table
        if column not in rows:
            rows = rows.assign(**{column: None})
        return every(rows, lambda r: r[column] if r[column] is not None and not pd.isna(r[column]) else None,
                     [c for c in rows.columns if c not in _JUDGED] + [column], what)
    return check


def _pauses_check(pauses: pd.DataFrame, **_: object) -> Verdict:
    return every(pauses, lambda r: bool(r["outlasts the queue in both or neither"]), list(pauses.columns),
                 "sentinel cells")


CHECKS = (
    Check("A pause and the delay that does not scale outlast the input queue in the small profile exactly when "
          "they do at the article's sizes",
          _pauses_check),
    Check("The verdict agrees: a cell loses packets at 1,000 ns in the small profile exactly when it does at the "
          "article's sizes", _check("verdict agrees")),
    Check("The verdict agrees in every cell whose verdict the article's sizes decide (not on the edge)",
          _check("verdict agrees off the edge")),
    Check("The verdict agrees over a long run at 1,000 ns, long enough for the slowest collections that short probes "
          "can miss (where a search kept up at 1,000 ns)", _check("verdict agrees over a long run")),
    Check("The loss-free interval agrees within a factor of two where both find one", _check("interval within 2x")),
    Check("The strategies come in the same order", _check("order agrees", "solution and case pairs")),
)


def pauses(small: pd.DataFrame, full: pd.DataFrame, small_queue_ms: float, full_queue_ms: float,
           delay_ms: float = 0.0) -> pd.DataFrame:
    """One row per sentinel cell with a finished batch run in both profiles (sentinel_batch rows): the
    longest pause of each, plus the delay that does not scale (delay_ms: Profile.unscaled_delay_ms),
    against its profile's input queue, and whether the wait outlasts the queue in both or in neither.
    That is what decides a real-time verdict, so it is what the small profile's queue must keep."""
    keys = ["solution", "label", "strategy_label", "case"]
    wanted = ["gc_pause_max_ms"]
    both = (small[small["status"] == "ok"][keys + wanted]
            .merge(full[full["status"] == "ok"][keys + wanted], on=keys, suffixes=("_small", "_full")))
    both = both.dropna(subset=["gc_pause_max_ms_small", "gc_pause_max_ms_full"])
    small_share = (both["gc_pause_max_ms_small"] + delay_ms) / small_queue_ms
    full_share = (both["gc_pause_max_ms_full"] + delay_ms) / full_queue_ms
    return pd.DataFrame({
        **{k: both[k] for k in keys},
        "longest pause small (ms)": both["gc_pause_max_ms_small"], "longest pause full (ms)": both["gc_pause_max_ms_full"],
        "small / full": (both["gc_pause_max_ms_small"] / both["gc_pause_max_ms_full"]).where(
            both["gc_pause_max_ms_full"] > 0),
        "wait / queue small": small_share, "wait / queue full": full_share,
        "outlasts the queue in both or neither": (small_share > 1) == (full_share > 1),
    }).reset_index(drop=True)


def show_pauses(table: pd.DataFrame, small_name: str, small_queue_ms: float, full_queue_ms: float,
                delay_ms: float = 0.0) -> None:
    """The pause table and the queue its pauses call for."""
    if not len(table):
        show.note("No sentinel cell has a finished batch run in both profiles: the pauses cannot be compared yet.")
        return
    show.show_table(table.set_index(["label", "case", "strategy_label"]).drop(columns=["solution"]),
                    caption=f"The longest pause of each sentinel cell's batch run: profile {small_name} against "
                            f"the article's sizes; a packet waits that pause plus {delay_ms:g} ms that do not "
                            f"scale (below), each against its input queue ({small_queue_ms:g} ms and "
                            f"{full_queue_ms:g} ms)")
    ratio = table["small / full"].dropna()
    if len(ratio):
        show.note(f"Profile {small_name}'s pauses are {ratio.median():.2g} x those at the article's sizes (the median "
                  f"of {len(ratio)} cells, from {ratio.min():.2g} to {ratio.max():.2g} x), so a queue of "
                  f"{ratio.median():.2g} x ({full_queue_ms:g} - {delay_ms:g}) + {delay_ms:g} = "
                  f"{ratio.median() * (full_queue_ms - delay_ms) + delay_ms:.3g} ms keeps the median wait's share "
                  f"of the article's {full_queue_ms:g} ms; profile {small_name}'s holds {small_queue_ms:g} ms.")



def delays(probes: pd.DataFrame, batch: pd.DataFrame, index: pd.DataFrame) -> pd.DataFrame:
    """The wait beyond the pauses: for each finished Java probe (the sentinels' .probes) at LOOSE x its
    cell's batch time per packet or more, where the consumer keeps ahead of the clock, its longest
    metered latency less its longest GC pause (the store's index row). What remains is the delay a
    packet sees whatever the live set: it does not shrink with the sizes."""
    columns = ["solution", "label", "strategy_label", "case", "interval_ns", "longest pause (ms)",
               "longest latency (ms)", "beyond the pauses (ms)"]
    if not len(probes) or "latency_max_ns" not in probes:
        return pd.DataFrame(columns=columns)
    per_packet = batch[batch["status"] == "ok"].set_index(["solution", "strategy", "case"])["ns_per_packet"]
    rows = probes[(probes["status"] == "ok") & (probes["engine"] == "java")].dropna(subset=["latency_max_ns"])
    rows = rows.join(index.set_index("key")[["gc_pause_max_ms"]], on="key")
    batch_ns = [per_packet.get((r["solution"], r["strategy"], r["case"])) for r in rows.to_dict("records")]
    rows = rows[[ns is not None and r >= LOOSE * ns for ns, r in zip(batch_ns, rows["interval_ns"])]]
    pause = rows["gc_pause_max_ms"].fillna(0.0)
    latency = rows["latency_max_ns"] / 1e6
    return pd.DataFrame({**{k: rows[k] for k in columns[:5]}, "longest pause (ms)": pause,
                         "longest latency (ms)": latency, "beyond the pauses (ms)": latency - pause},
                        columns=columns).reset_index(drop=True)


def show_delays(table: pd.DataFrame, small_name: str, delay_ms: float) -> None:
    """The delays beyond the pauses, summarised per cell, against the profile's unscaled delay."""
    if not len(table):
        show.note(f"No Java probe of profile {small_name} metered its latency at {LOOSE:g} x its batch time or more: "
                  "the delay beyond the pauses cannot be measured here.")
        return
    per_cell = table.groupby(["label", "case", "strategy_label"])["beyond the pauses (ms)"].agg(
        probes="size", median="median", largest="max")
    show.show_table(per_cell.round(1), caption=f"Profile {small_name}: how much longer than its longest pause a "
                                               f"packet waited, in probes at {LOOSE:g} x the batch time or more")
    median = table["beyond the pauses (ms)"].median()
    show.note(f"The median over {len(table)} probes is {median:.2g} ms; profile {small_name} keeps {delay_ms:g} ms "
              f"of its queue whole for it: the delay that does not shrink with the sizes.")


def show_long_runs(long_runs: pd.DataFrame, name: str) -> None:
    """The long runs of one profile (sentinel_long_runs): which searches that kept up at 1,000 ns
    lost packets there over a long run."""
    ran = long_runs[long_runs["long_run_s"].notna()]
    if not len(ran):
        show.note(f"No sentinel search of profile {name} kept up at 1,000 ns: there is no long run to show.")
        return
    table = ran.set_index(["label", "case", "strategy_label"])[["long_run_s", "status", "lost_pct", "gc_pause_max_ms"]]
    shown = table.assign(long_run_s=table["long_run_s"].map(lambda v: f"{v:,.0f}"),
                         lost_pct=table["lost_pct"].map(lambda v: "—" if pd.isna(v) else f"{v:.3g}"),
                         gc_pause_max_ms=table["gc_pause_max_ms"].map(lambda v: "—" if pd.isna(v) else f"{v:.3g}"))
    show.show_table(shown, caption=f"Profile {name}: a long run at 1,000 ns of each sentinel search that kept up there")
    judged = ran[ran["loses"].notna()]
    show.note(f"{int(judged['loses'].astype(bool).sum())} of {len(judged)} searches that kept up at 1,000 ns lost "
              f"packets there over {ran['long_run_s'].max():g} s" + (f" ({len(ran) - len(judged)} did not finish)"
                                                                     if len(judged) < len(ran) else "") + ".")


def show_comparison(small: pd.DataFrame, full: pd.DataFrame, small_name: str, pause_table: pd.DataFrame,
                    full_probes: pd.DataFrame | None = None, small_long: pd.DataFrame | None = None,
                    full_long: pd.DataFrame | None = None) -> list:
    """The sentinel table and the checks of the miniature (pause_table: pauses(); full_probes: the full
    searches' probes, which say where a verdict is on the edge; *_long: each profile's long runs)."""
    if not len(full):
        show.note("The full profile's store holds no sentinel search: there is nothing to compare with yet.")
        return []
    table = compare(small, full, on_the_edge(full_probes) if full_probes is not None else None, small_long, full_long)
    show.show_table(table.set_index(["label", "case", "strategy_label"]).drop(columns=["solution"]),
                    caption=f"Sentinel cells: profile {small_name} against the article's sizes (profile full)")
    checked = [(check, check.check(table=table, pauses=pause_table), None) for check in CHECKS]
    show_claims(checked, f"Is profile {small_name} a true miniature?")
    holds = [v.outcome == effects.HOLDS for _, v, _ in checked]
    show.note(f"{sum(holds)} of {len(holds)} checks hold: profile {small_name} "
              + ("keeps what decides the outcome on these cells." if all(holds) else
                 "does not keep everything that decides the outcome; the cells against it are listed above."))
    return checked


def gc_shares(probes: pd.DataFrame, index: pd.DataFrame) -> pd.Series:
    """Per Java sentinel cell (label, strategy_label, case): the share of its first finished probe at 1,000 ns's
    measured window that its collections paused (gc_pause_total_ms over measured_s); cells not probed there
    are left out."""
    names = ["label", "strategy_label", "case"]
    if not len(probes):
        return pd.Series(dtype=float, index=pd.MultiIndex.from_tuples([], names=names))
    at = probes[(probes["interval_ns"] == REFERENCE_NS) & (probes["status"] == "ok") & (probes["engine"] == "java")]
    at = at.drop_duplicates(names)
    rows = index.set_index("key")[["gc_pause_total_ms", "measured_s"]].apply(pd.to_numeric, errors="coerce")
    found = at[at["key"].isin(rows.index)]
    measured = rows.loc[found["key"]]
    share = (measured["gc_pause_total_ms"] / 1000 / measured["measured_s"]).to_numpy()
    return pd.Series(share, index=pd.MultiIndex.from_frame(found[names]), name="gc_share").dropna()


def gc_share_sentence(small: pd.Series, full: pd.Series, small_name: str) -> str:
    """How much more of its time a small profile's probes spend paused than the article's sizes' (what the
    miniature does not keep), over the Java sentinel cells probed at 1,000 ns in both."""
    both = pd.concat([small.rename("small"), full.rename("full")], axis=1, join="inner")
    both = both[both["full"] > 0]
    if not len(both):
        return (f"No Java sentinel cell was probed at {REFERENCE_NS:,} ns in both profiles with a pause in the full "
                "size's window: the share of time paused is not compared.")
    ratio = both["small"] / both["full"]
    cells = f"{len(both)} Java cell{'s' if len(both) > 1 else ''}"
    return (f"Time paused, not kept: in the sentinel searches' probes at {REFERENCE_NS:,} ns, profile {small_name}'s "
            f"collections paused a median {ratio.median():.2g} x the share of the measured window that the article's "
            f"sizes' did ({cells} probed there in both; from {ratio.min():.2g} x to {ratio.max():.2g} x).")
