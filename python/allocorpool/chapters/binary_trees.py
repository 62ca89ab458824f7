"""Chapter 10, binary trees across allocators and collectors: the table, the figures, and the seed's
figures beside ours. The seed's claims, decided on this machine's runs, are binary_trees_claims's.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool import machine, paths
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page import tables as table_cells
from allocorpool.run.experiments.binary_trees import Results

SEED = "original benchmark (2019, a 6-core Mac)"
OURS = "this machine"
MEMORY_COLOURS = {"malloc/free": "#d62728", "pool/arena": "#ff7f0e", "tracing GC": "#1f77b4",
                  "reference counting": "#2ca02c"}
REFERENCE_ROW = "c-jemalloc"  # the row both studies have, to compare times across machines
SEED_REFERENCE = "jemalloc explicit malloc()/free()"


def seed_path() -> Path:
    return paths.data_dir() / "reference" / "binary_trees_reference.csv"


def load_seed(source: Path | None = None) -> pd.DataFrame:
    return pd.read_csv(source or seed_path())


def seed_depth(seed: pd.DataFrame, depth: int) -> int:
    """The seed's depth nearest to ours (it ran 20 and 21)."""
    depths = sorted(set(seed["depth"]))
    return min(depths, key=lambda d: (abs(d - depth), d))


def with_seed(table: pd.DataFrame, seed: pd.DataFrame, depth: int) -> pd.DataFrame:
    """Our rows at one depth with the seed's run of the same variant at its nearest depth, and each
    study's time relative to its own jemalloc row (comparable across machines and depths)."""
    ours = table[table["depth"] == depth].copy()
    theirs = seed[seed["depth"] == seed_depth(seed, depth)].set_index("seed_label")
    ours["seed_depth"] = seed_depth(seed, depth)
    ours["seed_real_s"] = ours["seed_label"].map(theirs["real_s"])
    ours["seed_user_s"] = ours["seed_label"].map(theirs["user_s"])
    reference = ours.loc[ours["variant"] == REFERENCE_ROW, "wall_s"]
    ours["wall_vs_jemalloc"] = ours["wall_s"] / reference.iloc[0] if len(reference) and reference.notna().all() \
        else None
    ours["seed_vs_jemalloc"] = ours["seed_real_s"] / theirs.loc[SEED_REFERENCE, "real_s"] \
        if SEED_REFERENCE in theirs.index else None
    return ours


def _spread(row: pd.Series, name: str, scale: float = 1.0, digits: int = 2) -> str:
    if pd.isna(row.get(name)):
        return "—"
    low, high = row[f"{name}_min"] * scale, row[f"{name}_max"] * scale
    return f"{low:.{digits}f}–{high:.{digits}f}" if high != low else "—"


def _status(row: pd.Series) -> str:
    """ok; not measured (the store has no run of it: a replay, or a sweep not run at this depth); or failed
    with its runs' errors."""
    if row["status"] == "missing":
        return "not measured"
    return f"{row['status']}: {row['why']}" if isinstance(row["why"], str) else row["status"]


def results_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The chapter's table of time: one line per variant, medians with their spread, and the seed's run beside."""
    out = []
    for _, row in rows.iterrows():
        line = {"variant": row["label"], "memory": row["memory"]}
        if row["status"] == "unavailable":
            line.update({"wall, s": "—", "status": f"not run: {row['why']}"})
        else:
            line.update({
                "wall, s": row["wall_s"], "wall spread": _spread(row, "wall_s"), "user, s": row["user_s"],
                "sys, s": row["sys_s"], "user / wall": row["user_s"] / row["wall_s"] if row["wall_s"] else None,
                "runs": f"{row['runs']}" + (f" ({row['failed']} failed)" if row["failed"] else ""),
                "status": _status(row)})
        line.update({"wall / jemalloc": row["wall_vs_jemalloc"],
                     f"original: real, s (depth {row['seed_depth']})": row["seed_real_s"],
                     "original: user, s": row["seed_user_s"], "original: real / jemalloc": row["seed_vs_jemalloc"]})
        out.append(line)
    return pd.DataFrame(out).set_index("variant")


def memory_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The chapter's table of memory and pauses: one line per variant that ran, its peak RSS and its pauses as its
    runtime reports them (how each was read, and on what runtime: provenance_table)."""
    out = []
    for _, row in rows[rows["status"] != "unavailable"].iterrows():
        out.append({"variant": row["label"],
                    "peak RSS, MB": row["peak_rss_bytes"] / 2**20 if pd.notna(row["peak_rss_bytes"]) else None,
                    "longest pause, ms": row["pause_max_ms"], "pauses, total ms": row["pause_total_ms"],
                    "pauses": row["pause_count"], "collections": row["collections"]})
    table = pd.DataFrame(out, columns=["variant", "peak RSS, MB", "longest pause, ms", "pauses, total ms", "pauses",
                                       "collections"]).set_index("variant")
    return table


