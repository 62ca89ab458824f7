"""Chapter 11, one allocation per event (seed 004): the echo's figures and the allocation loop's, the runs
that failed or were not measured, and where the runs were made.

Every figure here comes from the rows run/event_echo.py reads from the store. The seed's own figures
(data/reference/event_echo_reference.csv) and its claims, each decided on these rows, are
event_echo_claims.py.
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool import effects
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.figures import line_colours
from allocorpool.data.records import MISSING, UNSUPPORTED
from allocorpool.lists import COLLECTOR_LABELS
from allocorpool.machine import cpu_name

FAILED = ("error", "timeout")
PROGRAM_NAMES = {"echo": "echo runs", "allocation": "allocation loops"}
COPY_BYTES = 44  # a copy allocates at least the event's 44 bytes of fields


def collector_label(collector: str) -> str:
    return COLLECTOR_LABELS.get(collector, collector)


def label(row: dict[str, Any]) -> str:
    """A row's name: JDK and collector, then what the program ran."""
    text = f"JDK {row['jdk']} {collector_label(row['collector'])}"
    if row["program"] == "echo":
        parts = [row.get("transport"), row.get("mode"),
                 None if pd.isna(row.get("clients")) else f"{int(row['clients'])} client{'s' if int(row['clients']) != 1 else ''}"]
    else:
        parts = ["allocation loop", None if pd.isna(row.get("threads")) else f"{int(row['threads'])} thread{'s' if int(row['threads']) != 1 else ''}"]
    return ", ".join([text, *[p for p in parts if p]])


# ---- Runs that failed, pairs a JDK lacks ------------------------------------------------------
def failures(*tables: pd.DataFrame) -> pd.DataFrame:
    """Rows whose run failed or timed out, with a label for show_failures (a run the store does not hold,
    status missing, is no failure: not_measured counts it)."""
    frames = [t[t["status"].isin(FAILED)] for t in tables if len(t)]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if not len(rows):
        return pd.DataFrame(columns=["label", "status", "error", "stderr_tail"])
    return rows.assign(label=[label(r) for r in rows.to_dict("records")])


def unsupported(*tables: pd.DataFrame) -> str | None:
    """The JDK and collector pairs the profile asks for and the JDK lacks, in a sentence; None where none."""
    frames = [t[t["status"] == UNSUPPORTED][["jdk", "collector"]] for t in tables if len(t)]
    rows = pd.concat(frames, ignore_index=True).drop_duplicates() if frames else pd.DataFrame()
    if not len(rows):
        return None
    pairs = [f"{collector_label(str(collector))} on JDK {show.series(sorted(part['jdk'].unique()))}"
             for collector, part in rows.groupby("collector")]
    return f"Not run, since the JDK lacks the collector: {'; '.join(pairs)}."


def not_measured(*tables: pd.DataFrame) -> str | None:
    """How many runs of the profile the store does not hold (a replay of a store the sweep has not filled),
    per program; None where it holds them all."""
    counts = {str(t["program"].iloc[0]): int((t["status"] == MISSING).sum()) for t in tables if len(t)}
    counts = {program: n for program, n in counts.items() if n}
    if not counts:
        return None
    which = ", ".join(f"{n} of the {PROGRAM_NAMES.get(program, program)}" for program, n in counts.items())
    return show.not_measured(sum(counts.values()), sum(len(t) for t in tables), which)


def stored(*tables: pd.DataFrame) -> bool:
    """Whether the store holds any run of the chapter, finished or not (a pair the JDK lacks is no run)."""
    return any(len(t) and (~t["status"].isin([MISSING, UNSUPPORTED])).any() for t in tables)


