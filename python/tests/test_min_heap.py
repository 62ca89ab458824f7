"""analysis/min_heap.py: the bisection over the heap, what counts as too small, and the overhead."""

import pandas as pd
import pytest

from allocorpool.data import records
from allocorpool.analysis.min_heap import (
    FAILED,
    FITS,
    HEAP_FAILURES,
    TOO_SMALL,
    HeapRun,
    find_min_heap,
    heap_verdict,
    lower_bound_overhead,
)


def needs(min_mb, failing=()):
    """A cell that completes from min_mb up; the heaps in `failing` crash for another reason."""
    asked = []

    def run(heap_mb):
        asked.append(heap_mb)
        if heap_mb in failing:
            return HeapRun(heap_mb, FAILED, "error", "exit code 134")
        return HeapRun(heap_mb, FITS) if heap_mb >= min_mb else HeapRun(heap_mb, TOO_SMALL, "error", "OOM")
    return run, asked


def test_the_bisection_finds_the_minimum_to_the_resolution():
    run, asked = needs(300)
    found = find_min_heap(run, start_mb=2048, resolution=0.05, floor_mb=16, cap_mb=10240)
    assert found.outcome == "found" and 300 <= found.min_heap_mb <= 300 * 1.05
    assert asked[:3] == [2048, 512, 128]  # down by four while it completes, then bisected
    assert list(found.runs["heap_mb"]) == asked and len(asked) <= 10


def test_a_heap_too_small_to_start_with_doubles_up_to_the_cap():
    run, asked = needs(5000)
    found = find_min_heap(run, start_mb=2048, resolution=0.05, floor_mb=16, cap_mb=10240)
    assert found.outcome == "found" and 5000 <= found.min_heap_mb <= 5250 and asked[:3] == [2048, 4096, 8192]
    run, _ = needs(50_000)
    assert find_min_heap(run, start_mb=2048, resolution=0.05, floor_mb=16, cap_mb=10240).outcome == "none"


def test_the_floor_and_a_failure_that_is_not_the_heaps():
    run, _ = needs(1)
    floor = find_min_heap(run, start_mb=100, resolution=0.05, floor_mb=16, cap_mb=1000)
    assert floor.outcome == "floor" and floor.min_heap_mb == 16
    run, _ = needs(300, failing={128})
    failed = find_min_heap(run, start_mb=2048, resolution=0.05, floor_mb=16, cap_mb=10240)
    assert failed.outcome == "failed" and failed.min_heap_mb is None and failed.error == "exit code 134"
    with pytest.raises(ValueError, match="floor_mb <= start_mb"):
        find_min_heap(run, start_mb=8, resolution=0.05, floor_mb=16, cap_mb=10240)


def test_the_engines_failure_code_says_whether_the_heap_was_too_small():
    assert heap_verdict("ok", None, "") == FITS
    for code in ("out_of_memory", "heap_full", "fill_timeout"):
        assert heap_verdict("error", code, None) == TOO_SMALL, code
    # The engine's own fill limit (605 s for a 5 s run) can end a run before the bisection's (10 x a fitted
    # fill: 667 s for G1 allocation C at full size); that run once failed the whole search.
    assert heap_verdict("error", "fill_timeout", "alloc-or-pool: run failed") == TOO_SMALL
    assert heap_verdict("error", "pool_exhausted", None) == FAILED
    # the code decides, not the text beside it: an engine's own error that mentions memory is not the heap's
    assert heap_verdict("error", "engine_error", "java.lang.OutOfMemoryError: Java heap space") == FAILED
    assert heap_verdict("timeout", None, "") == TOO_SMALL  # collections left no time to finish
    assert heap_verdict("missing", None, None) == FAILED
    assert HEAP_FAILURES <= set(records.FAILURES)


def test_what_a_jvm_says_when_it_dies_of_its_heap_before_the_engine_could_say_why():
    assert heap_verdict("error", None, 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space') \
        == TOO_SMALL
    assert heap_verdict("error", None, "Error occurred during initialization of VM\nToo small maximum heap") == TOO_SMALL
    assert heap_verdict("error", None, "Error occurred during initialization of VM\nZ heap too small, minimum 8M") \
        == TOO_SMALL
    assert heap_verdict("error", None, "SIGSEGV in libnativequeue.so") == FAILED


def test_the_overhead_is_against_the_cheapest_configuration_of_the_same_cell():
    runs = pd.DataFrame({"strategy": ["pool", "pool", "pool", "alloc"], "case": ["A"] * 4,
                         "solution": ["g1", "g1", "zgc", "g1"], "factor": [6, 2, 2, 6],
                         "ns_per_packet": [100.0, 150.0, None, 400.0]})
    overhead = lower_bound_overhead(runs, "ns_per_packet")
    assert overhead.iloc[0] == 0 and overhead.iloc[1] == pytest.approx(0.5)
    assert pd.isna(overhead.iloc[2]) and overhead.iloc[3] == 0  # alloc is its own cell


def test_the_cheapest_configuration_is_the_one_with_the_cheapest_median_of_its_repeats():
    # g1 at 6x: runs of 90, 200 and 210 (median 200); zgc at 6x: 150, 160, 170 (median 160)
    runs = pd.DataFrame({"strategy": ["pool"] * 6, "case": ["C"] * 6, "solution": ["g1"] * 3 + ["zgc"] * 3,
                         "factor": [6] * 6, "ns_per_packet": [90.0, 200.0, 210.0, 150.0, 160.0, 170.0]})
    overhead = lower_bound_overhead(runs, "ns_per_packet")
    assert overhead.tolist() == pytest.approx([90 / 160 - 1, 0.25, 210 / 160 - 1, 150 / 160 - 1, 0, 170 / 160 - 1])
