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
