"""The binary-trees chapter: its table, its figures' depths, and the original's claims, each decided by an effect
size over the runs (a ratio of medians with its 95 % interval clearing parity by the margin), never by one figure."""

import re

import pandas as pd
import pytest

from allocorpool import effects, profiles
from allocorpool.chapters import binary_trees as chapter
from allocorpool.chapters import binary_trees_claims as claims
from allocorpool.run import binary_trees as bt
from allocorpool.run.experiments import binary_trees as trees


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


def test_a_variant_the_store_lacks_reads_not_measured_and_a_failure_its_error():
    # the full article's depth-21 rows, which no run had measured, read "missing: nan"
    glibc, jemalloc = bt.variant("c-glibc"), bt.variant("c-jemalloc")
    runs = pd.DataFrame([{"variant": "c-jemalloc", "depth": 21, "status": "error", "error": "exit code 1",
                          "runtime": None, "compiler": None, "pause_source": None, "pause_resolution_ms": None,
                          **dict.fromkeys(trees.FIGURES)}])
    rows = trees.summarise(runs, [glibc, jemalloc], {}, profiles.profile("full"))
    shown = chapter.results_table(chapter.with_seed(rows[rows["depth"] == 21], chapter.load_seed(), 21))
    assert shown.loc[glibc.label, "status"] == "not measured"
    assert shown.loc[jemalloc.label, "status"] == "failed: exit code 1"
    assert "peak RSS, MB" not in shown.columns  # memory and pauses have their own table: one table, one screen wide
    memory = chapter.memory_table(chapter.with_seed(rows[rows["depth"] == 21], chapter.load_seed(), 21))
    assert jemalloc.label in memory.index and "longest pause, ms" in memory.columns
    # how pauses were read and on what runtime is provenance, folded apart: the table stays a screen wide
    assert "runtime" not in memory.columns
    provenance = chapter.provenance_table(chapter.with_seed(rows[rows["depth"] == 21], chapter.load_seed(), 21))
    assert list(provenance.columns) == ["variant", "pause source", "runtime", "compiler"]


def test_runs_the_store_lacks_are_counted_apart_from_failures_and_the_claims_use_a_measured_depth():
    # the full article listed 360 "failed or timed out" runs, each "nan": 135 of depth 20's and all of 21's,
    # which the store does not hold; and it checked the claims at depth 21, where nothing ran
    prof = profiles.profile("full")
    jemalloc = bt.variant("c-jemalloc")
    runs = pd.DataFrame([{"key": f"k{depth}{r}", "variant": "c-jemalloc", "depth": depth, "repetition": r,
                          "status": ("ok" if r <= 2 else "timeout" if r == 3 else None) if depth == 20 else None,
                          "error": "timed out" if (depth, r) == (20, 3) else None}
                         for depth in prof.binary_trees.depths for r in range(1, 6)])
    results = trees.Results(prof, runs, trees.summarise(runs.assign(**dict.fromkeys(
        ["runtime", "compiler", "pause_source", "pause_resolution_ms", *trees.FIGURES])), [jemalloc], {}, prof),
        pd.DataFrame())
    assert results.failures["key"].tolist() == ["k203"]
    assert len(results.missing) == 7
    assert chapter.missing_sentence(results) == (
        "7 of the profile's 10 runs are not measured: the store does not hold them (at depth 20, 2 of 5 runs "
        "(of 1 variant, repetitions 4, 5); at depth 21, every run). The figures below are those of the runs it holds.")
    tables = {depth: chapter.with_seed(results.table, chapter.load_seed(), depth) for depth in prof.binary_trees.depths}
    assert chapter.deepest_measured(tables) == 20


