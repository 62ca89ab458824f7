"""The kinds of cell a store holds: a registry on the ground floor, so the store rebuilds a stored cell
without knowing who defines it.

A cell is a frozen dataclass with a class attribute `kind`, a `key` and `params()` (its constructor's
arguments). The module that defines a kind registers its class here when it is imported (the run
layer's cells: run.runner's engine cells, run.event_echo's, run.binary_trees_variants's; importing
allocorpool.run registers all three); the store (data.store) names a stored cell's kind and asks
cell_class for it. Nothing here imports anything of the package.
"""

from __future__ import annotations

from typing import TypeVar

_KINDS: dict[str, type] = {}
_Cell = TypeVar("_Cell", bound=type)


def register(cls: _Cell) -> _Cell:
    """Registers a cell class under its `kind` (a class decorator); a kind names one class."""
    kind = getattr(cls, "kind", None)
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"{cls.__qualname__} has no `kind` to register under")
    known = _KINDS.get(kind)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(f"cell kind {kind!r} is {known.__qualname__}'s already, not {cls.__qualname__}'s")
    _KINDS[kind] = cls
    return cls


def cell_class(kind: str) -> type:
    """The cell class registered under a kind; a kind nobody registered is refused, naming the known ones."""
    if kind not in _KINDS:
        raise ValueError(f"unknown cell kind {kind!r}; known: {', '.join(sorted(_KINDS)) or 'none'} "
                         f"(a kind registers when its module is imported: import allocorpool.run)")
    return _KINDS[kind]


def known() -> tuple[str, ...]:
    """The registered kinds, sorted."""
    return tuple(sorted(_KINDS))