def show_runs(echo: pd.DataFrame, allocation: pd.DataFrame) -> None:
    if not stored(echo, allocation):
        runs = sum(int((t["status"] != UNSUPPORTED).sum()) for t in (echo, allocation) if len(t))
        show.nothing_measured(f"None of this chapter's {runs} runs has been measured at these sizes, so it shows no "
                              f"figures.")
        return
    note = not_measured(echo, allocation)
    if note:
        show.note(note)
    show.show_failures(failures(echo, allocation), "run")
    missing = unsupported(echo, allocation)
    if missing:
        show.note(missing)
    chronicle = echo[(echo["transport"] == "chronicle") & echo["status"].isin(FAILED)]
    if len(chronicle):
        pairs = sorted({f"JDK {r['jdk']} {collector_label(r['collector'])}" for r in chronicle.to_dict("records")})
        show.note(f"Chronicle did not serve on {', '.join(pairs)} (above, with its error): the NIO rows of "
                  f"the same JDK and collector are measured and stand for them.")


# ---- The echo's figures -------------------------------------------------------------------
KEYS = ["transport", "jdk", "collector", "clients"]


def medians(runs: pd.DataFrame, keys: list[str] | None = None) -> pd.DataFrame:
    """The finished runs, one row per configuration: each figure the median of its repetitions (runs: the
    number of them); the key is the first repetition's."""
    ok = runs[runs["status"] == "ok"]
    keys = keys or [*KEYS, "mode"]
    if not len(ok):
        return ok.assign(runs=pd.Series(dtype=int))
    figures = [c for c in ok.columns if c not in keys and pd.api.types.is_numeric_dtype(ok[c]) and c != "repetition"]
    grouped = ok.groupby(keys, dropna=False, sort=True)
    out = grouped[figures].median().join(grouped.size().rename("runs"))
    labels = [c for c in ok.columns if c not in keys and c not in figures and c != "repetition"]
    return out.join(grouped[labels].first()).reset_index()


def costs(echo: pd.DataFrame) -> pd.DataFrame:
    """One row per transport, JDK, collector and client count with both modes measured: what the
    copy costs.

    extra_ns_seed: the seed's measure, the difference in its "average latency" (clients / events
    per second, the time one client spends per event); extra_cpu_ns: the difference in CPU time
    per event over all threads (process CPU time / events), which does not depend on how many
    clients share the cores; throughput_drop_pct: how much lower the copy's events per second are (medians);
    copy_time: the copy's time per event (1 / events per second) over reuse's, an effects.Effect whose
    interval resamples both modes' repetitions, and copy_outcome whether the copy is faster by it (effects).
    """
    ok = medians(echo)
    reuse = ok[ok["mode"] == "reuse"].set_index(KEYS)
    copy = ok[ok["mode"] == "copy"].set_index(KEYS)
    both = reuse.index.intersection(copy.index)
    if not len(both):
        return pd.DataFrame(columns=KEYS)
    r, c = reuse.loc[both], copy.loc[both]
    clients = both.get_level_values("clients").to_numpy(dtype=float)
    out = pd.DataFrame({
        "reuse_events_per_s": r["events_per_s"], "copy_events_per_s": c["events_per_s"],
        "throughput_drop_pct": 100 * (1 - c["events_per_s"] / r["events_per_s"]),
        "extra_ns_seed": clients * 1e9 * (1 / c["events_per_s"] - 1 / r["events_per_s"]),
        "extra_cpu_ns": 1e9 * (c["process_cpu_s"] / c["events"] - r["process_cpu_s"] / r["events"]),
        "extra_wall_ns": 1e9 * (1 / c["events_per_s"] - 1 / r["events_per_s"]),
        "copy_service_bytes_per_event": c["service_alloc_bytes_per_event"],
        "reuse_service_bytes_per_event": r["service_alloc_bytes_per_event"],
        "copy_gc_pause_pct": c["gc_pause_pct"], "copy_gc_pause_ms_per_min": c["gc_pause_ms_per_min"],
        "copy_gc_pauses_per_min": c["gc_pauses_per_min"],
        # wall time the collector's pauses took per event, to set beside the copy's extra wall time
        "copy_gc_pause_ns_per_event": 1e6 * c["gc_pause_ms"] / c["events"],
        "copy_cpus_busy": c["cpus_busy"], "reuse_cpus_busy": r["cpus_busy"],
        "copy_key": c["key"], "reuse_key": r["key"],
    }, index=both)
    ok_runs = echo[echo["status"] == "ok"].set_index(KEYS).sort_index()
    time = {mode: ok_runs[ok_runs["mode"] == mode] for mode in ("copy", "reuse")}
    out["copy_time"] = [effects.ratio(1 / time["copy"].loc[[key], "events_per_s"],
                                      1 / time["reuse"].loc[[key], "events_per_s"]) for key in both]
    out["copy_outcome"] = [effect.outcome() for effect in out["copy_time"]]  # NOT_MEASURED with one run a side
    return out.reset_index().sort_values(KEYS).reset_index(drop=True)


