"""The harness's own cost, both engines and both packet sources side by side (`make harness-bench`).

The dummy strategy (one packet reused, nothing stored or freed) measures what the test harness costs per
packet: drawing the fields, parsing, the FIFO. It is what every other strategy pays on top of its own work,
so a harness dearer than the published code's would inflate every cell compared with the article. Java runs
on JDK 11 with Parallel and a 2 GB heap (the article's "CMS" as it ran); C++ runs cpp-lib's harness_bench
(flat and cpp designs). Both run case B by default, after their fill phase, with the `counter` source (the
published code's draws) and the `random` source (independent draws).

Writes one `harness` record per row to data/harness-bench/harness.jsonl (the C++ ones as harness_bench
wrote them, the Java ones in the same shape) and prints the table with the article's figure for the row.

Usage: python -m allocorpool.run.harness [--case B] [--duration-s 12] [--warmup-s 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from allocorpool import paths
from allocorpool.data import reference
from allocorpool.run.runner import SOURCES, Cell, run_cell

JAVA = {"jdk": 11, "collector": "parallel", "heap": "2g"}  # the article's "CMS" as run (Java 8's default)
REFERENCE_SOLUTION = {"java": "CMS", "cpp": "C++"}  # the article's rows for the dummy strategy


def java_row(case: str, source: str, duration_s: float, warmup_s: float, workdir: Path) -> dict:
    cell = Cell(engine="java", case=case, strategy="dummy", source=source, duration_s=duration_s,
                warmup_s=warmup_s, build=paths.engine_build("java"), **JAVA)
    result = run_cell(cell, workdir, progress=False)
    if result.status != "ok":
        raise RuntimeError(f"the Java dummy run ({source}) failed: {result.error}\n{result.stderr_tail}")
    header, summary = result.run.header, result.run.summary
    return {"type": "harness", "engine": "java", "design": None, "source": source, "strategy": "dummy",
            "mode": "batch", "case": case, "scale": 1.0,
            "internal_queue_size": header["params"]["internal_queue_size"],
            "stored_count": header["params"]["stored_count"], "duration_s": duration_s, "warmup_s": warmup_s,
            "measured_packets": summary["measured_packets"], "measured_s": summary["measured_s"],
            "ns_per_packet": summary["ns_per_packet"], "alloc_bytes_per_packet": summary["alloc_bytes_per_packet"],
            "jdk_version": header["jdk_version"], "collector": header["collector"], "vm_flags": header["vm_flags"],
            "host": header["host"], "cpu_model": header["cpu_model"], "commit": header["commit"],
            "engine_source": header["engine_source"]}


def cpp_rows(case: str, duration_s: float, warmup_s: float) -> list[dict]:
    bench = paths.cpp_engine().parent / "harness_bench"
    if not bench.exists():
        raise FileNotFoundError(f"{bench} is not built; run make cpp")
    done = subprocess.run([str(bench), "--case", case, "--duration-s", f"{duration_s:g}", "--warmup-s",
                           f"{warmup_s:g}"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"harness_bench failed (exit {done.returncode}): {done.stderr.strip()}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def table(rows: list[dict], article: pd.DataFrame) -> pd.DataFrame:
    """One row per engine, design and source; the article's dummy figure for the same case beside it."""
    frame = pd.DataFrame(rows)
    frame["variant"] = [f"{r['engine']} {r['design']}" if r["engine"] == "cpp" else
                        f"java {r['collector']} (JDK {str(r['jdk_version']).split('+')[0]})" for r in rows]
    dummy = article[(article.test == "batch") & (article.strategy == "Dummy") & (article.metric == "ns_per_packet")]
    figures = {(s, c): v for s, c, v in zip(dummy.solution, dummy.case, dummy.value)}
    frame[reference.REFERENCE] = [figures.get((REFERENCE_SOLUTION[r["engine"]], r["case"]))
                                  if r["engine"] == "java" or r["design"] == "cpp" else r.get("article_ns_per_packet")
                                  for r in rows]
    shown = frame.pivot_table(index="variant", columns="source", values="ns_per_packet", sort=False)
    shown = shown.reindex(columns=list(SOURCES)).round(1)
    shown["random / counter"] = (shown["random"] / shown["counter"]).round(2)
    shown[f"{reference.REFERENCE}, ns"] = frame.groupby("variant", sort=False)[reference.REFERENCE].first()
    return shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m allocorpool.run.harness", description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", default="B", choices=["A", "B", "C"])
    parser.add_argument("--duration-s", type=float, default=12.0)
    parser.add_argument("--warmup-s", type=float, default=3.0)
    parser.add_argument("--out", type=Path, default=paths.data_dir() / "harness-bench" / "harness.jsonl")
    args = parser.parse_args(argv)
    if not 0 <= args.warmup_s < args.duration_s:
        parser.error(f"--warmup-s {args.warmup_s:g}: valid: [0, --duration-s {args.duration_s:g})")
    rows = cpp_rows(args.case, args.duration_s, args.warmup_s)
    with tempfile.TemporaryDirectory() as workdir:
        rows += [java_row(args.case, source, args.duration_s, args.warmup_s, Path(workdir)) for source in SOURCES]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    print(f"The harness's cost (dummy strategy, batch, case {args.case}, ns per packet; host {rows[0]['host']}, "
          f"{rows[0]['cpu_model']}; commit {rows[0]['commit']}):")
    print(table(rows, reference.load()).to_string())
    print(f"records: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