def provenance_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per variant that ran: what its pause figures measure, and the runtime and compiler it ran on."""
    out = []
    for _, row in rows[rows["status"] != "unavailable"].iterrows():
        source = row["pause_source"]
        out.append({"variant": row["label"],
                    "pause source": source + (" (whole ms)" if row["pause_resolution_ms"] == 1 else "")
                    if isinstance(source, str) else None,
                    "runtime": row["runtime"], "compiler": row["compiler"]})
    return pd.DataFrame(out, columns=["variant", "pause source", "runtime", "compiler"])


def machine_table(results: Results) -> pd.DataFrame:
    """The machines and commits the runs were measured on (machine.fingerprint of each stored run)."""
    runs = results.runs.dropna(subset=["cpu_model"])
    facts = {"CPU": "cpu_model", "CPUs": "cpus", "memory, GB": "memory_bytes", "kernel": "kernel", "host": "host",
             "commit": "commit"}
    values = {title: sorted({f"{v / 2**30:.1f}" if name == "memory_bytes"
                             else machine.cpu_name(v) if name == "cpu_model" else str(v)
                             for v in runs[name].dropna()})
              for title, name in facts.items()}
    cells = {title: table_cells.commits_counted(v) if title == "commit" else ", ".join(v)
             for title, v in values.items()}
    return pd.DataFrame({"value": cells}).rename_axis("what")


def measured(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with a finished run (a median wall time)."""
    return rows[(rows["status"] != "unavailable") & rows["wall_s"].notna()]


def drawn(tables: dict[int, pd.DataFrame]) -> dict[int, pd.DataFrame]:
    """The depths with a finished run, the ones a figure can draw; a sentence says which are left out."""
    kept = {depth: rows for depth, rows in tables.items() if len(measured(rows))}
    left = [str(depth) for depth in tables if depth not in kept]
    if left:
        show.note(f"No run finished at depth {' or '.join(left)} in this store, so the tables and figures below "
                  f"leave {'it' if len(left) == 1 else 'them'} out.")
    return kept


def time_figure(rows: pd.DataFrame, depth: int) -> go.Figure:
    """Wall time (median, bar; spread, whiskers) and user time (marker) per variant, fastest first,
    the seed's times relative to its jemalloc row as markers on a second panel beside ours."""
    data = measured(rows).sort_values("wall_s")
    fig = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.03, shared_yaxes=True,
                        subplot_titles=[f"seconds at depth {depth} ({OURS})", "time / jemalloc's time"])
    for memory, colour in MEMORY_COLOURS.items():
        part = data[data["memory"] == memory]
        if part.empty:
            continue
        fig.add_trace(go.Bar(y=part["label"], x=part["wall_s"], orientation="h", name=f"wall: {memory}",
                             marker_color=colour, legendgroup=memory,
                             error_x={"type": "data", "symmetric": False, "array": part["wall_s_max"] - part["wall_s"],
                                      "arrayminus": part["wall_s"] - part["wall_s_min"]},
                             hovertemplate="%{y}: %{x:.2f} s wall<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(y=data["label"], x=data["user_s"], mode="markers", name="user (CPU) time",
                             marker={"symbol": "diamond", "color": "black", "size": 7},
                             hovertemplate="%{y}: %{x:.2f} s user<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(y=data["label"], x=data["wall_vs_jemalloc"], mode="markers", name=f"{OURS}, wall",
                             marker={"color": "#444", "size": 8},
                             hovertemplate="%{y}: %{x:.2f}× jemalloc<extra>" + OURS + "</extra>"), row=1, col=2)
    seeded = data[data["seed_vs_jemalloc"].notna()]
    fig.add_trace(go.Scatter(y=seeded["label"], x=seeded["seed_vs_jemalloc"], mode="markers", name=f"{SEED}, real",
                             marker={"symbol": "x", "color": "#9467bd", "size": 9},
                             hovertemplate="%{y}: %{x:.2f}× jemalloc<extra>" + SEED + "</extra>"), row=1, col=2)
    fig.add_vline(x=1, line_dash="dot", line_color="#888", row=1, col=2)
    fig.update_xaxes(type="log", tickvals=[0.1, 0.2, 0.5, 1, 2, 5, 10, 20], row=1, col=2)
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=list(data["label"]))
    fig.update_layout(title=f"Binary trees, depth {depth}: time per variant (median of the runs, whiskers: "
                            f"fastest and slowest)", barmode="overlay", height=max(420, 22 * len(data) + 160),
                      legend={"orientation": "h", "y": -0.08})
    return fig


