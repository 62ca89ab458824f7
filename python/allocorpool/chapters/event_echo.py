"""Chapter 11, one allocation per event (seed 004): the echo's figures, the allocation loop's, and
a computed verdict on each of the seed's claims with the rows that decide it.

Every figure here comes from the rows run/event_echo.py reads from the store; the seed's own
figures (data/reference/event_echo_reference.csv) are shown beside them, labelled as from
another machine, and only the verdict rules below compare the two.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from allocorpool import effects, paths
from allocorpool.data.records import MISSING, UNSUPPORTED
from allocorpool.chapters.page import display as show
from allocorpool.chapters.page.figures import line_colours
from allocorpool.effects import FAILS, HOLDS, MIXED, NOT_MEASURED, Verdict
from allocorpool.lists import COLLECTOR_LABELS
from allocorpool.machine import cpu_name

FAILED = ("error", "timeout")
PROGRAM_NAMES = {"echo": "echo runs", "allocation": "allocation loops"}
SEED_SOURCE = "Lawrey's (Ryzen 5950X, 16 cores, 16 clients, Java 17, 2022)"
# Verdict rules (CLAIM_RULES): a figure "about the same" as the seed's lies within this factor of it.
SAME_FACTOR = 2.0
GC_SMALL_PCT = 1.0  # "only a small part of the time in GC": under 1 % of the measured time
COPY_BYTES = 44  # a copy allocates at least the event's 44 bytes of fields
SLOWER_WITH_THREADS = 1.10  # the allocation loop's time per call grows by more than 10 % from 1 to 2 threads


def reference() -> pd.DataFrame:
    return pd.read_csv(paths.data_dir() / "reference" / "event_echo_reference.csv")


def seed_value(figures: pd.DataFrame, metric: str) -> float:
    return float(figures.loc[figures["metric"] == metric, "value"].iloc[0])


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
    clients share the cores; throughput_drop_pct: how much lower the copy's events per second are.
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
    return out.reset_index().sort_values(KEYS).reset_index(drop=True)


def show_throughput(echo: pd.DataFrame, cost: pd.DataFrame) -> None:
    if not len(cost):
        show.nothing_to_show("No JDK and collector has both modes measured: nothing to compare.")
        return
    table = cost.set_index(KEYS)[["reuse_events_per_s", "copy_events_per_s", "throughput_drop_pct",
                                  "extra_ns_seed", "extra_cpu_ns", "copy_service_bytes_per_event"]].copy()
    table[["reuse_events_per_s", "copy_events_per_s"]] /= 1e6
    table.columns = ["reuse, M events/s", "copy, M events/s", "copy's drop, %", "extra ns/event (Lawrey's measure)",
                     "extra CPU ns/event", "copy: service bytes/event"]
    show.show_table(table, caption="The echo: events per second echoed, and what the copy costs per event")
    show.show_figure(throughput_figure(echo))


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


# ---- The seed's claims ----------------------------------------------------------------------
# Each claim is decided for each JDK and collector on its own, from the repetitions of both modes (the echo's
# claims on the Chronicle rows, the seed's library, at the largest client count measured; the NIO rows are
# shown in the tables, not counted): the figure's 95 % interval lies wholly inside the claim's band (holds),
# wholly outside it (fails), or across its edge (cannot tell; so does one run a side). Over the pairs a claim
# holds only where it holds for every pair; pairs that differ make it "partly", with the counts.
CLAIM_RULES = {
    "extra": f"the copy's extra time per event (clients / events per second, copy minus reuse) within a factor "
             f"{SAME_FACTOR:g} of Lawrey's {{seed:g}} ns",
    "drop": f"the copy's loss of events per second within a factor {SAME_FACTOR:g} of Lawrey's {{seed:g}} %",
    "gc": f"the copy's time in GC pauses under {GC_SMALL_PCT:g} % of the measured time",
    "share": "the copy's GC pauses per event under half its extra time per event",
    "threads": f"the loop's time per call on 2 threads more than {100 * (SLOWER_WITH_THREADS - 1):.0f} % above "
               f"its time on 1",
}
PAIR_WORDS = {HOLDS: "holds", FAILS: "fails", NOT_MEASURED: "cannot tell"}


def within(low: float, high: float, lowest: float, highest: float) -> str:
    """HOLDS where [low, high] lies inside [lowest, highest], FAILS where wholly outside, else NOT_MEASURED
    (cannot tell); NOT_MEASURED where the interval is unknown."""
    if math.isnan(low) or math.isnan(high):
        return NOT_MEASURED
    if lowest <= low and high <= highest:
        return HOLDS
    return FAILS if high < lowest or low > highest else NOT_MEASURED


def overall(outcomes: list[str]) -> str:
    """A claim over pairs: HOLDS or FAILS where every pair says so, NOT_MEASURED where none decides, else MIXED."""
    if not outcomes or all(o == NOT_MEASURED for o in outcomes):
        return NOT_MEASURED
    return outcomes[0] if len(set(outcomes)) == 1 else MIXED


def counted(outcomes: list[str], what: str = "JDK and collector pairs") -> str:
    """'holds for 2, cannot tell for 1 of 3 JDK and collector pairs'."""
    parts = [f"{PAIR_WORDS[o]} for {outcomes.count(o)}" for o in (HOLDS, FAILS, NOT_MEASURED) if outcomes.count(o)]
    return f"{', '.join(parts)} of {len(outcomes)} {what}" if outcomes else f"no {what} measured"


def _values(rows: pd.DataFrame, mode: str, figure: Callable[[pd.DataFrame], pd.Series]) -> np.ndarray:
    part = rows[(rows["mode"] == mode) & (rows["status"] == "ok")]
    return figure(part).to_numpy(dtype=float) if len(part) else np.array([])


def echo_pairs(echo: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The echo runs that decide: the Chronicle rows at the largest client count, per JDK and collector."""
    chronicle = echo[(echo["transport"] == "chronicle") & (echo["status"] == "ok")] if len(echo) else echo
    if not len(chronicle):
        return []
    deciding = chronicle[chronicle["clients"] == chronicle["clients"].max()]
    clients = int(deciding["clients"].iloc[0])
    return [(f"JDK {jdk} {collector_label(collector)}, {show.count(clients, 'client')}", rows)
            for (jdk, collector), rows in deciding.groupby(["jdk", "collector"], sort=True)]