def test_a_depth_without_a_finished_run_is_left_out_of_the_figures_and_said_so(monkeypatch):
    # the full article drew three empty figures at depth 21, where the store holds no run
    said = []
    monkeypatch.setattr(chapter.show, "note", said.append)
    measured = table(**{"c-jemalloc": (1.0, 1.0, 0.0, 2.0)})
    empty = measured.assign(wall_s=float("nan"), status="missing")
    assert list(chapter.drawn({20: measured, 21: empty})) == [20]
    assert said == ["No run finished at depth 21 in this store, so the tables and figures below leave it out."]
    said.clear()
    assert list(chapter.drawn({20: measured})) == [20] and not said


# ---- The original's claims -------------------------------------------------------------------
def runs_of(**variants):
    """The claims' data from runs as the store gives them: per variant, (wall, user, sys, longest pause) of each run
    at depth 20, and the rows the driver summarises from them."""
    runs = []
    for name, figures in variants.items():
        source = "deallocation of each tree" if bt.variant(name).memory == "malloc/free" else "collector"
        for repetition, (wall, user, sys_, pause) in enumerate(figures, 1):
            runs.append({"key": f"{name}-{repetition}", "variant": name, "depth": 20, "repetition": repetition,
                         "status": "ok", "error": None, "runtime": None, "compiler": None, "pause_source": source,
                         "pause_resolution_ms": None, **dict.fromkeys(trees.FIGURES), "wall_s": wall, "user_s": user,
                         "sys_s": sys_, "pause_max_ms": pause})
    runs = pd.DataFrame(runs)
    rows = trees.summarise(runs, [bt.variant(name) for name in variants], {}, profiles.profile("full"))
    rows = rows[rows["depth"] == 20]
    return claims.Runs(rows, runs), rows


def walls(*values, cpu=None, sys_=0.0, pause=None):
    """Runs of the given wall times (CPU time as wall, or as given, of which sys_ is system time)."""
    return [(wall, (cpu or wall) - sys_, sys_, pause) for wall in values]


def pauses(*values):
    return [(1.0, 1.0, 0.0, pause) for pause in values]


SEED = chapter.load_seed()


def test_longest_pauses_whose_runs_overlap_read_no_difference_where_the_medians_said_holds():
    # the full store's depth 20: Boehm's explicit frees 148.7 and 128.0 ms, Nim's Boehm collector 134.1 and 128.0 ms;
    # the old chapter compared the two medians, 138.4 against 131.1 ms, and said "holds"
    data, rows = runs_of(**{"c-boehm-free": pauses(148.7, 128.0), "nim-boehm": pauses(134.1, 128.0),
                            "d-classes": pauses(130.0, 125.0), "java11-cms": pauses(338.0, 380.0)})
    medians = rows.set_index("variant")["pause_max_ms"]
    assert medians["c-boehm-free"] > medians["nim-boehm"]
    verdict = claims.claim_explicit_pauses(data, SEED)
    assert verdict.outcome == effects.NO_DIFFERENCE
    assert "1.06 x (0.95-1.16)" in verdict.summary and "Java 11, Concurrent Mark Sweep" in verdict.summary
    compared = " ".join(verdict.cells["comparison"])
    assert "Nim, Boehm GC, 2 markers" in compared and "D, classes" in compared and "Java" not in compared  # no JVM


@pytest.mark.parametrize("explicit, collector, outcome", [
    ((300.0, 310.0), (100.0, 105.0), effects.HOLDS),
    ((100.0, 105.0), (300.0, 310.0), effects.FAILS),
    ((300.0,), (100.0, 105.0), effects.NOT_MEASURED)])
def test_longest_pauses_are_decided_by_the_interval_of_the_ratio(explicit, collector, outcome):
    data, _ = runs_of(**{"c-glibc": pauses(*explicit), "d-classes": pauses(*collector)})
    assert claims.claim_explicit_pauses(data, SEED).outcome == outcome


