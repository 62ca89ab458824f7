"""The sweep of one profile: what a chapter (notebook) holds, a thin object over the executor.

Sweep is the one name the notebooks use. It holds the executor (run.executor.Executor: a cell's stored row
or its run, here, in a probe series or on a Dask cluster, and blocks measured through the same door), the
solutions the profile and the sweep's selection show, and the chapter's end (finish). It runs nothing
itself: every experiment is a plain function of one chapter family's module under run.experiments, taking
the executor first and the solutions it measures (a chapter calls it with sweep.executor and the solutions
a method here chose: `measure_batch.batch(sweep.executor, chosen)`). Tables' columns are defined once, in
data.tables; the progress line and what a session read are run.progress's.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from allocorpool import lists, paths, settings
from allocorpool.analysis.min_heap import NOT_FITTING  # noqa: F401  (the notebooks' names, kept importable here)
from allocorpool.data.records import CellResult
from allocorpool.data.store import Store
from allocorpool.data.tables import Continuum, HeapMultiples, Searches, value  # noqa: F401
from allocorpool.lists import Solution
from allocorpool.profiles import Profile, profile, solutions
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.realtime import WHAT_IF_QUEUE_MS  # noqa: F401
from allocorpool.run.progress import READ_CELLS_MIMETYPE, ChapterFailed, Progress  # noqa: F401
from allocorpool.run.progress import fail_if_strict, show_cells_read
from allocorpool.settings import SCHEDULER_VARIABLE, SOLUTIONS_VARIABLE  # noqa: F401

if TYPE_CHECKING:
    from allocorpool.run.cluster import Cluster
    from allocorpool.run.slots import Slots


class Sweep:
    """One profile's sweep: its executor over one store, the solutions it shows, and the chapter's end."""

    def __init__(self, profile_name: str | Profile | None = None, data_dir: str | Path | None = None,
                 progress: bool = True, retry_failed: bool = False, replay: bool | None = None,
                 scheduler: str | Cluster | None = None, slots: int | Slots | None = None,
                 selection: str | None = None) -> None:
        self.profile = profile(profile_name or settings.profile_name())
        self.store = Store.chosen(self.profile.name, data_dir)
        # the solutions shown (lists.SELECTIONS; None: the environment's, settings.SOLUTIONS_VARIABLE)
        self.selection_name = settings.selection_name() if selection is None else selection
        self.selection = lists.selection(self.selection_name)
        # A replay shows what the store holds (the newest result of each measurement, whichever engine
        # build made it) and runs nothing: the article of a committed store renders anywhere.
        self.replay = settings.replaying() if replay is None else replay
        self.executor = Executor(self.store, self.profile, replay=self.replay, retry_failed=retry_failed,
                                 progress=Progress(progress, self.profile.name, paths.shown(self.store.root)),
                                 scheduler=scheduler if scheduler is not None else settings.scheduler(), slots=slots)

    # ---- the solutions shown ----------------------------------------------------------
    def solutions(self, chapter: str | None = None) -> list[Solution]:
        """The solutions of a chapter (lists.CHAPTERS; None: all) that the profile and the sweep's
        selection (settings.SOLUTIONS_VARIABLE) hold."""
        return solutions(None if chapter is None else lists.CHAPTERS[chapter], self.profile, self.selection)

    def left_out(self, chapter: str) -> list[tuple[Solution, str]]:
        """The chapter's solutions (lists.CHAPTERS) this sweep does not show, each with what leaves it out:
        the sweep's selection or the profile."""
        shown = {s.name for s in self.solutions(chapter)}
        return [(s, f"the selection {self.selection_name}" if self.profile.selects(s)
                 else f"the profile {self.profile.name}")
                for s in solutions(lists.CHAPTERS[chapter]) if s.name not in shown]

    def solutions_named(self, names: Iterable[str]) -> list[Solution]:
        """Named solutions (a chapter's comparison baseline, say) that the profile and selection hold."""
        return solutions(tuple(names), self.profile, self.selection)

    def continuum_solutions(self) -> list[Solution]:
        """The solutions of the profile's continuum plan that the profile and the selection hold."""
        return self.solutions_named(self.profile.continuum.solutions)

    def sentinel_solutions(self) -> list[Solution]:
        """The solutions of the sentinel cells (lists.SENTINELS) that the profile and the selection hold."""
        return self.solutions_named(name for name, _ in lists.SENTINELS)

    def off_heap_solutions(self) -> list[Solution]:
        """The off-heap solutions of the profile's continuum plan that the profile and the selection hold."""
        return self.solutions_named(self.profile.continuum.off_heap)

    # ---- the stored runs and the chapter's end ---------------------------------------------
    def load(self, key: str) -> CellResult:
        return self.executor.load(key)

    def failures(self) -> pd.DataFrame:
        return self.executor.progress.failures()

    def cells_read(self) -> list[str]:
        return self.executor.progress.cells_read()

    def finish(self, *results: pd.DataFrame) -> None:
        """A chapter's last step. It records the stored cells the chapter read (progress.READ_CELLS_MIMETYPE).
        Under a strict profile (ci) it fails when any run the chapter read or ran failed, or when one of
        its result tables has no finished row. Other profiles keep what finished and show the failures."""
        read = self.cells_read()
        rows = self.store.index_rows()
        engine_s = sum(value(rows.get(key, {}), "elapsed_s") or 0 for key in read)
        show_cells_read(self.profile.name, self.selection_name, read, engine_s)
        fail_if_strict(self.profile.name, self.profile.strict, self.failures(), results)
