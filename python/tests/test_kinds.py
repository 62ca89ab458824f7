"""kinds.py: the registry of the kinds of cell a store holds, on the ground floor."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from allocorpool import kinds
from allocorpool.run.binary_trees_variants import BinaryTreesCell
from allocorpool.run.event_echo import EchoCell
from allocorpool.run.runner import Cell


def test_the_run_layer_registers_the_three_kinds_of_cell():
    assert {kind: kinds.cell_class(kind) for kind in ("engine", "event-echo", "binary-trees")} == {
        "engine": Cell, "event-echo": EchoCell, "binary-trees": BinaryTreesCell}


def test_a_kind_names_one_class_and_an_unknown_kind_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))

    @kinds.register
    @dataclass(frozen=True)
    class Probe:
        kind: ClassVar[str] = "probe-kind"
        n: int

    assert kinds.cell_class("probe-kind") is Probe and "probe-kind" in kinds.known()
    kinds.register(Probe)  # the same class again (a module imported twice): no change

    class Other:
        kind = "probe-kind"
    with pytest.raises(ValueError, match="'probe-kind' is .*Probe's already"):
        kinds.register(Other)

    class Nameless:
        pass
    with pytest.raises(ValueError, match="no `kind`"):
        kinds.register(Nameless)
    with pytest.raises(ValueError, match="unknown cell kind 'nope'; known: binary-trees, engine, event-echo"):
        kinds.cell_class("nope")
