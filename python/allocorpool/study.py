"""What the study measures, under the one name the notebooks and chapters import (`study.X`).

The study's vocabulary lives in four modules, each with one job:

- lists.py: the selectable lists (solutions, strategies, cases, selections, labels, which chapter
  runs which solutions) and the engines' case sizes;
- profiles.py: the profiles (ci, quick, full) and their plans of searches, heaps, the continuum,
  the JDKs and blocks;
- run/cells.py: the cells and blocks a solution, strategy and case make under a profile;
- run/cost.py: the cost model behind `make plan`.
"""

from __future__ import annotations

from allocorpool import paths  # noqa: F401  (tests set study.paths.engine_build)
from allocorpool.run.cost import (  # noqa: F401
    ALLOCATOR_FILL_FACTOR,
    CONTINUUM_REPEATS,
    COUNTING_FILL_FACTOR,
    COUNTING_PASS_S,
    FILL_NS_PER_PACKET,
    FILL_PACKETS_PER_SLOT,
    LONG_RUN_SHARE,
    RUN_OVERHEAD_S,
    SERIES_PROBE_OVERHEAD_S,
    START_KEEPS_UP,
    TYPICAL_LOW_NS,
    Estimate,
    estimate,
    expected_heap_runs,
    expected_probes,
    fill_s,
    in_minutes,
    modelled_against_measured,
    run_s,
    search_s,
)
from allocorpool.lists import (  # noqa: F401
    ALLOCATORS,
    ARTICLE_HEAP_MB,
    BIG_HEAP_FACTOR,
    CASES,
    CHAPTERS,
    COLLECTOR_LABELS,
    CONTINUUM_SOLUTIONS,
    EPSILON_HEAP_MB,
    EPSILON_OPTIONS,
    G1_ARTICLE_GOAL,
    HEAP_SOLUTIONS,
    INTERNAL_QUEUE_SIZE,
    MAX_CAPTURING_DELAY_MS,
    MEASUREMENT_CHANGE,
    MIN_HEAP_MB,
    MODERN_JDK,
    POOL_SIZE,
    REALTIME_STRATEGIES,
    REFERENCE_NS,
    SAME_MEASUREMENT_BUILDS,
    SEED_JDK,
    SELECTION_TEXTS,
    SELECTIONS,
    SENTINELS,
    SOLUTIONS,
    SOLUTIONS_BY_NAME,
    SOURCE_SOLUTIONS,
    STORED_COUNT,
    STRATEGIES,
    STRATEGY_LABELS,
    TIMELINES,
    UNSCALED_HEAP_MB,
    Solution,
    live_packets,
    selection,
)
from allocorpool.profiles import (  # noqa: F401
    PROFILES,
    BlockPlan,
    ContinuumPlan,
    HeapPlan,
    JdkPlan,
    Profile,
    SearchPlan,
    in_series,
    jdk_solutions,
    profile,
    solutions,
)
from allocorpool.run.cells import (  # noqa: F401
    batch_block,
    batch_cell,
    continuum_cells,
    heap_text,
    pool_size_cell,
    probe_block,
    probe_cell,
)