def _verdict(judged: list[tuple[str, str, str]], rule: str, claim: str) -> Verdict:
    """A claim from its pairs' (name, outcome, figure with interval)."""
    outcomes = [outcome for _, outcome, _ in judged]
    cells = pd.DataFrame([{"pair": name, "verdict": PAIR_WORDS[outcome], "figure": text}
                          for name, outcome, text in judged], columns=["pair", "verdict", "figure"])
    return Verdict(overall(outcomes), counted(outcomes), cells, rule=rule, claim=claim)


def _echo_claim(claim: str, seed: str, rule: str, echo: pd.DataFrame,
                judge: Callable[[pd.DataFrame], tuple[str, str]]) -> Verdict:
    """A claim judged pair by pair: judge gives each pair's outcome and its figure with interval."""
    return _verdict([(name, *judge(rows)) for name, rows in echo_pairs(echo)], rule, f"{claim} ({seed})")


def _extra(seed: float) -> Callable[[pd.DataFrame], tuple[str, str]]:
    def judge(rows: pd.DataFrame) -> tuple[str, str]:
        clients = float(rows["clients"].iloc[0])
        gap = effects.difference(_values(rows, "copy", lambda r: clients * 1e9 / r["events_per_s"]),
                                 _values(rows, "reuse", lambda r: clients * 1e9 / r["events_per_s"]))
        outcome = within(gap.low, gap.high, seed / SAME_FACTOR, seed * SAME_FACTOR) if gap.measured else NOT_MEASURED
        return outcome, gap.text("ns")
    return judge


def _drop(seed: float) -> Callable[[pd.DataFrame], tuple[str, str]]:
    def judge(rows: pd.DataFrame) -> tuple[str, str]:
        kept = effects.ratio(_values(rows, "copy", lambda r: r["events_per_s"]),
                             _values(rows, "reuse", lambda r: r["events_per_s"]))
        if not kept.measured:
            return NOT_MEASURED, kept.text()
        low, high = 100 * (1 - kept.high), 100 * (1 - kept.low)
        outcome = within(low, high, seed / SAME_FACTOR, seed * SAME_FACTOR)
        return outcome, f"{100 * (1 - kept.ratio):.1f} % ({low:.1f} to {high:.1f})"
    return judge


def _gc(rows: pd.DataFrame) -> tuple[str, str]:
    pct = effects.spread(_values(rows, "copy", lambda r: r["gc_pause_pct"]))
    if pct.n < 2:
        return NOT_MEASURED, pct.text("%")
    outcome = HOLDS if pct.high < GC_SMALL_PCT else FAILS if pct.low >= GC_SMALL_PCT else NOT_MEASURED
    return outcome, pct.text("%")


def _share(rows: pd.DataFrame) -> tuple[str, str]:
    pauses = effects.spread(_values(rows, "copy", lambda r: 1e6 * r["gc_pause_ms"] / r["events"]))
    extra = effects.difference(_values(rows, "copy", lambda r: 1e9 / r["events_per_s"]),
                               _values(rows, "reuse", lambda r: 1e9 / r["events_per_s"]))
    text = f"pauses {pauses.text('ns')} against extra {extra.text('ns')} per event"
    if pauses.n < 2 or not extra.measured or extra.high <= 0:
        return NOT_MEASURED, text  # one run a side, or no time the copy cost to share
    if extra.low > 0 and pauses.high < extra.low / 2:
        return HOLDS, text
    return (FAILS if pauses.low >= extra.high / 2 else NOT_MEASURED), text


