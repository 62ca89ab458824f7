"""Every binary-trees variant as built by `make binary-trees`: each prints the benchmarks game's check
lines at a small depth and a pause report its parser reads. Run by `make test-binary-trees`, which
names the build (ALLOC_OR_POOL_BINARY_TREES_BUILT); skipped where no build is named."""

import os
from pathlib import Path

import pytest

from allocorpool.run import binary_trees as bt

BUILT = os.environ.get("ALLOC_OR_POOL_BINARY_TREES_BUILT")
pytestmark = pytest.mark.skipif(not BUILT, reason="run by `make test-binary-trees` on a fresh build")
DEPTH = 8
RUNNABLE = [v for v in bt.VARIANTS if not v.unavailable]


def test_every_variant_was_built():
    missing = {v.name: bt.why_unavailable(v, Path(BUILT)) for v in RUNNABLE}
    assert {name: why for name, why in missing.items() if why} == {}


@pytest.mark.parametrize("variant", RUNNABLE, ids=lambda v: v.name)
def test_the_variant_prints_the_check_lines_and_its_pause_report(variant, tmp_path):
    result = bt.run_cell(bt.BinaryTreesCell(variant.name, DEPTH, 1), tmp_path, timeout_s=120, programs=Path(BUILT))
    assert result.status == "ok", f"{result.error}\n{result.stderr_tail}"
    summary = result.run.summary
    assert summary["runtime"] != "unknown" and summary["peak_rss_bytes"] > 0
    if variant.pauses is None:
        assert summary["pause_source"] == bt.NO_PAUSES
    if variant.pauses in ("deallocation", "boehm+deallocation"):  # a tree freed per iteration, and more
        assert summary["pause_count"] >= 2 ** (DEPTH - 4 + 4)
    if variant.pauses in ("boehm", "boehm+deallocation"):  # Boehm collects once as it starts
        assert summary["collections"] >= 1
