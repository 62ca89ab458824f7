"""The JDKs chapter's experiments (chapter 15): the decisive case on each JDK with every collector it
ships, a batch run and a real-time probe per cell."""

from __future__ import annotations

from typing import Any

import pandas as pd

from allocorpool.data.tables import JDK_COLUMNS, batch_costs, machine_names, value
from allocorpool.lists import Solution
from allocorpool.profiles import jdk_solutions
from allocorpool.run.cells import batch_cell, probe_cell
from allocorpool.run.executor import Executor
from allocorpool.run.experiments.rows import labels, latency, probe_verdict


class JdkExperiments(Executor):
    def across_jdks(self) -> pd.DataFrame:
        """For each JDK of the profile's plan and each collector it has (profiles.jdk_solutions; those a
        selection holds, under one), each strategy and case: a batch run and a real-time probe at the
        plan's interval, in the article's heap at the profile's scale."""
        self._begin("collectors across the JDKs")
        plan = self.profile.jdks
        chosen = [s for s in jdk_solutions(plan) if self.selection is None or s.name in self.selection]
        cases = [case for case in (plan.cases or self.profile.cases) if case in self.profile.cases]
        jobs = [(solution, strategy, case) for solution in chosen for strategy in plan.strategies for case in cases]

        def measure(job: tuple[Solution, str, str]) -> dict[str, Any]:
            solution, strategy, case = job
            probed = probe_cell(solution, strategy, case, self.profile, plan.interval_ns)
            batch, probe = self.cell_row(batch_cell(solution, strategy, case, self.profile)), self.cell_row(probed)
            judged = probe_verdict(probe, plan.interval_ns, probed.duration_s)
            failed = [row for row in (batch, probe) if row["status"] != "ok"]
            return {**labels(solution, strategy, case), "jdk": solution.jdk, "collector": solution.collector,
                    "batch_status": batch["status"], **batch_costs(batch),
                    "probe_status": probe["status"], "interval_ns": plan.interval_ns,
                    "keeps_up": judged.ok if probe["status"] == "ok" else None, "loss_pct": judged.lost_pct,
                    **latency(judged),
                    "error": "; ".join(f"{row['key']}: {value(row, 'error') or row['status']}" for row in failed) or None,
                    "stderr_tail": next((value(row, "stderr_tail") for row in failed), None),
                    "batch_key": batch["key"], "probe_key": probe["key"], "machine": machine_names([batch, probe])}
        rows = self._each(measure, jobs, "cells across the JDKs")
        self._end(f"{len(rows)} (JDK, collector, strategy, case) cells")
        return pd.DataFrame(rows, columns=JDK_COLUMNS)
