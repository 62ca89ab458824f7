"""The package's settings: every ALLOC_OR_POOL_* environment variable it reads, read here and only here.

make sets them from its own variables (PROFILE, SOLUTIONS, SCHEDULER, ...); a notebook, a test or a
shell may set them too. Each is read when it is asked for, never at import, so that a setting changed
in a session counts from then on. An empty value counts as unset.
"""

from __future__ import annotations

import os

HOME_VARIABLE = "ALLOC_OR_POOL_HOME"  # the checkout (unset: two levels above the package)
PROFILE_VARIABLE = "ALLOC_OR_POOL_PROFILE"  # the profile a notebook or sweep runs (make's PROFILE)
DATA_VARIABLE = "ALLOC_OR_POOL_DATA"  # its store (unset: data/<profile>)
REPLAY_VARIABLE = "ALLOC_OR_POOL_REPLAY"  # "1": read the stores only, never run a cell (make article)
SOLUTIONS_VARIABLE = "ALLOC_OR_POOL_SOLUTIONS"  # a selection of solutions (lists.SELECTIONS): make's SOLUTIONS
SCHEDULER_VARIABLE = "ALLOC_OR_POOL_SCHEDULER"  # a Dask scheduler: cells run on its workers (make's SCHEDULER)
SLOTS_VARIABLE = "ALLOC_OR_POOL_SLOTS"  # how many blocks run side by side here (run.slots; make's SLOTS)
MACHINE_CHECK_VARIABLE = "ALLOC_OR_POOL_MACHINE_CHECK"  # run.machine_check.MODES
COMMIT_VARIABLE = "ALLOC_OR_POOL_COMMIT"  # the commit the engines put in their header (make exports it)
DEFAULT_PROFILE = "quick"
DEFAULT_SELECTION = "all"


def _value(name: str) -> str | None:
    return os.environ.get(name) or None


def home() -> str | None:
    """The checkout named by HOME_VARIABLE (None: the package's own)."""
    return _value(HOME_VARIABLE)


def profile_name(name: str | None = None, default: str = DEFAULT_PROFILE) -> str:
    """The profile asked for: name if given, else PROFILE_VARIABLE's, else the default."""
    return name or _value(PROFILE_VARIABLE) or default


def data_dir() -> str | None:
    """The store folder named by DATA_VARIABLE (None: the profile's own, data/<profile>)."""
    return _value(DATA_VARIABLE)


def replaying() -> bool:
    """Whether this process only reads stores (make article sets REPLAY_VARIABLE to 1)."""
    return os.environ.get(REPLAY_VARIABLE) == "1"


def selection_name() -> str:
    """The selection of solutions a sweep shows (SOLUTIONS_VARIABLE's, else every solution)."""
    return _value(SOLUTIONS_VARIABLE) or DEFAULT_SELECTION


def scheduler() -> str | None:
    """The Dask scheduler's address the cells run on (None: they run here)."""
    return _value(SCHEDULER_VARIABLE)


def slots() -> int | None:
    """The number of CPU slots SLOTS_VARIABLE forces (None: run.slots.cpu_slots's rule)."""
    text = _value(SLOTS_VARIABLE)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{SLOTS_VARIABLE}={text!r}: a number of slots, 1 or more") from None


def machine_check_mode() -> str | None:
    """The machine check's mode as set (None: the default); run.machine_check.mode validates it."""
    return _value(MACHINE_CHECK_VARIABLE)


def commit() -> str | None:
    """The commit make exported for the engines' headers (None: ask git)."""
    return _value(COMMIT_VARIABLE)
