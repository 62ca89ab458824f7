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

