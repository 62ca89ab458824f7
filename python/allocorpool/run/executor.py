"""The executor: the one way a measurement is got. Given cells, it returns their stored rows and runs
what the store lacks, storing each cell as soon as it ends; the store only stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd

from allocorpool import settings
from allocorpool.data.records import CellResult
from allocorpool.data.store import Store
from allocorpool.run.runner import Cell, run_cell


def run_missing(cells: Iterable[Cell], store: Store, run: Callable[[Cell], CellResult] | None = None,
                retry_failed: bool = False, progress: bool = True) -> pd.DataFrame:
    """Runs every cell the store does not have yet (nor, with retry_failed, has only as a failure),
    storing each as soon as it ends; returns the index rows of the given cells. The first run takes the
    store for this process (Store.lock_for_runs). A replay (settings.replaying) runs nothing: a cell the
    store lacks has no row."""
    runner = run or (lambda cell: run_cell(cell, store.runs_dir, progress=progress))
    replay = settings.replaying()
    keys = []
    for cell in cells:
        keys.append(cell.key)
        if replay or store.has(cell.key, ok_only=retry_failed):
            continue
        store.lock_for_runs()
        store.put(runner(cell))
    index = store.index
    if not len(index):  # an empty store has no columns yet
        return index
    return index[index["key"].isin(keys)].reset_index(drop=True)
