"""What a stored run's key says without its cell: the configuration several runs share.

A cell's key (run.runner.Cell.key) names everything the run measured. The runs of one real-time
configuration differ only in their interval, length and warm-up, series, repetition, boot and engine
build; configuration_of drops those parts, so the store's rows can be grouped without rebuilding cells.
"""

from __future__ import annotations

import re

# The parts of a key that vary between the runs of one configuration.
_VARYING = re.compile(r"(?<=_realtime)_\d+ns|_d[0-9.e+-]+_w[0-9.e+-]+(?=_x)|_series(?=_|$)|_r\d+(?=_|$)"
                      r"|_k[0-9a-f]{8}(?=_|$)|_b[0-9a-f]{12}(?:-dirty)?$")


def configuration_of(key: str) -> str:
    """A stored run's configuration from its key alone (Cell.configuration)."""
    return _VARYING.sub("", key)


_BUILD = re.compile(r"_b([0-9a-f]{12})(?:-dirty)?$")


def build_of(key: str) -> str | None:
    """The engine build a stored run's key names; None where it names none."""
    match = _BUILD.search(key)
    return match.group(1) if match else None
