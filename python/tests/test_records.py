"""records.py on the hand-written sample runs (docs/records.md)."""

import io

import pytest

from allocorpool import lists, paths
from allocorpool.data import records
from allocorpool.data.records import COLUMNS, RecordReader, read_run, row_failure


def test_java_batch(runs_dir):
    run = read_run(runs_dir / "java-batch.jsonl")
    assert run.status == "ok" and not run.failed and run.problems == []
    assert run.header["engine"] == "java" and run.header["params"]["pool_size"] == 1_000_000
    assert list(run.periodic.columns) == COLUMNS["periodic"]
    assert len(run.periodic) == 5 and run.periodic["warmup"].tolist() == [True, True, False, False, False]
    assert run.periodic["packets_total"].iloc[-1] == run.summary["packets"]
    assert list(run.gc.columns) == COLUMNS["gc"] and len(run.gc) == 5
    assert run.summary["live_objects"] == 3_039_000


def test_java_realtime_has_gc_records_and_loss(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    assert run.status == "ok"
    assert set(run.gc["kind"]) == {"pause", "cycle"}
    assert run.periodic["lost"].sum() == run.summary["lost"] == 85_000
    measured = run.periodic[~run.periodic["warmup"]]
    assert measured["packets"].sum() == run.summary["measured_packets"]


def test_cpp_run_has_no_gc_table(runs_dir):
    run = read_run(runs_dir / "cpp-realtime.jsonl")
    assert run.status == "ok" and run.header["design"] == "flat"
    assert run.gc.empty and list(run.gc.columns) == COLUMNS["gc"]
    assert "gc_pause_count" not in run.summary and run.summary["allocs_per_packet"] == 0.0


def test_truncated_run_is_failed_and_keeps_its_records(runs_dir):
    run = read_run(runs_dir / "java-truncated.jsonl")
    assert run.summary is None and run.status == "incomplete" and run.failed
    assert len(run.periodic) == 2 and len(run.gc) == 2
    assert len(run.problems) == 1 and "not JSON" in run.problems[0]


def test_stream_of_lines_and_incremental_reading(runs_dir):
    lines = (runs_dir / "java-realtime.jsonl").read_text().splitlines(keepends=True)
    assert read_run(io.StringIO("".join(lines))).summary["lost_measured"] == 85_000
    reader = RecordReader()
    for line in lines[:5]:
        reader.feed(line)
    partial = reader.run()
    assert partial.status == "incomplete" and len(partial.periodic) == 2
    reader.feed_all(lines[5:])
    assert reader.run().status == "ok" and len(reader.run().periodic) == 6


def test_engine_error_and_misordered_records():
    run = read_run([
        '{"type": "periodic", "t_s": 1.0}',
        '{"type": "header", "schema": 2}',
        '{"type": "summary", "status": "error", "error": "boom"}',
        '{"type": "periodic", "t_s": 2.0}',
        '[1, 2]',
    ])
    assert run.status == "error" and run.failed
    assert len(run.periodic) == 2
    assert len(run.problems) == 5  # before header, header not first, schema, after summary, not a record


def test_real_time_runs_of_both_engines_carry_their_metered_latency(runs_dir):
    # Short runs of the engines as built (Java 11 Parallel in 400 MB, case B at a tenth; flat C++ pool C), 1000 and 500 ns.
    for name in ("java-realtime-metered.jsonl", "cpp-realtime-metered.jsonl"):
        run = read_run(runs_dir / name)
        assert run.status == "ok" and not run.problems
        measured = run.periodic[~run.periodic["warmup"].astype(bool)]
        assert len(measured) and measured["latency_max_ns"].notna().all()
        summary = run.summary
        assert summary["latency_sample_every"] == 64
        assert summary["latency_p50_ns"] <= summary["latency_p99_ns"] <= summary["latency_p999_ns"] \
            <= summary["latency_max_ns"]
        assert summary["latency_max_ns"] == measured["latency_max_ns"].max()  # the window is its periods
    java = read_run(runs_dir / "java-realtime-metered.jsonl").summary
    # No packet lost, yet the packets behind a 14 ms pause waited about that long.
    assert java["lost_measured"] == 0 and java["latency_max_ns"] >= java["gc_pause_max_ms"] * 1e6 * 0.9


def test_runs_recorded_before_latency_was_metered_have_the_columns_empty(runs_dir):
    for name in ("java-batch.jsonl", "java-realtime.jsonl"):
        periodic = read_run(runs_dir / name).periodic
        assert "latency_p999_ns" in periodic and periodic["latency_p999_ns"].isna().all()


def test_a_collector_that_reports_only_cycles_has_no_recorded_pause_not_a_zero_one():
    """JDK 11's ZGC tells the engine of its collections through one bean of cycles: its pauses are in the GC
    log only, so the batch tables read its records' zero pauses as not seen."""
    from allocorpool.data.tables import recorded
    zgc = {"gc_pause_count": 0, "gc_pause_max_ms": 0.0, "gc_cycle_count": 12}
    assert recorded(zgc, "gc_pause_max_ms") is None and recorded(zgc, "gc_cycle_count") == 12
    quiet = {"gc_pause_count": 0, "gc_pause_max_ms": 0.0, "gc_cycle_count": 0}  # no collection in the window
    assert recorded(quiet, "gc_pause_max_ms") == 0.0
    g1 = {"gc_pause_count": 3, "gc_pause_max_ms": 7.5, "gc_cycle_count": 1}
    assert recorded(g1, "gc_pause_max_ms") == 7.5


def test_a_failure_is_its_code_and_a_run_stored_before_codes_the_code_its_engine_words_stood_for():
    stored = ("java.lang.IllegalStateException: the fill phase did not finish within 605.0 s (--duration-s + 600.0 s): "
              "after 26251264 packets the FIFO holds 494999 of 495000 and the store 477202 of 495000 slots")
    assert row_failure({"status": "error", "failure": "pool_exhausted", "error": stored}) == "pool_exhausted"
    assert row_failure({"status": "error", "error": stored}) == "fill_timeout"
    assert row_failure({"status": "error", "failure": float("nan"),
                        "error": "... packets of the timed phase: the run does not fit in the heap"}) == "heap_full"
    assert row_failure({"status": "error", "error": "exit code 134"}) is None
    assert row_failure({"status": "ok", "error": None, "failure": None}) is None
    with pytest.raises(ValueError, match="fill_timeout"):
        records.failure("fill_time_out")


def test_the_tables_columns_are_the_run_records_fields_of_engine_facts():
    facts = lists.ENGINE_FACTS["records"]
    for kind in ("periodic", "gc"):
        assert ["type", *COLUMNS[kind]] == list(facts[kind]["fields"]), kind
    summary = {**facts["summary"]["fields"], **facts["summary"]["java"], **facts["summary"]["cpp"]}
    assert summary["failure"] == "string|null" and summary["error"] == "string|null"


def test_the_records_documentation_names_the_fields_engine_facts_gives():
    # docs/records.md says what each field means; engine-facts.json is the one list of fields and types.
    text = (paths.project_root() / "docs" / "records.md").read_text()
    facts = lists.ENGINE_FACTS["records"]
    for kind, heading in (("header", "## header"), ("periodic", "## periodic"), ("gc", "## gc"),
                          ("summary", "## summary")):
        section = text[text.index(heading):]
        rows = section[:section.index("\n\n")].splitlines()[3:]
        documented: dict[str, str] = {}
        for row in rows:
            names, meaning = (cell.strip() for cell in row.strip("|").split("|", 1))
            engine = "java" if meaning.startswith("*java*") else "cpp" if meaning.startswith("*cpp*") else "fields"
            documented.update(dict.fromkeys((name.strip() for name in names.split(",")), engine))
        given = {name: part for part in ("fields", "java", "cpp") for name in facts[kind].get(part, {})}
        assert documented == given, kind
