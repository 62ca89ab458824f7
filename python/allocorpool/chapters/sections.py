"""The sections every chapter notebook shows the same way: batch table and figure, GC table
and pause histogram, real-time search table and loss curve, pause timelines. A chapter
notebook runs its cells, then calls these with its own data and says whose figures the
article's are (e.g. "CMS on Java 8")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool.chapters import display as show
from allocorpool.chapters import figures, tables
from allocorpool.data import reference


def show_batch(batch: pd.DataFrame, reference_figures: pd.DataFrame, reference_source: str) -> None:
    """Failed batch cells, ns per packet beside the article's, and the same as a figure."""
    show.show_failures(tables.failures(batch), "batch cell")
    show.show_table(tables.batch_chapter(batch, reference.batch(reference_figures)),
                    caption=f"Batch: ns per packet, this machine beside the article's ({reference_source}, 2019)")
    show.show_figure(figures.ns_per_packet(batch, reference.batch(reference_figures)))


def show_gc(gc_table: pd.DataFrame, pauses: pd.DataFrame, reference_figures: pd.DataFrame,
            reference_source: str | None = None) -> None:
    """The seed's GC table beside the article's (where it has one), and how the pauses are spread."""
    beside = f"the article's ({reference_source})" if reference_source else "the article's where it has one"
    if not len(gc_table):
        show.note("No Java batch cell of this chapter finished: there is no GC table to show.")
        return
    show.show_table(tables.gc_chapter(gc_table, reference.gc_table(reference_figures)),
                    caption=f"GC table of the batch runs, this machine beside {beside}")
    if len(pauses):
        show.show_figure(figures.pause_histogram(pauses))
    else:
        show.note("No stop-the-world pause was logged in these runs.")


def show_realtime(searches: Any, reference_figures: pd.DataFrame, reference_source: str, big_heap: bool = True) -> None:
    """Failed searches, the smallest loss-free interval (or the loss at 1000 ns) beside the
    article's, and every probe's loss against its interval."""
    show.show_failures(tables.failures(searches.table), "search")
    heap = " (with the big heap)" if big_heap else ""
    show.show_table(tables.realtime_chapter(searches.table, reference.realtime(reference_figures)),
                    caption=f"Real-time: smallest loss-free interval in ns, or the loss at 1000 ns{heap}, "
                            f"this machine beside the article's ({reference_source}, 2019)")
    show.show_figure(figures.loss_vs_interval(searches.probes))


def show_timelines(runs: Iterable[tuple[Any, str, str, Any]]) -> None:
    """Each long real-time run at 1000 ns with its pauses laid over the seconds that lost
    packets, and the table pairing lossy seconds with the pauses over them."""
    for solution, strategy, case, result in runs:
        title = f"{solution.label}, {strategy}, case {case}, 1000 ns"
        if result.status != "ok":
            show.show_failures(pd.DataFrame([{"label": title, "error": result.error,
                                              "stderr_tail": result.stderr_tail}]), "timeline run")
            continue
        fig, attribution = figures.pause_timeline(result, title)
        show.show_figure(fig)
        if len(attribution):
            show.show_table(figures.attribution_table(attribution).head(12),
                            caption=f"{title}: lossy periods and the pauses over them")
        else:
            show.note(f"{title}: no packet was lost in this run.")