def _threads(allocation: pd.DataFrame) -> Verdict:
    ok = allocation[allocation["status"] == "ok"] if len(allocation) else allocation
    judged = []
    for (jdk, collector), rows in (ok.groupby(["jdk", "collector"], sort=True) if len(ok) else []):
        slower = effects.ratio(rows.loc[rows["threads"] == 2, "ns_per_op"], rows.loc[rows["threads"] == 1, "ns_per_op"])
        outcome = within(slower.low, slower.high, SLOWER_WITH_THREADS, math.inf) if slower.measured else NOT_MEASURED
        judged.append((f"JDK {jdk} {collector_label(collector)}", outcome, slower.text()))
    return _verdict(judged, CLAIM_RULES["threads"],
                    "The allocation rate is quickly saturated by a few cores: time per call grows with threads "
                    "(a chart, not in Lawrey's text)")


def claims(echo: pd.DataFrame, allocation: pd.DataFrame, figures: pd.DataFrame) -> list[Verdict]:
    """Each of the seed's claims as a verdict of this machine's runs (CLAIM_RULES), pair by pair."""
    seed = {m: seed_value(figures, m) for m in ("extra_ns_per_event", "throughput_drop_pct", "gc_pause_pct",
                                                "gc_pause_ms_per_min")}
    return [
        _echo_claim("One extra allocation per event adds about 166 ns", f"Lawrey: {seed['extra_ns_per_event']:g} ns "
                    "at 16 clients", CLAIM_RULES["extra"].format(seed=seed["extra_ns_per_event"]), echo,
                    _extra(seed["extra_ns_per_event"])),
        _echo_claim("This reduces throughput by 25 %", f"Lawrey: {seed['throughput_drop_pct']:g} %",
                    CLAIM_RULES["drop"].format(seed=seed["throughput_drop_pct"]), echo,
                    _drop(seed["throughput_drop_pct"])),
        _echo_claim("Only 0.3 % of the time was in the collector", f"Lawrey: {seed['gc_pause_pct']:g} %, "
                    f"{seed['gc_pause_ms_per_min']:g} ms a minute", CLAIM_RULES["gc"], echo, _gc),
        _echo_claim("It is the allocations rather than the collection of these short-lived objects that take time",
                    f"Lawrey: GC {seed['gc_pause_pct']:g} % of the time, the copy {seed['throughput_drop_pct']:g} % "
                    "of the throughput", CLAIM_RULES["share"], echo, _share),
        _threads(allocation),
    ]


def verdicts(echo: pd.DataFrame, allocation: pd.DataFrame, figures: pd.DataFrame) -> pd.DataFrame:
    """The claims as a table: each with this machine's verdict, the rule that decides it, and each pair's
    figure with its interval."""
    rows = [{"Lawrey's claim": v.claim, "verdict": v.words, "this machine": v.summary, "how it is decided": v.rule,
             "each pair": "; ".join(f"{r['pair']}: {r['figure']} ({r['verdict']})" for r in v.cells.to_dict("records"))
             or "none measured"}
            for v in claims(echo, allocation, figures)]
    return pd.DataFrame(rows)


def show_verdicts(table: pd.DataFrame) -> None:
    if not len(table):
        return
    show.show_table(table.set_index("Lawrey's claim"),
                    caption=f"The claims, {SEED_SOURCE}, checked on this machine")


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
    text = (f"The service and its clients run in one process on this machine's {cpus or 'few'} CPUs: with "
            f"{most} clients, {most} client threads and {most} service threads (and, with Chronicle's buffered "
            f"channels, a writer thread per channel end) share them; the runs kept a median of {busy:.2f} CPUs "
            f"busy" + (", that is, the CPUs were busy nearly all the time." if cpus and busy >= 0.9 * cpus else "."))
    wide = ok.pivot_table(index=["transport", "jdk", "collector", "mode"], columns="clients", values="events_per_s")
    if {1, most} <= set(wide.columns) and most > 1:
        ratio = float((wide[most] / wide[1]).median())
        text += f" From 1 to {most} clients, events per second changed by a median factor of {ratio:.2f}"
        text += (": more clients kept more events in flight and got more through the same two cores."
                 if ratio >= 1.5 else ": more clients did not add throughput, they took turns on the same cores.")
    cost = costs(echo)
    at_most = cost[cost["clients"] == most] if len(cost) else cost
    if most > 1 and len(at_most):
        text += (f" With more threads than CPUs, a client also waits for a core, and Lawrey's measure of the "
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


CLAIM_NAMES = {"extra_ns": "the cost of one allocation per event", "throughput_drop": "the throughput it costs",
               "gc_time": "the time in GC", "allocation_saturates": "a few cores saturate allocation"}


def show_seed_figures(figures: pd.DataFrame) -> None:
    table = figures[["claim", "metric", "value", "unit", "benchmark", "machine", "jdk", "clients", "note"]]
    table = table.assign(claim=table["claim"].map(lambda c: CLAIM_NAMES.get(c, show.reader_name(c))),
                         metric=table["metric"].map(show.reader_name), value=table["value"].map(show.yes_no))
    show.show_table(table.set_index(["claim", "metric"]),
                    caption="Lawrey's figures (his text; another machine and year), kept in the study's reference data")


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
