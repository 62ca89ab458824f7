"""The sweep of one profile: the study's cells got through one store and read back as DataFrames.

Sweep is what a chapter (notebook) holds: the executor (run.executor: a cell's stored row, or its run
here, in a probe series or on a Dask cluster) with every chapter family's experiments
(run.experiments: batch, real time, sentinels, heap, continuum, JDKs, what the store holds beside its
cells). Its tables' columns are defined once, in data.tables; its progress line and the chapter's end
are run.progress's.
"""

from __future__ import annotations

from allocorpool.analysis.min_heap import NOT_FITTING  # noqa: F401  (the notebooks' names, kept importable here)
from allocorpool.data.tables import Continuum, HeapMultiples, Searches  # noqa: F401
from allocorpool.run.experiments.continuum import ContinuumExperiments
from allocorpool.run.experiments.heap import HeapExperiments
from allocorpool.run.experiments.jdks import JdkExperiments
from allocorpool.run.experiments.realtime import WHAT_IF_QUEUE_MS  # noqa: F401
from allocorpool.run.experiments.sentinels import SentinelExperiments
from allocorpool.run.experiments.stored import StoredExperiments
from allocorpool.run.experiments.threads import ThreadExperiments
from allocorpool.run.progress import READ_CELLS_MIMETYPE, ChapterFailed  # noqa: F401
from allocorpool.settings import SCHEDULER_VARIABLE, SOLUTIONS_VARIABLE  # noqa: F401


class Sweep(SentinelExperiments, HeapExperiments, ContinuumExperiments, JdkExperiments, StoredExperiments,
            ThreadExperiments):
    """The sweep of one profile: its cells run through one store (run.executor.Executor) and read back as
    DataFrames by each chapter family's experiments (run.experiments)."""