def show_throughput(echo: pd.DataFrame, cost: pd.DataFrame) -> None:
    if not len(cost):
        show.nothing_to_show("No JDK and collector has both modes measured: nothing to compare.")
        return
    table = cost.set_index(KEYS)[["reuse_events_per_s", "copy_events_per_s", "copy_time", "copy_outcome",
                                  "extra_ns_seed", "extra_cpu_ns", "copy_service_bytes_per_event"]].copy()
    table[["reuse_events_per_s", "copy_events_per_s"]] /= 1e6
    table["copy_time"] = [effect.text() for effect in table["copy_time"]]
    table["copy_outcome"] = table["copy_outcome"].map(effects.FASTER_WORDS)
    table.columns = ["reuse, M events/s", "copy, M events/s", "copy's time per event / reuse's",
                     "the copy is", "extra ns/event (Lawrey's measure)", "extra CPU ns/event",
                     "copy: service bytes/event"]
    show.show_table(table, caption="The echo: events per second echoed (medians of the repetitions), and what the "
                                   "copy costs per event (its time over reuse's, with the 95 % interval over both "
                                   "modes' repetitions; the copy is faster or slower where that interval clears "
                                   f"parity by {effects.pct(effects.MARGIN)})")
    show.note(copy_note(cost))
    show.show_figure(throughput_figure(echo))


def copy_note(cost: pd.DataFrame) -> str:
    """How the copy's time per event came out against reuse's over the rows compared (effects.Tally), naming
    the rows where the copy was faster."""
    tally = effects.tally(cost["copy_outcome"])
    text = f"Against reuse, the copy is {tally.text('rows compared', labels=effects.FASTER_WORDS)}"
    faster = cost[cost["copy_outcome"] == effects.HOLDS]
    if len(faster):
        rows = [f"{r.transport} on JDK {r.jdk} {collector_label(r.collector)} with "
                f"{show.count(int(r.clients), 'client')}" for r in faster.itertuples()]
        text += f"; faster: {'; '.join(rows)}"
    return text + "."


def throughput_figure(echo: pd.DataFrame) -> go.Figure:
    """Events per second against clients (the median of the repetitions), one line per JDK, collector and
    mode, one panel per transport."""
    ok = medians(echo)
    transports = [t for t in ("chronicle", "nio") if t in set(ok["transport"])]
    fig = make_subplots(rows=1, cols=max(1, len(transports)), shared_yaxes=True,
                        subplot_titles=[f"{t}" for t in transports])
    colours = line_colours(zip(ok["jdk"], ok["collector"]))
    for col, transport in enumerate(transports, 1):
        part = ok[ok["transport"] == transport]
        for (jdk, collector, mode), line in part.groupby(["jdk", "collector", "mode"]):
            line = line.sort_values("clients")
            fig.add_trace(go.Scatter(x=line["clients"], y=line["events_per_s"] / 1e6, mode="lines+markers",
                                     name=f"JDK {jdk} {collector_label(collector)} {mode}",
                                     line={"dash": "solid" if mode == "reuse" else "dot",
                                           "color": colours[(jdk, collector)]},
                                     legendgroup=f"{jdk}{collector}{mode}", showlegend=col == 1), row=1, col=col)
        fig.update_xaxes(title_text="clients", tickvals=sorted(set(part["clients"].dropna().astype(int))),
                         row=1, col=col)
    fig.update_yaxes(title_text="M events/s (round trips)", row=1, col=1)
    fig.update_layout(title="The echo: events per second by clients (solid: reuse, dotted: copy)", height=450)
    return fig