def test_parallel_marking_needs_lower_wall_and_higher_cpu_time_each_beyond_the_margin():
    one, several = "c-boehm-1", f"c-boehm-{bt.MARKERS}"
    holds, _ = runs_of(**{one: walls(2.0, 2.05), several: walls(1.5, 1.52, cpu=2.5)})
    assert claims.claim_parallel_marking(holds, SEED).outcome == effects.HOLDS
    slower, _ = runs_of(**{one: walls(2.0, 2.05), several: walls(2.5, 2.52, cpu=3.0)})
    assert claims.claim_parallel_marking(slower, SEED).outcome == effects.FAILS
    # the old chapter: one figure each, 1.5 s against 2.0 s wall, 2.5 s against 2.0 s CPU: "holds"
    single, _ = runs_of(**{one: walls(2.0), several: walls(1.5, cpu=2.5)})
    verdict = claims.claim_parallel_marking(single, SEED)
    assert verdict.outcome == effects.NOT_MEASURED and "Fewer than two finished runs here" in verdict.summary
    # medians 1.7 s against 2.0 s, but the runs overlap
    overlapping, _ = runs_of(**{one: walls(1.6, 2.4), several: walls(1.4, 2.0, cpu=2.5)})
    assert claims.claim_parallel_marking(overlapping, SEED).outcome == effects.NO_DIFFERENCE


def test_bump_allocation_counts_its_pairs_where_the_old_chapter_took_the_fastest_and_the_median():
    clear, _ = runs_of(ocaml=walls(0.5, 0.52), **{"java17-g1": walls(0.7, 0.71), "c-jemalloc": walls(0.8, 0.82),
                                                  "c-glibc": walls(1.2, 1.22)})
    verdict = claims.claim_bump_allocation(clear, SEED)
    assert verdict.outcome == effects.HOLDS and "holds in 4 of 4 pairs" in verdict.summary
    # the old chapter: the fastest and the median bump-allocating runtime beat the fastest and median explicit: "holds"
    mixed, _ = runs_of(ocaml=walls(0.5, 0.52), **{"java17-g1": walls(1.0, 1.02), "c-jemalloc": walls(0.8, 0.82),
                                                  "c-glibc": walls(1.5, 1.52)})
    verdict = claims.claim_bump_allocation(mixed, SEED)
    assert verdict.outcome == "mixed" and "holds in 3, fails in 1 of 4 pairs" in verdict.summary
    assert verdict.cells["verdict"].iloc[0] == effects.FAILS  # the pair against it first


def test_ocaml_is_fastest_only_where_it_beats_every_other_variant_beyond_the_margin():
    # the old chapter ranked medians: 1.2 s against 1.3 s made OCaml first, "holds"
    close, _ = runs_of(ocaml=walls(1.0, 1.4), **{"java11-serial": walls(1.1, 1.5), "c-glibc": walls(3.0, 3.1)})
    verdict = claims.claim_ocaml_fastest(close, SEED)
    assert verdict.outcome == effects.NO_DIFFERENCE
    assert "holds in 1, undecided in 1 of 2 variants" in verdict.summary
    beaten, _ = runs_of(ocaml=walls(1.0, 1.02), **{"c-arena": walls(0.5, 0.51), "c-glibc": walls(3.0, 3.1)})
    assert claims.claim_ocaml_fastest(beaten, SEED).outcome == effects.FAILS


