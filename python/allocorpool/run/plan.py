"""`make plan`: the cells a profile runs and about how long (cost.estimate), and the cost model held
against what the profile's store holds: its runs, and its searches replayed as the profile runs them."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from allocorpool import paths
from allocorpool.analysis import model
from allocorpool.data.records import MISSING
from allocorpool.run.cost import in_minutes, modelled_against_measured, search_s
from allocorpool.data.tables import value
from allocorpool.lists import REALTIME_STRATEGIES, Solution
from allocorpool.profiles import Profile
from allocorpool.run.blocks import BLOCKS_TABLE
from allocorpool.run.experiments import realtime as measure_realtime
from allocorpool.run.sweep import Sweep

Replayed = list[tuple[Solution, str, pd.DataFrame]]


def replayed_searches(sweep: Sweep) -> Replayed:
    """Each search of the sweep's solutions as its profile runs them, replayed from the store, with the
    index rows of its probes in order (its big-heap probe last, purpose "big heap"). A search the store
    lacks a probe of (another plan's, or one not run) is left out: its time says nothing of this plan's."""
    if not sweep.replay:
        raise ValueError("the check of the search model replays the store: make the sweep with replay=True")
    stored = {row["key"]: row for row in sweep.store.index.to_dict("records")}
    found = []
    for solution in sweep.solutions():
        for strategy in REALTIME_STRATEGIES:
            for case in sweep.profile.cases:
                row, probes = measure_realtime.search(sweep.executor, solution, strategy, case)
                purposes = dict(zip(probes["key"], probes["purpose"])) if len(probes) else {}
                for key in row["big_heap_keys"]:
                    purposes.setdefault(key, "big heap")
                read = [stored.get(key) for key in purposes]  # None: the store lacks it
                if row["outcome"] == MISSING or any(r is None for r in read):
                    continue
                runs = [{"purpose": purpose, "duration_s": value(r, "duration_s"),
                         "elapsed_s": value(r, "elapsed_s") or 0.0, "fill_s": value(r, "fill_s") or 0.0,
                         "series": bool(value(r, "series"))}
                        for purpose, r in zip(purposes.values(), read)]
                found.append((solution, case, pd.DataFrame(runs)))
    return found


def searches_against_model(prof: Profile, replayed: Replayed) -> pd.DataFrame:
    """The estimate's model of a search (cost.search_s) against the replayed searches (replayed_searches),
    with their engine time, by filler; a Java search with a probe in series against the model of a series,
    one whose probes all ran alone (stored before series) against that of probes alone."""
    alone = replace(prof, search=replace(prof.search, series=False))
    found = []
    for solution, case, probes in replayed:
        series = bool(probes["series"].any())
        found.append({"filler": solution.filler + (" in series" if series else ""), "probes": len(probes),
                      "measured_s": probes["elapsed_s"].sum(),
                      "model_s": search_s(solution, case, prof if series else alone)})
    if not found:
        return pd.DataFrame(columns=["searches", "probes", "measured_min", "model_min", "measured_per_model"])
    table = pd.DataFrame(found).groupby("filler").agg(searches=("probes", "size"), probes=("probes", "sum"),
                                                       measured_s=("measured_s", "sum"), model_s=("model_s", "sum"))
    return in_minutes(table, ["searches", "probes"], "all")


def search_time_by_purpose(prof: Profile, replayed: Replayed) -> pd.DataFrame:
    """Where the replayed searches' (replayed_searches) engine time goes: their probes by purpose
    (search.find_interval's: bracket, reference, bisect, confirm, repeat; and the big-heap probe) and length
    (short: the profile's probe, long: a confirmation's), with the part of it that filled the store before
    the clock started, which every probe of a Java search pays again."""
    if not replayed:
        return pd.DataFrame(columns=["probes", "min", "fill_min", "share"])
    probes = pd.concat([probes for _, _, probes in replayed], ignore_index=True)
    probes["length"] = probes["duration_s"].gt(prof.probe_s).map({True: "long", False: "short"})
    table = probes.groupby(["purpose", "length"]).agg(probes=("elapsed_s", "size"), seconds=("elapsed_s", "sum"),
                                                      fill_s=("fill_s", "sum"))
    table.loc[("all", ""), :] = table.sum()
    return pd.DataFrame({"probes": table["probes"].astype(int), "min": (table["seconds"] / 60).round(1),
                         "fill_min": (table["fill_s"] / 60).round(1),
                         "share": (table["seconds"] / table.loc[("all", ""), "seconds"]).round(2)})


def print_boot_budget(prof: Profile) -> None:
    """The boots that would decide the answer's undecided comparisons (analysis.model), from the profile's store,
    when it holds blocks."""
    index_path = paths.data_dir() / prof.name / "index.parquet"
    register_path = index_path.parent / f"{BLOCKS_TABLE}.parquet"
    if not index_path.exists() or not register_path.exists():
        return
    runs = model.answer_runs(pd.read_parquet(index_path), pd.read_parquet(register_path))
    if runs.empty:
        return
    print(f"the answer's boot budget, from the blocks in {paths.shown(index_path.parent)}:")
    print("\n".join(model.budget_lines(model.fits(runs))))


def print_model_check(prof: Profile, selection_name: str) -> None:
    """The estimate's model of a run and of a search (the selection's) against what the profile's store
    holds, when it holds some."""
    index_path = paths.data_dir() / prof.name / "index.parquet"
    if not index_path.exists():
        return
    index = pd.read_parquet(index_path)
    check = modelled_against_measured(index, prof.heap)
    if check.empty:
        return
    hosts = ", ".join(sorted(index["host"].dropna().unique()))
    print(f"the estimate's model of a run against the {check.loc[('all', ''), 'runs']} engine runs in "
          f"{paths.shown(index_path.parent)} (machines: {hosts}). Java's batch runs include chapter 13's bisections, "
          f"which fill slower near the minimum heap (the estimate takes {prof.heap.near_min_fill_factor:g} times "
          "the fill of a run for them); "
          "the notebooks' own work, the queue benchmark, binary trees and the event echo are not in the model:")
    print(check.to_string())
    replay = Sweep(prof, progress=False, replay=True, selection=selection_name)
    replayed = replayed_searches(replay)  # once for both tables: the replay loads the batch runs' GC logs
    searches = searches_against_model(prof, replayed)
    if not searches.empty:
        print("the estimate's model of a real-time search (its probes, with their fill and start-up) against the "
              "searches of the selected solutions as this profile runs them, replayed from the store (the newest "
              "run of each probe, whichever engine build made it; searches that lack a probe left out):")
        print(searches.to_string())
        print("where the replayed searches' engine time goes, by the purpose and length of their probes (fill_min: "
              "the part that filled the store before the clock started, paid again by every probe):")
        print(search_time_by_purpose(prof, replayed).to_string())