def show_latency(echo: pd.DataFrame) -> None:
    ok = medians(echo).set_index(KEYS + ["mode"]).sort_index()
    if not len(ok):
        return show.nothing_to_show("No echo run finished.")
    table = pd.DataFrame({"Lawrey's average latency, µs": ok["seed_latency_ns"] / 1e3,
                          "round trip p50, µs": ok["rtt_p50_ns"] / 1e3, "p90": ok["rtt_p90_ns"] / 1e3,
                          "p99": ok["rtt_p99_ns"] / 1e3, "p99.9": ok["rtt_p999_ns"] / 1e3,
                          "max": ok["rtt_max_ns"] / 1e3})
    show.show_table(table, caption="Round trips (HdrHistogram, every event of the measured seconds; the median of "
                                   "the repetitions) beside Lawrey's average latency (clients / events per second)")


def show_gc(echo: pd.DataFrame) -> None:
    ok = medians(echo).set_index(KEYS + ["mode"]).sort_index()
    if not len(ok):
        return show.nothing_to_show("No echo run finished.")
    table = pd.DataFrame({"GC pauses/min": ok["gc_pauses_per_min"], "pause ms/min": ok["gc_pause_ms_per_min"],
                          "pause % of time": ok["gc_pause_pct"], "cycles/min": ok["gc_cycles_per_min"],
                          "allocated MB/s": ok["alloc_bytes_per_s"] / 1e6,
                          "allocated bytes/event": ok["alloc_bytes_per_event"], "CPUs busy": ok["cpus_busy"]})
    show.show_table(table, caption="The echo: collections (pause beans; cycles: concurrent collectors' cycle "
                                   "beans), allocation rate (all threads, HotSpot's per-thread counts), CPU use",
                    precision=2)


# ---- The allocation loop --------------------------------------------------------------------
def scaling(allocation: pd.DataFrame) -> pd.DataFrame:
    """Per JDK and collector: the loop's time per call and rates on 1 and on 2 threads (medians of the
    repetitions)."""
    ok = allocation[allocation["status"] == "ok"]
    if not len(ok):
        return pd.DataFrame()
    wide = ok.pivot_table(index=["jdk", "collector"], columns="threads",
                          values=["ns_per_op", "ops_per_s", "alloc_bytes_per_s"], aggfunc="median")
    out = pd.DataFrame(index=wide.index)
    for threads in sorted(ok["threads"].dropna().astype(int).unique()):
        out[f"ns/call, {threads} thread{'s' if threads != 1 else ''}"] = wide[("ns_per_op", threads)]
        out[f"GB/s allocated, {threads} thread{'s' if threads != 1 else ''}"] = wide[("alloc_bytes_per_s", threads)] / 1e9
    if {1, 2} <= set(ok["threads"].astype(int)):
        out["ns/call, 2 threads / 1"] = wide[("ns_per_op", 2)] / wide[("ns_per_op", 1)]
        out["calls/s, 2 threads / 1"] = wide[("ops_per_s", 2)] / wide[("ops_per_s", 1)]
    return out


def show_allocation(allocation: pd.DataFrame) -> None:
    table = scaling(allocation)
    if not len(table):
        show.nothing_to_show("No run of the allocation loop finished.")
        return
    show.show_table(table, caption="The allocation loop (JMH, GC profiler): a new 44-byte-field event per call",
                    precision=2)
    ok = medians(allocation, ["jdk", "collector", "threads"])
    fig = go.Figure()
    for (jdk, collector), line in ok.groupby(["jdk", "collector"]):
        line = line.sort_values("threads")
        fig.add_trace(go.Scatter(x=line["threads"], y=line["alloc_bytes_per_s"] / 1e9, mode="lines+markers",
                                 name=f"JDK {jdk} {collector_label(collector)}"))
    fig.update_layout(title="Allocation rate of the loop by threads", xaxis_title="threads",
                      yaxis_title="GB/s allocated", height=400, xaxis={"tickvals": [1, 2]})
    show.show_figure(fig)