def pause_figure(rows: pd.DataFrame, depth: int) -> go.Figure:
    """The longest pause per variant (median over runs; whiskers: spread), log scale, longest first."""
    data = measured(rows)
    data = data[data["pause_max_ms"].notna()].sort_values("pause_max_ms", ascending=False)
    fig = go.Figure()
    for memory, colour in MEMORY_COLOURS.items():
        part = data[data["memory"] == memory]
        if part.empty:
            continue
        fig.add_trace(go.Bar(y=part["label"], x=part["pause_max_ms"], orientation="h", name=memory,
                             marker_color=colour, customdata=part[["pause_source"]],
                             error_x={"type": "data", "symmetric": False,
                                      "array": part["pause_max_ms_max"] - part["pause_max_ms"],
                                      "arrayminus": part["pause_max_ms"] - part["pause_max_ms_min"]},
                             hovertemplate="%{y}: %{x:.2f} ms<br>%{customdata[0]}<extra></extra>"))
    fig.update_xaxes(type="log", title_text="longest pause, ms (log scale)")
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=list(data["label"]))
    fig.update_layout(title=f"Binary trees, depth {depth}: the longest pause of each variant (explicit variants: "
                            f"the longest deallocation of one tree)", height=max(380, 22 * len(data) + 140),
                      legend={"orientation": "h", "y": -0.12})
    return fig


def cpu_figure(rows: pd.DataFrame, depth: int) -> go.Figure:
    """User + sys time against wall time: above the diagonal, more than one core was busy (parallel
    marking, concurrent collection, JIT threads)."""
    data = measured(rows)
    cpu = data["user_s"] + data["sys_s"]
    fig = go.Figure()
    for memory, colour in MEMORY_COLOURS.items():
        part = data[data["memory"] == memory]
        if part.empty:
            continue
        fig.add_trace(go.Scatter(x=part["wall_s"], y=part["user_s"] + part["sys_s"], mode="markers", name=memory,
                                 text=part["label"], marker={"color": colour, "size": 9},
                                 hovertemplate="%{text}<br>wall %{x:.2f} s, CPU %{y:.2f} s<extra></extra>"))
    top = float(max(cpu.max(), data["wall_s"].max())) * 1.1 if len(data) else 1.0
    fig.add_trace(go.Scatter(x=[0, top], y=[0, top], mode="lines", name="CPU = wall (one core)",
                             line={"dash": "dot", "color": "#888"}))
    fig.add_trace(go.Scatter(x=[0, top / 2], y=[0, top], mode="lines", name="CPU = 2 × wall (both cores)",
                             line={"dash": "dash", "color": "#bbb"}))
    fig.update_layout(title=f"Binary trees, depth {depth}: CPU (user + sys) against wall time", height=480,
                      xaxis_title="wall, s", yaxis_title="user + sys, s")
    return fig


def show_failures(results: Results) -> None:
    """The runs that failed or timed out, listed; those the store does not hold, counted by depth."""
    note = missing_sentence(results)
    if note:
        show.note(note)
    failed = results.failures.merge(results.table[["variant", "label"]].drop_duplicates(), on="variant", how="left")
    failed = failed.assign(strategy_label=None, case=failed["depth"].map(lambda d: f"depth {d}"))
    show.show_failures(failed, "binary-trees run")


def missing_sentence(results: Results) -> str | None:
    """How many of the profile's runs the store does not hold, per depth; None where it holds them all."""
    missing = results.missing
    if not len(missing):
        return None
    parts = []
    for depth, runs in missing.groupby("depth"):
        of = int((results.runs["depth"] == depth).sum())
        which = ("every run" if len(runs) == of else
                 f"{len(runs)} of {of} runs (of {runs['variant'].nunique()} variant"
                 f"{'s' if runs['variant'].nunique() > 1 else ''}, repetitions "
                 + ", ".join(str(int(r)) for r in sorted(runs["repetition"].unique())) + ")")
        parts.append(f"at depth {int(depth)}, {which}")
    return (show.not_measured(len(missing), len(results.runs), "; ".join(parts))
            + " The figures below are those of the runs it holds.")


def deepest_measured(tables: dict[int, pd.DataFrame]) -> int:
    """The largest depth with a finished run (the claims are checked there); the largest depth where none has."""
    finished = [depth for depth, rows in tables.items() if (rows["runs"] > 0).any()]
    return max(finished or tables)


def raise_if_failed(results: Results) -> None:
    """Under the ci profile a failed run fails the notebook (after the chapter has shown it)."""
    if len(results.failures):
        names = ", ".join(results.failures["key"])
        raise RuntimeError(f"{len(results.failures)} binary-trees run(s) failed or timed out: {names}")