def test_two_variant_claims_read_no_difference_where_the_runs_overlap_and_the_original_decides_nothing():
    # each old check compared two medians with no margin: every one of these said "holds"
    freed, _ = runs_of(**{"c-boehm-1": walls(2.0, 2.2), "c-boehm-free": walls(2.05, 2.25)})
    assert claims.claim_batched_frees(freed, SEED).outcome == effects.NO_DIFFERENCE
    locked, _ = runs_of(**{"rust-dlmalloc": walls(1.0, 1.1), "rust-dlmalloc-locked": walls(1.02, 1.12)})
    verdict = claims.claim_lock(locked, SEED)
    assert verdict.outcome == effects.NO_DIFFERENCE  # though the original's single runs took 3.82 s and 13.60 s
    assert "3.82 s" in verdict.summary and "13.60 s" in verdict.summary and "Context only" in verdict.summary
    system, _ = runs_of(**{"c-glibc": walls(3.0, 3.1), "c-jemalloc": walls(1.0, 1.05), "c-mimalloc": walls(1.0, 1.1),
                           "c-tcmalloc": walls(2.9, 3.05)})
    verdict = claims.claim_system_malloc(system, SEED)
    assert verdict.outcome == effects.NO_DIFFERENCE and "C, tcmalloc" in verdict.summary
    assert "macOS" in verdict.summary  # the original's system allocator is no glibc
    incremental, _ = runs_of(**{"c-boehm-incremental": walls(2.0, 2.4, sys_=1.0),
                                f"c-boehm-{bt.MARKERS}": walls(1.9, 2.3, sys_=0.05)})
    assert claims.claim_incremental_sys(incremental, SEED).outcome == effects.NO_DIFFERENCE
    clear, _ = runs_of(**{"c-boehm-incremental": walls(3.0, 3.1, sys_=1.0),
                          f"c-boehm-{bt.MARKERS}": walls(1.9, 2.0, sys_=0.05)})
    assert claims.claim_incremental_sys(clear, SEED).outcome == effects.HOLDS


def test_the_claims_read_in_short_sentences_without_internal_names(monkeypatch):
    names = ["c-glibc", "c-jemalloc", "c-mimalloc", "c-tcmalloc", "c-boehm-1", f"c-boehm-{bt.MARKERS}", "c-boehm-free",
             "c-boehm-incremental", "rust-dlmalloc", "rust-dlmalloc-locked", "ocaml", "java11-g1", "d-classes"]
    everything = {name: walls(1.0 + i / 10, 1.05 + i / 10, sys_=0.01, pause=float(10 + i))
                  for i, name in enumerate(names)}
    data, rows = runs_of(**everything)
    verdicts = claims.claims(rows, data.runs, SEED)
    assert len(verdicts) == len(claims.CLAIMS)
    for verdict in verdicts:
        assert verdict.outcome in (*effects.OUTCOMES, effects.MIXED)
        text = claims.text(verdict)
        assert f"*{verdict.words[:1].upper()}{verdict.words[1:]}.*" in text and "Rule:" in text
        for sentence in re.split(r"(?<=[.:])\s+", text):
            assert len(sentence.split()) < 50, sentence
        assert not re.search(r"free\(\)|_s\b|_ms\b|c-boehm|rust-dl|java11-", text), text
    shown = []
    monkeypatch.setattr(claims.show, "note", lambda text: shown.append(text))
    monkeypatch.setattr(claims.show, "show_details", lambda summary, table: shown.append((summary, len(table))))
    claims.show_claims(verdicts[3:5])  # one comparison each: the batched frees, the lock
    assert shown == [claims.text(verdicts[3]), ("The comparison behind it", 1),
                     claims.text(verdicts[4]), ("The comparison behind it", 1)]


def test_the_machine_table_counts_the_commits_of_runs_recorded_a_variant_at_a_time():
    # the full article listed 48 commit hashes in one cell: each variant's runs were committed before the next ran
    prof = profiles.profile("full")
    commits = [f"{n:012x}" for n in range(48)] + ["0000000000ab-dirty"]
    runs = pd.DataFrame([{"cpu_model": "Intel(R) Xeon(R) Processor", "cpus": 2, "memory_bytes": 24 * 2**30,
                          "kernel": "Linux 6.18", "host": "vm", "commit": c} for c in commits])
    table = chapter.machine_table(trees.Results(prof, runs, pd.DataFrame(), pd.DataFrame()))
    assert table.loc["commit", "value"] == "49 commits, 1 with uncommitted changes"
    assert table.loc["CPU", "value"] == "Intel Xeon Processor"
    few = chapter.machine_table(trees.Results(prof, runs.head(2), pd.DataFrame(), pd.DataFrame()))
    assert few.loc["commit", "value"] == "000000000000, 000000000001"
