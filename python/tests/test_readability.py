"""chapters/readability.py: the rules the rendered article is held to, on small pages."""

import dataclasses

from allocorpool.chapters.page import readability
from allocorpool.chapters.article import summary_line
from allocorpool.data import gclog
from allocorpool.data.records import read_run
from allocorpool.data.store import Store
from allocorpool.run.runner import Cell, CellResult


def _rules(html):
    return [finding.rule for finding in readability.findings(html)]


def test_a_long_sentence_is_found_and_a_short_one_is_not():
    long = " ".join(["word"] * 51) + "."
    assert _rules(f"<p>{long} Short one.</p>") == ["sentence of 51 words"]
    assert _rules("<p>A sentence, e.g. this one, ends here. 1.5 x is a figure.</p>") == []


def test_internal_names_raw_values_progress_lines_and_unexplained_words_are_found():
    page = ("<p>The cell java_jdk11_g1_A ran. Sweep(profile) said so in store.parquet.</p>"
            "<p>[full batch   12 s] running cpp_flat</p><p>[full what-if queue      0 s] done</p>"
            "<p>The seed's figure.</p>"
            "<table><caption>Read from data/reference/x.csv</caption><tr><th>ns_per_packet</th><td>True</td>"
            "<td>yes</td></tr></table>")
    rules = _rules(page)
    assert "internal name 'java_jdk11_g1_A'" in rules and "internal name 'Sweep(profile)'" in rules
    assert "internal name 'store.parquet'" in rules and "internal name 'data/reference/x.csv'" in rules
    assert _rules("<p>Results are kept in data/full.</p>") == ["internal name 'data/full'"]
    assert _rules("<p>Results are kept in <code>data/full</code>.</p>") == ["internal name 'data/full'"]
    assert _rules("<p>Run <code>make study PROFILE=quick</code>.</p><pre>data/full</pre>") == []
    assert "progress line '[full batch   12 s]'" in rules and "progress line '[full what-if queue      0 s]'" in rules
    assert "unexplained word 'seed'" in rules
    assert "internal name in a table" in rules and "raw value in a table" in rules


def test_a_tables_record_keys_and_file_names_are_found():
    # the queue chapter's table showed its pairs by their record keys, the Methods builds table file names
    page = ("<table><tr><td>cpp-java</td><td>parallel-11</td><td>Parallel 11</td><td>boot-dependent</td>"
            "<td>moved to engine.hpp for a test</td><td>3.5 ns</td></tr></table>")
    assert _rules(page) == ["internal name in a table", "internal name in a table",
                            "file name 'engine.hpp' in a table"]


def test_a_figures_legend_naming_a_record_key_is_found():
    page = ('<script>Plotly.newPlot("f", [{"name": "cpp-cpp", "x": [1]}, {"name": "C++ to Java"},'
            ' {"name":"ns_per_packet"}])</script>')
    assert _rules(page) == ["internal name in a legend", "internal name in a legend"]


def test_a_progress_line_shown_as_plain_text_is_found():
    rules = _rules("<pre>[full what-if queue      0 s] done: 3 what-if probes</pre><pre>x = 1</pre>")
    assert rules == ["progress line '[full what-if queue      0 s]'"]


def test_code_and_scripts_are_not_prose():
    assert _rules("<script>var a_b = 1;</script><pre>make_study()</pre><p>Fine.</p>") == []


def test_the_first_screen_names_a_cpu_without_its_trademark_marks(tmp_path, runs_dir):
    """/proc/cpuinfo's "Intel(R) Xeon(R)" reads like an API name; the provenance line prints the plain name."""
    run = read_run(runs_dir / "java-batch.jsonl")
    run = dataclasses.replace(run, header={**run.header, "cpu_model": "Intel(R) Xeon(R) CPU @ 2.20GHz"})
    cell = Cell(engine="java", jdk=21, collector="g1", case="A", strategy="alloc")
    Store(tmp_path).put(CellResult(cell, "ok", 0, "", 1.0, run, gclog.parse(runs_dir / "java-realtime.gc.log")))
    line = summary_line("ci", str(tmp_path), None, None)
    assert "(Intel Xeon CPU @ 2.20GHz, 2 CPUs)" in line, line
    assert readability.findings(f"<p>{line}</p>") == []


def test_the_first_screen_counts_cpu_models_apart_from_machines(tmp_path, runs_dir):
    """Machines differ by kernel as well as CPU: the line counts CPU models, boots and kernel builds, each by its
    name (it said "3 machines" where three kernel builds ran on two CPU models)."""
    run = read_run(runs_dir / "java-batch.jsonl")
    log = gclog.parse(runs_dir / "java-realtime.gc.log")
    machines = (("alloc", "AMD EPYC", "6.1"), ("pool", "AMD EPYC", "6.2"), ("mix", "Intel(R) Xeon(R) Processor", "6.1"))
    for strategy, cpu, kernel in machines:
        header = {**run.header, "cpu_model": cpu, "os": kernel}
        cell = Cell(engine="java", jdk=21, collector="g1", case="A", strategy=strategy)
        Store(tmp_path).put(CellResult(cell, "ok", 0, "", 1.0, dataclasses.replace(run, header=header), log))
    line = summary_line("full", str(tmp_path), None, "paper")
    assert "Measured on 2 CPU models (AMD EPYC, 2 CPUs; Intel Xeon Processor, 2 CPUs)" in line, line
    assert "under 2 kernel builds" in line and "machines" not in line, line
    assert readability.findings(f"<p>{line}</p>") == []  # the full profile's long description is a sentence apart


def test_a_chapters_plan_names_strategies_by_their_labels():
    """The plan lines of chapters 13-15 printed the engine's keys ('alloc, pool'); they read as words now."""
    from allocorpool.chapters.page import display
    said = f"{display.strategies(['alloc', 'pool']).capitalize()} in {display.cases(['C'])}."
    assert said == "Allocation and pooling in case C."
    assert display.cases(["A", "B", "C"]) == "cases A, B and C"
    assert readability.findings(f"<p>{said}</p>") == []
