"""Paths the study prints name no folder of the machine that built it."""

from __future__ import annotations

from pathlib import Path

from allocorpool import paths


def test_a_path_is_shown_relative_to_the_checkout_or_home():
    assert paths.shown(paths.project_root() / "data" / "quick") == "data/quick"
    assert paths.shown(Path.home() / "stores" / "full") == "~/stores/full"
    assert paths.shown(Path("/opt/elsewhere")) == "/opt/elsewhere"
