"""The continuum chapter's experiments (chapter 14): live sets from case A past case C, a batch run and a
real-time probe at each size, and the pool-size what-if."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from allocorpool.analysis.min_heap import NOT_FITTING, TOO_SMALL
from allocorpool.data.tables import CONTINUUM_COLUMNS, POOL_SIZE_COLUMNS, Continuum, machine_name, machine_names, value
from allocorpool.lists import Solution
from allocorpool.run.cells import continuum_cells, pool_size_cell
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import labels, latency, probe_verdict


def around_changes(line: list[dict[str, Any]]) -> set[int]:
    """The positions in a continuum line (by size) of the sizes on either side of a change of verdict,
    sizes with no verdict (not run, failed) skipped."""
    known = [i for i, row in enumerate(line) if row.get("keeps_up") is not None]
    return {i for a, b in zip(known, known[1:]) if bool(line[a]["keeps_up"]) != bool(line[b]["keeps_up"])
            for i in (a, b)}


class ContinuumExperiments(Executor):
    def continuum(self, chosen: Iterable[Solution]) -> Continuum:
        """For each chosen solution, strategy and live-set size of the profile's continuum plan: a
        batch run and a real-time probe at the plan's interval; and the pool-size what-if."""
        self._begin("continuum")
        chosen = list(chosen)
        jobs = [(solution, strategy) for solution in chosen for strategy in self.profile.continuum.strategies]
        curves = [row for line in self._each(self._continuum_line, jobs, "continuum lines") for row in line]
        pools = self.pool_sizes(chosen)
        self._end(f"{len(curves)} live-set sizes, {len(pools)} pool sizes")
        return Continuum(pd.DataFrame(curves, columns=CONTINUUM_COLUMNS), pools)

    def _continuum_line(self, job: tuple[Solution, str]) -> list[dict[str, Any]]:
        """One solution and strategy at every size. Smallest size first: once a live set ran out of heap, a
        larger one in the same heap would too, and its probe likewise; those runs are not made (G1 thrashes
        for minutes before its OutOfMemoryError)."""
        rows, fits = [], True
        for size in sorted(self.profile.continuum.sizes):
            rows.append(self._continuum_size(*job, size, fits))
            fits = rows[-1]["batch_status"] != NOT_FITTING
        # A crossover rests on the probes at the two sizes around it: each is repeated, and a size keeps up
        # only where both of its probes did. A repeat that loses moves the change, so the sizes around the new
        # one are repeated in turn.
        repeated: set[int] = set()
        while around := around_changes(rows) - repeated:
            for i in sorted(around):
                rows[i] = self._continuum_repeat(*job, rows[i])
            repeated |= around
        return rows

    def _continuum_size(self, solution: Solution, strategy: str, size: int, fits: bool) -> dict[str, Any]:
        """One live-set size: its batch run, then (where the live set fits in the heap) its probe."""
        plan = self.profile.continuum
        batch_cell_, probe_cell_ = continuum_cells(solution, strategy, size, self.profile)
        row = {**labels(solution, strategy, "B"), "size": size,
               "live_packets": batch_cell_.internal_queue_size + batch_cell_.stored_count,
               "interval_ns": plan.interval_ns}
        if not fits:
            return {**row, "batch_status": NOT_FITTING, "probe_status": NOT_FITTING,
                    "error": "not run: a smaller live set ran out of heap"}
        batch = self.cell_row(batch_cell_)
        if self._note_heap_too_small(batch_cell_.key, batch) == TOO_SMALL:  # the line's answer, not a failed run
            return {**row, "batch_status": NOT_FITTING, "probe_status": NOT_FITTING, "batch_key": batch["key"],
                    "error": value(batch, "error") or batch["status"], "machine": machine_name(batch)}
        probe = self.cell_row(probe_cell_)
        judged = probe_verdict(probe, plan.interval_ns, probe_cell_.duration_s)
        kept = judged.ok if probe["status"] == "ok" else None
        return {**row, "batch_status": batch["status"],
                "ns_per_packet": value(batch, "ns_per_packet") if batch["status"] == "ok" else None,
                "probe_status": probe["status"], "keeps_up": kept, "probe_keeps_up": kept, "loss_pct": judged.lost_pct,
                **latency(judged), "batch_key": batch["key"], "probe_key": probe["key"],
                "machine": machine_names([batch, probe])}

    def _continuum_repeat(self, solution: Solution, strategy: str, row: dict[str, Any]) -> dict[str, Any]:
        """A size's probe again: it keeps up only where both probes did."""
        plan = self.profile.continuum
        batch_cell_, first_cell = continuum_cells(solution, strategy, row["size"], self.profile)
        _, probe_cell_ = continuum_cells(solution, strategy, row["size"], self.profile, repetition=1)
        probe = self.cell_row(probe_cell_)
        judged = probe_verdict(probe, plan.interval_ns, probe_cell_.duration_s)
        again = judged.ok if probe["status"] == "ok" else None
        return {**row, "repeat_status": probe["status"], "repeat_keeps_up": again,
                "repeat_loss_pct": judged.lost_pct, "repeat_key": probe["key"],
                "keeps_up": (row["keeps_up"] and again) if again is not None else row["keeps_up"],
                # by the cells' keys: a replayed row can be another build's, under its own key
                "machine": machine_names([self._seen[batch_cell_.key], self._seen[first_cell.key], probe])}

    def pool_sizes(self, chosen: Iterable[Solution]) -> pd.DataFrame:
        """The pool-size what-if of the continuum plan (case B's pooling batch run with each of its pool
        sizes, before the profile's scale): one row per solution and pool size."""
        rows = []
        for solution in chosen:
            for pool_size in self.profile.continuum.pool_sizes:
                row = self.cell_row(pool_size_cell(solution, pool_size, self.profile))
                rows.append({**labels(solution, "pool", "B"), "pool_size": pool_size, "status": row["status"],
                             "error": value(row, "error"),
                             "ns_per_packet": value(row, "ns_per_packet") if row["status"] == "ok" else None,
                             "key": row["key"], "machine": machine_name(row)})
        return pd.DataFrame(rows, columns=POOL_SIZE_COLUMNS)
