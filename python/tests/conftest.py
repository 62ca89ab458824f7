"""Shared paths of the committed fixtures."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def runs_dir() -> Path:
    return FIXTURES / "runs"


@pytest.fixture
def gclogs_dir() -> Path:
    return FIXTURES / "gclogs"


@pytest.fixture(autouse=True)
def _memory_latency_stood_in(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block's calibration times the memory's latency (some 16 s of a CPU and 1 GiB). The tests check what
    is recorded, not this machine, so they take fixed figures, but for those marked real_memory_latency (the
    program itself is cpp-lib's, tested there, and the notebook tests run it) and those of a module marked
    own_memory_latency, whose module-scoped fixtures calibrate before any test's stand-in would apply."""
    if all(request.node.get_closest_marker(name) is None for name in ("real_memory_latency", "own_memory_latency")):
        from allocorpool.run import machine_check

        monkeypatch.setattr(machine_check, "memory_latency",
                            lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 100.0))
