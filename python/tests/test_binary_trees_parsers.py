"""The binary-trees driver's readers of each runtime's pause report, on small real outputs
(fixtures/binary-trees: each written by a program of binary-trees/ at a small depth)."""

from pathlib import Path

import pytest

from allocorpool.run import binary_trees as bt

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "binary-trees"


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_the_programs_timing_of_each_deallocation():
    pauses = bt.parse_deallocation(text("c-jemalloc.stderr"))
    assert (pauses.count, pauses.total_ms, pauses.max_ms) == (1362, 1.024, 0.088)
    assert pauses.table.empty and "deallocation" in pauses.source
    assert bt.allocator_line(text("c-jemalloc.stderr")).startswith("jemalloc 5.3.0")


def test_boehm_stats_give_one_pause_per_collection():
    log = text("c-boehm.stderr")
    pauses = bt.parse_boehm(log)
    assert pauses.count == pauses.collections == log.count("--> Marking for collection") == 6
    first = pauses.table.iloc[0]
    # World-stopped marking 0 ms 47391 ns, then finalize 0 ms 1091 ns + sweep start 0 ms 4858 ns
    assert first["name"] == "collection #1" and first["duration_ms"] == pytest.approx(0.047391 + 0.001091 + 0.004858)
    assert pauses.max_ms == pytest.approx(pauses.table["duration_ms"].max())


def test_boehm_incremental_collections_are_each_counted():
    log = text("c-boehm-incremental.stderr")
    pauses = bt.parse_boehm(log)
    assert pauses.count == log.count("--> Marking for collection") == 13
    assert (pauses.table["duration_ms"] > 0).all()


def test_boehm_with_explicit_free_keeps_both_kinds_of_pause():
    pauses = bt.parse_boehm_and_deallocation(text("c-boehm-free.stderr"))
    assert pauses.collections == 1 and pauses.count == 1 + 338
    assert pauses.max_ms == pytest.approx(max(0.017, 0.046730 + 0.000882 + 0.004967))
    assert pauses.total_ms == pytest.approx(0.396 + 0.046730 + 0.000882 + 0.004967)


def test_go_gctrace_gives_both_stop_the_world_phases_of_each_cycle():
    pauses = bt.parse_gctrace(text("go-gctrace.stderr"))
    assert pauses.collections == 18 and pauses.count == 36
    first_two = pauses.table.head(2)
    assert list(first_two["duration_ms"]) == [0.023, 0.068] and list(first_two["start_s"]) == [0.011, 0.011]
    assert list(first_two["name"]) == ["gc 1 sweep termination", "gc 1 mark termination"]


@pytest.mark.parametrize("log, collector, count, longest, collections", [
    ("java11-serial.gc.log", "serial", 4, 1.804, 4), ("java21-g1.gc.log", "g1", 1, 1.713, 1),
    ("java25-zgc-gen.gc.log", "zgc-gen", 16, 0.018, 4)])
def test_jvm_gc_logs_give_every_pause(log, collector, count, longest, collections):
    pauses = bt.parse_jvm(FIXTURES / log, collector)
    assert (pauses.count, pauses.max_ms, pauses.collections) == (count, longest, collections)
    ended = [line for line in text(log).splitlines() if "Pause" in line and line.endswith("ms") and "stats" not in line]
    assert len(ended) == count  # one line per pause with its duration: every one of them is counted


def test_d_profile_gives_collections_total_and_longest_pause_in_whole_ms():
    pauses = bt.parse_d(text("d-classes.stdout"))
    assert (pauses.collections, pauses.total_ms, pauses.max_ms, pauses.resolution_ms) == (29, 6.0, 0.0, 1.0)


def test_nim_statistics():
    refc = bt.parse_nim(text("nim-refc.stderr"))
    assert (refc.max_ms, refc.collections, refc.count, refc.resolution_ms) == (0.0, 151, None, 1.0)
    mark_and_sweep = bt.parse_nim(text("nim-markandsweep.stderr"))
    assert mark_and_sweep.max_ms is None and mark_and_sweep.collections == 34
    assert "no pause times" in mark_and_sweep.source


def test_ocaml_counters_give_collections_and_no_pauses():
    pauses = bt.parse_ocaml(text("ocaml.stderr"))
    assert pauses.collections == 3 and pauses.max_ms is None and pauses.count is None


@pytest.mark.parametrize("parser, words", [
    (bt.parse_deallocation, "deallocation pauses"), (bt.parse_d, "GC summary"), (bt.parse_nim, r"\[GC\]"),
    (bt.parse_ocaml, "minor_collections")])
def test_a_report_that_is_missing_is_an_error_naming_what_was_expected(parser, words):
    with pytest.raises(ValueError, match=words):
        parser("binary-trees: allocator something\n")


def test_the_expected_check_lines_are_the_programs_own():
    lines = text("d-classes.stdout").splitlines()
    assert lines[:len(bt.expected_output(12))] == bt.expected_output(12)
    assert bt.expected_output(2) == bt.expected_output(6)  # the program's smallest tree depth is 6
    assert bt.expected_output(6)[0] == "stretch tree of depth 7\t check: 255"