def copy_check(cost: pd.DataFrame) -> pd.DataFrame:
    """Rows where the copy mode did not allocate an event's worth per event more than reuse on the
    service's threads: there the comparison would not be of one allocation per event."""
    if not len(cost):
        return cost
    extra = cost["copy_service_bytes_per_event"] - cost["reuse_service_bytes_per_event"]
    return cost[~(extra >= COPY_BYTES)]


def sharing_note(echo: pd.DataFrame, cpus: int | None) -> str:
    """What sharing the machine's cores between clients and service does, from the runs' own figures."""
    ok = medians(echo)
    if not len(ok):
        return "No echo run finished: nothing to say about the cores."
    busy = float(ok["cpus_busy"].median())
    most = int(ok["clients"].max())
    text = (f"The service and its clients run in one process on this machine's {cpus or 'few'} CPUs. With "
            f"{most} clients, {most} client threads and {most} service threads share them, and Chronicle's buffered "
            f"channels add a writer thread per channel end. The runs kept a median of {busy:.2f} CPUs busy"
            + (": the CPUs were busy nearly all the time." if cpus and busy >= 0.9 * cpus else "."))
    wide = ok.pivot_table(index=["transport", "jdk", "collector", "mode"], columns="clients", values="events_per_s")
    if {1, most} <= set(wide.columns) and most > 1:
        ratio = float((wide[most] / wide[1]).median())
        text += f" From 1 to {most} clients, events per second changed by a median factor of {ratio:.2f}"
        text += (": more clients kept more events in flight and got more through the same two cores."
                 if ratio >= 1.5 else ": more clients did not add throughput, they took turns on the same cores.")
    cost = costs(echo)
    at_most = cost[cost["clients"] == most] if len(cost) else cost
    if most > 1 and len(at_most):
        text += (f" With more threads than CPUs, a client also waits for a core. Lawrey's measure of the "
                 f"copy's cost (clients / events per second) counts that wait for every client: at {most} clients "
                 f"it gives a median {at_most['extra_ns_seed'].median():,.0f} ns per event, the extra CPU time "
                 f"{at_most['extra_cpu_ns'].median():,.0f} ns.")
    return text


def raise_if_failed(echo: pd.DataFrame, allocation: pd.DataFrame, profile: str) -> None:
    """Under the ci profile a failed, timed-out or missing run fails the notebook (after it was shown)."""
    failed = failures(echo, allocation)
    if profile == "ci" and len(failed):
        names = ", ".join(html.unescape(n) for n in failed["label"])
        raise RuntimeError(f"{len(failed)} event-echo run(s) failed under the ci profile: {names}")


def machine(index: pd.DataFrame) -> pd.DataFrame:
    """What the stored event-echo runs say about where they ran: machine, JDK builds, commits."""
    runs = index[index.get("cell_kind", pd.Series(dtype=str)) == "event-echo"] if len(index) else index
    if not len(runs):
        return pd.DataFrame(columns=["what", "value"])
    rows = [{"what": title, "value": ", ".join(cpu_name(v) if name == "cpu_model" else str(v)
                                               for v in runs[name].dropna().unique())}
            for name, title in (("cpu_model", "CPU"), ("cpus", "CPUs"), ("kernel", "kernel"), ("commit", "commit"))]
    builds = runs.dropna(subset=["jdk_build"]).groupby("jdk")["jdk_build"].agg(lambda b: ", ".join(sorted(set(b))))
    rows += [{"what": f"JDK {int(jdk)}", "value": build} for jdk, build in builds.items()]
    return pd.DataFrame(rows)
