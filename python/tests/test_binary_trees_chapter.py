"""The binary-trees chapter's claims decide on the rows they name, and say so when a row is missing."""

import pandas as pd

from allocorpool.chapters import binary_trees as chapter
from allocorpool.run import binary_trees as bt


def table(**walls):
    """Rows as the driver's summary gives them: (wall, user, sys, longest pause) per variant."""
    rows = []
    for name, (wall, user, sys_, pause) in walls.items():
        v = bt.variant(name)
        rows.append({"variant": name, "label": v.label, "memory": v.memory, "bump_allocation": v.bump_allocation,
                     "mark_sweep": v.mark_sweep, "status": "ok", "wall_s": wall, "user_s": user, "sys_s": sys_,
                     "pause_max_ms": pause, "pause_source": "deallocation of each tree" if v.memory == "malloc/free"
                     else "collector"})
    return pd.DataFrame(rows)


def test_parallel_marking_needs_less_wall_and_more_cpu():
    holds = table(**{"c-boehm-1": (2.0, 2.0, 0.0, 5), f"c-boehm-{bt.MARKERS}": (1.5, 2.5, 0.0, 4)})
    assert chapter.claim_parallel_marking(holds).verdict == "holds"
    slower = table(**{"c-boehm-1": (2.0, 2.0, 0.0, 5), f"c-boehm-{bt.MARKERS}": (2.1, 2.5, 0.0, 4)})
    assert chapter.claim_parallel_marking(slower).verdict == "does not hold"
    missing = chapter.claim_parallel_marking(table(**{"c-boehm-1": (2.0, 2.0, 0.0, 5)}))
    assert missing.verdict == "cannot be decided" and f"c-boehm-{bt.MARKERS}" in missing.detail


def test_explicit_pauses_are_compared_with_mark_and_sweep_collectors_only():
    rows = table(**{"c-glibc": (1.0, 1.0, 0.0, 30.0), "d-classes": (3.0, 3.0, 0.0, 20.0),
                    "java11-cms": (0.5, 0.5, 0.0, 90.0)})
    verdict = chapter.claim_explicit_pauses(rows)
    assert verdict.verdict == "holds" and "Java 11, Concurrent Mark Sweep" in verdict.detail
    assert list(verdict.rows.index) == ["c-glibc", "d-classes", "java11-cms"]


def test_bump_allocation_holds_only_when_the_data_says_so():
    faster = table(**{"ocaml": (0.5, 0.5, 0.0, None), "java17-g1": (0.7, 0.4, 0.3, 10.0),
                      "c-jemalloc": (0.8, 0.8, 0.0, 5.0), "c-glibc": (1.2, 1.2, 0.0, 9.0)})
    assert chapter.claim_bump_allocation(faster).verdict == "holds"
    slower = faster.assign(wall_s=[0.9, 1.3, 0.8, 1.2])
    assert chapter.claim_bump_allocation(slower).verdict == "does not hold"


def test_a_variant_the_store_lacks_reads_not_measured_and_a_failure_its_error():
    # the full article's depth-21 rows, which no run had measured, read "missing: nan"
    glibc, jemalloc = bt.variant("c-glibc"), bt.variant("c-jemalloc")
    runs = pd.DataFrame([{"variant": "c-jemalloc", "depth": 21, "status": "error", "error": "exit code 1",
                          "runtime": None, "compiler": None, "pause_source": None, "pause_resolution_ms": None,
                          **dict.fromkeys(bt.FIGURES)}])
    rows = bt.summarise(runs, [glibc, jemalloc], {}, bt.profile("full"))
    shown = chapter.results_table(chapter.with_seed(rows[rows["depth"] == 21], chapter.load_seed(), 21))
    assert shown.loc[glibc.label, "status"] == "not measured"
    assert shown.loc[jemalloc.label, "status"] == "failed: exit code 1"



def test_runs_the_store_lacks_are_counted_apart_from_failures_and_the_claims_use_a_measured_depth():
    # the full article listed 360 "failed or timed out" runs, each "nan": 135 of depth 20's and all of 21's,
    # which the store does not hold; and it checked the claims at depth 21, where nothing ran
    prof = bt.profile("full")
    jemalloc = bt.variant("c-jemalloc")
    runs = pd.DataFrame([{"key": f"k{depth}{r}", "variant": "c-jemalloc", "depth": depth, "repetition": r,
                          "status": ("ok" if r <= 2 else "timeout" if r == 3 else None) if depth == 20 else None,
                          "error": "timed out" if (depth, r) == (20, 3) else None}
                         for depth in prof.depths for r in range(1, 6)])
    results = bt.Results(prof, runs, bt.summarise(runs.assign(**dict.fromkeys(
        ["runtime", "compiler", "pause_source", "pause_resolution_ms", *bt.FIGURES])), [jemalloc], {}, prof),
        pd.DataFrame())
    assert results.failures["key"].tolist() == ["k203"]
    assert len(results.missing) == 7
    assert chapter.missing_sentence(results) == (
        "7 of the profile's 10 runs are not measured: the store does not hold them (at depth 20, 2 of 5 runs "
        "(of 1 variant, repetitions 4, 5); at depth 21, every run). The figures below are those of the runs it holds.")
    tables = {depth: chapter.with_seed(results.table, chapter.load_seed(), depth) for depth in prof.depths}
    assert chapter.deepest_measured(tables) == 20


def test_a_depth_without_a_finished_run_is_left_out_of_the_figures_and_said_so(monkeypatch):
    # the full article drew three empty figures at depth 21, where the store holds no run
    said = []
    monkeypatch.setattr(chapter.show, "note", said.append)
    measured = table(**{"c-jemalloc": (1.0, 1.0, 0.0, 2.0)})
    empty = measured.assign(wall_s=float("nan"), status="missing")
    assert list(chapter.drawn({20: measured, 21: empty})) == [20]
    assert said == ["No run finished at depth 21 in this store, so the figures below leave it out."]
    said.clear()
    assert list(chapter.drawn({20: measured})) == [20] and not said
