"""Unified JVM GC logs (-Xlog:gc*,safepoint) of JDK 11-25: parsed into a table of events
(data.gclog_events: the event kinds and the log's time decorations) and put on their run's clock,
then held against the engine's pause records (data.gclog_clock). Both are read through this name.
"""

from allocorpool.data.gclog_clock import (  # noqa: F401
    ALIGNED,
    MATCH_MS,
    ORIGIN_FIELD,
    PAIR_COLUMNS,
    Alignment,
    CrossCheck,
    align,
    cross_check,
)
from allocorpool.data.gclog_events import (  # noqa: F401
    COLUMNS,
    KINDS,
    NESTING_TOLERANCE_S,
    outer_pauses,
    parse,
    parse_lines,
    pauses,
    stalls,
    stops,
)
