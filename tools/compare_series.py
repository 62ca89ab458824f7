"""Do a search's probes in one JVM (a probe series) find what probes each in its own JVM find?

Runs the chosen Java searches both ways on this machine, in turn cell by cell (each probe alone, then the
search in series), into two stores under OUT, each starting from the batch run the profile's store holds
(so both start their search from the same figure), and prints both outcomes, intervals, probe counts and
engine time side by side with the profile's stored search. The two runs of a cell are minutes apart on one
machine: they compare with each other; the stored search may come from another machine or boot (its
column says which boot). usage:

    .venv/bin/python tools/compare_series.py OUT [--profile full] [--cells SOLUTION:STRATEGY:CASE ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from allocorpool import study  # noqa: E402
from allocorpool.data.store import Store  # noqa: E402
from allocorpool.run import machine_check  # noqa: E402
from allocorpool.run.experiments import realtime as measure_realtime  # noqa: E402
from allocorpool.run.sweep import Sweep  # noqa: E402

# The Java sentinels (the article's "CMS" is JDK 11 Parallel): pooling A and B, allocation C and
# mix B; G1's pooling C; ZGC's allocation C; native Parallel's pooling C.
CELLS = ("parallel-11:pool:A", "parallel-11:pool:B", "parallel-11:alloc:C", "parallel-11:mix:B", "g1:pool:C",
         "zgc:alloc:C", "native-parallel-11:pool:C")
MODES = ("alone", "series")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--profile", default="full", choices=sorted(study.PROFILES))
    parser.add_argument("--cells", nargs="+", default=list(CELLS), metavar="SOLUTION:STRATEGY:CASE")
    args = parser.parse_args()
    jobs = []
    for text in args.cells:
        name, strategy, case = (text.split(":") + ["", ""])[:3]
        if name not in study.SOLUTIONS_BY_NAME or study.SOLUTIONS_BY_NAME[name].engine != "java" \
                or strategy not in study.REALTIME_STRATEGIES or case not in ("A", "B", "C"):
            parser.error(f"--cells {text!r}: a Java solution ({', '.join(s.name for s in study.SOLUTIONS if s.engine == 'java')}),"
                         f" a strategy ({', '.join(study.REALTIME_STRATEGIES)}) and a case (A, B, C)")
        jobs.append((study.SOLUTIONS_BY_NAME[name], strategy, case))
    # Both ways run here, minutes apart: the store's speed is not what they are compared with.
    os.environ[machine_check.MACHINE_CHECK_VARIABLE] = "off"
    base = study.profile(args.profile)
    stored = Sweep(base, progress=False, replay=True)
    sweeps = {}
    for mode in MODES:
        plan = replace(base, search=replace(base.search, series=mode == "series"))
        root = args.out / mode
        (root / "cells").mkdir(parents=True, exist_ok=True)
        for solution, strategy, case in jobs:  # the stored batch run each search starts from
            batch = stored.executor.row(study.batch_cell(solution, strategy, case, base))
            if batch["status"] == "ok":
                shutil.copy(stored.store.cells_dir / f"{batch['key']}.parquet", root / "cells")
        sweeps[mode] = Sweep(plan, data_dir=root, progress=True)
    rows = []
    for solution, strategy, case in jobs:
        row = {"cell": f"{solution.name} {strategy} {case}"}
        then, _ = measure_realtime.search(stored.executor, solution, strategy, case)
        row.update(stored_outcome=then["outcome"], stored_interval_ns=then["interval_ns"],
                   stored_loss_pct=then["loss_pct"])
        for mode in MODES:
            found, probes = measure_realtime.search(sweeps[mode].executor, solution, strategy, case)
            index = Store(args.out / mode).index.set_index("key")
            row.update({f"{mode}_outcome": found["outcome"], f"{mode}_interval_ns": found["interval_ns"],
                        f"{mode}_loss_pct": found["loss_pct"], f"{mode}_probes": len(probes),
                        f"{mode}_engine_s": round(float(index.loc[probes["key"].unique(), "elapsed_s"].sum()), 1)})
        rows.append(row)
        table = pd.DataFrame(rows)
        table.to_csv(args.out / "comparison.csv", index=False)
        print(table.iloc[-1].to_dict(), flush=True)
    print(table.to_string())
    totals = {mode: table[f"{mode}_engine_s"].sum() for mode in MODES}
    same = (table["alone_outcome"] == table["series_outcome"]).sum()
    print(f"engine time: alone {totals['alone'] / 60:.1f} min, series {totals['series'] / 60:.1f} min "
          f"({totals['series'] / totals['alone']:.2f} x); outcomes agree in {same} of {len(table)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
