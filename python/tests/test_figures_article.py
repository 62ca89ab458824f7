"""figures.py, display.py and article.py: figures from study frames, bundles that survive nbconvert,
and one self-contained HTML article."""

import nbformat
import pandas as pd
import pytest
from conftest import FIXTURES

from allocorpool import study
from allocorpool.chapters import article, methods
from allocorpool.chapters.page import display, figures, sections
from allocorpool.data import gclog, reference
from allocorpool.data.records import read_run
from allocorpool.data.store import Store
from allocorpool.run import sweep
from allocorpool.run.progress import PROGRESS_METADATA
from allocorpool.run.runner import Cell, CellResult

BATCH = pd.DataFrame([
    {"label": "CMS (JDK 11)", "reference_name": "CMS", "strategy_label": s, "case": c, "status": "ok", "ns_per_packet": v}
    for s, c, v in (("Allocation", "A", 400.0), ("Pooling", "A", 300.0), ("Pooling", "B", 500.0))
] + [{"label": "Parallel (JDK 25)", "reference_name": None, "strategy_label": "Mix", "case": "A", "status": "error",
      "ns_per_packet": None}])


def test_batch_bars_with_the_articles_markers():
    fig = figures.ns_per_packet(BATCH, reference.batch(reference.load()))
    bars = [t for t in fig.data if t.type == "bar"]
    markers = [t for t in fig.data if t.type == "scatter"]
    assert sorted(t.name for t in bars) == ["Allocation", "Pooling"]  # the failed Parallel cell has no bar
    assert all(t.name == reference.REFERENCE for t in markers) and sum(t.showlegend for t in markers) == 1
    pooling = next(t for t in markers if t.offsetgroup == "Pooling")
    assert list(pooling.y) == [346.0, 470.0]  # the article's CMS pooling, cases A and B


def test_loss_against_interval_and_pause_histogram():
    probes = pd.DataFrame({"label": "G1 (JDK 11)", "strategy": "pool", "case": "A", "interval_ns": [2000, 600, 300],
                           "ok": [True, True, False], "lost_pct": [0.0, 0.0, 12.5], "status": ["ok", "ok", "error"]})
    fig = figures.loss_vs_interval(probes)
    assert list(fig.data[0].x) == [300, 600, 2000] and list(fig.data[0].y) == [100, 0.0, 0.0]  # failed: 100 %
    pauses = pd.DataFrame({"label": "G1 (JDK 11)", "strategy_label": ["Mix", "Mix", "Pooling"],
                           "duration_ms": [3.0, 4.0, 40.0]})
    assert len(figures.pause_histogram(pauses).data) == 2


def test_a_timeline_lines_pauses_up_with_lost_packets(runs_dir):
    run = read_run(runs_dir / "java-realtime.jsonl")
    cell = Cell(engine="java", jdk=21, collector="g1", case="B", strategy="alloc", mode="realtime", interval_ns=1000,
                duration_s=6, warmup_s=2, gc_log=True)
    result = CellResult(cell, "ok", 0, "", 6.5, run, gclog.parse(runs_dir / "java-realtime.gc.log"))
    fig, attribution = figures.pause_timeline(result, "G1 alloc B")
    assert [t.type for t in fig.data] == ["bar", "scatter"]
    assert (attribution["lost"] == 85_000).all() and attribution["pause_name"].str.contains("Pause Full").any()
    # the ms axis ticks at its own round numbers: synced to the left axis's grid it read 94, 188, 282
    assert fig.layout.yaxis2.tickmode == "auto" and fig.layout.yaxis2.showgrid is False


def test_a_figure_bundle_carries_no_plotly_js_and_failures_are_escaped():
    bundle = display.figure_bundle(figures.ns_per_packet(BATCH))
    assert set(bundle) == {display.PLOTLY_MIMETYPE, "text/html", "text/plain"}
    assert all(axis["separatethousands"] for key, axis in bundle[display.PLOTLY_MIMETYPE]["layout"].items()
               if key.startswith(("xaxis", "yaxis")))  # 2,000 ns on an axis, as in the text
    assert "Plotly.newPlot" in bundle["text/html"] and len(bundle["text/html"]) < 100_000
    failed = pd.DataFrame([{"label": "CMS <11>", "strategy_label": "Mix", "case": "A", "error": "exit code 1",
                            "stderr_tail": "OutOfMemoryError <heap>"}])
    html = display.failure_html(failed, "batch cell")
    assert "CMS &lt;11&gt; Mix A" in html and "OutOfMemoryError &lt;heap&gt;" in html
    assert display.failure_html(failed.iloc[0:0], "batch cell") == "<p>Every batch cell finished.</p>"


def executed_notebook(path, title, figure_html, data_dir, read=(), selection="paper"):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["papermill"] = {"parameters": {"profile": "quick", "data_dir": str(data_dir)}}
    parameters = nbformat.v4.new_code_cell("profile = 'quick'", metadata={"tags": ["parameters"]})
    progress = nbformat.v4.new_code_cell("study.batch(...)", metadata={"tags": ["progress"]})
    progress.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "[quick] running"})]
    shown = nbformat.v4.new_code_cell("show(fig)")
    shown.outputs = [nbformat.v4.new_output("stream", name="stderr", text="progress bar\n"),
                     nbformat.v4.new_output("display_data", data={"text/html": figure_html, "text/plain": "fig"}),
                     # a progress line a chapter's own cell showed (a sweep it started): dropped too
                     nbformat.v4.new_output("display_data", data={"text/plain": "[quick what-if queue  0 s] done"},
                                            metadata=PROGRESS_METADATA),
                     # a function that returned what it had shown: its repr is no part of the article
                     nbformat.v4.new_output("execute_result", data={"text/plain": "[(Claim(text='...'), Verdict(...))]"},
                                            execution_count=1)]
    finish = nbformat.v4.new_code_cell("sweep.finish()")  # the cells the chapter read (Sweep.finish)
    finish.outputs = [nbformat.v4.new_output("display_data", data={
        sweep.READ_CELLS_MIMETYPE: {"profile": "quick", "selection": selection, "keys": list(read)}})] if read else []
    answer = nbformat.v4.new_code_cell("answer.show_answer(...)", metadata={"tags": ["answer"]})
    answer.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": f"The answer, from {path.stem}."})]
    heading = nbformat.v4.new_markdown_cell("## Claims", metadata={"tags": ["lead"]})
    lead = nbformat.v4.new_code_cell("show_claims()", metadata={"tags": ["lead"]})
    lead.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": f"The claims of {path.stem}."})]
    notebook.cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\nSome prose."), parameters, progress, shown, answer,
                      heading, lead, finish]
    nbformat.write(notebook, path)


def test_the_article_is_one_self_contained_page(tmp_path):
    figure_html = display.figure_bundle(figures.ns_per_packet(BATCH))["text/html"]
    data = tmp_path / "data"
    run = read_run(FIXTURES / "runs" / "cpp-realtime.jsonl")
    read = Cell(engine="cpp", design="flat", allocator="glibc", case="A", strategy="pool")
    Store(data).put(CellResult(read, "ok", 0, "", 1800.0, run))
    Store(data).put(CellResult(Cell(engine="cpp", design="flat", allocator="glibc", case="A", strategy="mix"), "ok",
                               0, "", 60.0, run))  # stored, but no chapter read it
    executed_notebook(tmp_path / "01-first.ipynb", "First chapter", figure_html, data, read=[read.key])
    executed_notebook(tmp_path / "02-second.ipynb", "Second chapter", figure_html, data, read=[read.key])
    (tmp_path / "explore-java.ipynb").write_text("not a study notebook")
    merged = article.merge(sorted(tmp_path.glob("0*.ipynb")), "Title")
    sources = [c.source for c in merged.cells]
    assert not any("profile = 'quick'" in s for s in sources)
    shown = [c for c in merged.cells if c.cell_type == "code"]
    # progress output, stderr, a bare repr and the record of the cells read dropped
    # the answers first (the cells tagged answer, moved to the first screen), then each chapter's own
    assert [len(c.outputs) for c in shown] == [1, 1, 0, 1, 1, 0, 0, 1, 1, 0]
    # a chapter shows its prose and its lead cells; the rest unfolds with its box, in place
    folded = [c for c in merged.cells if "folded" in c.metadata.get("tags", [])]
    assert {tuple(t for t in c.metadata["tags"] if t.startswith("fold-")) for c in folded} == {
        ("fold-1",), ("fold-2",), ("fold-methods",)}
    assert not any("lead" in c.metadata.get("tags", []) for c in folded)
    assert sum('id="unfold-' in c.source for c in merged.cells) == 3
    size = article.build(tmp_path, tmp_path / "article.html")
    page = (tmp_path / "article.html").read_text()
    assert size == len(page.encode()) and page.count("Plotly.newPlot") == 2
    assert "body:has(#unfold-1:checked) .celltag_fold-1" in page and "celltag_folded" in page
    assert page.count("plotly.js v") == 1  # the library once, inline
    assert "<script src=" not in page and "<link rel=\"stylesheet\" href=" not in page
    assert "cdnjs" not in page  # no require.js, MathJax or mermaid from a CDN
    assert page.index("First chapter") < page.index("Second chapter") and 'href="#chapter-2"' in page
    assert "study.batch" not in page and "Verdict(" not in page  # code and a bare repr are hidden
    first_screen = page[:page.index("First chapter")]
    assert first_screen.index("The answer, from 01-first") < first_screen.index("Profile <strong>quick</strong>")
    assert "in 1 recorded boot" in first_screen and 'href="#methods"' in first_screen
    assert "205 MB" not in first_screen  # the details are in the Methods appendix, at the end
    methods = page[page.index('id="methods"'):]
    assert "205 MB" in methods and "21.74 ms of ticks" in methods
    assert "<th>CPU</th>" in methods and "in 1 recorded boot" in methods
    assert "No block is registered in this store: every figure is a single run." in methods
    assert "The chapters read 1 of the 2 runs the store holds: 0.5 h of engine time" in methods
    # the chapters' text names every solution: the first screen says which this rendering shows
    every = len(study.solutions(None, study.profile("quick")))
    assert (f"Solutions: <strong>paper</strong> (<code>SOLUTIONS=paper</code>), the 2019 article's solutions as it ran them: "
            f"8 of the profile's {every}; the chapters' text names the others") in methods
    assert sweep.READ_CELLS_MIMETYPE not in page
    assert str(tmp_path) not in page  # no path of the machine that built it


def test_the_methods_appendix_counts_the_cells_other_engine_builds_measured(tmp_path, monkeypatch):
    monkeypatch.setattr(methods.paths, "engine_build", lambda engine: {"cpp": "c0ffee", "java": "beef"}[engine])
    monkeypatch.setattr(study, "SAME_MEASUREMENT_BUILDS", {"cpp": {"s4me": "a comment changed"}, "java": {}})
    data = tmp_path / "quick"
    run = read_run(FIXTURES / "runs" / "cpp-realtime.jsonl")
    for build, strategy, case in (("0ld0ld", "pool", "A"), ("c0ffee", "pool", "A"), ("0ld0ld", "alloc", "A"),
                                  ("0ld0ld", "mix", "A"), ("s4me", "pool", "B")):
        Store(data).put(CellResult(Cell(engine="cpp", design="flat", allocator="glibc", case=case, strategy=strategy,
                                        build=build), "ok", 0, "", 1.0, run))
    said = methods.builds(Store(data).index)
    # pool A's newer cell is this checkout's: alloc's and mix's are an earlier build's, which a sweep measures
    # again; pool B's a build listed as measuring the same, which a sweep takes as its own
    assert f"| C++ | 0ld0ld | 2 | measures them again | {study.MEASUREMENT_CHANGE} |" in said
    assert "| C++ | s4me | 1 | takes them as its own | a comment changed |" in said
    Store(data / "mine").put(CellResult(Cell(engine="cpp", design="flat", allocator="glibc", case="A",
                                             strategy="pool", build="c0ffee"), "ok", 0, "", 1.0, run))
    assert methods.builds(Store(data / "mine").index) == "Every cell shown was measured by this checkout's engine builds."


def test_a_timeline_draws_the_metered_latency_under_the_pauses(runs_dir):
    run = read_run(runs_dir / "java-realtime-metered.jsonl")
    cell = Cell(engine="java", jdk=11, collector="parallel", case="B", strategy="alloc", mode="realtime",
                interval_ns=1000, duration_s=4, warmup_s=1)
    fig, attribution = figures.pause_timeline(CellResult(cell, "ok", 0, "", 5.0, run), "Parallel alloc B")
    late = [t for t in fig.data if t.name and "after due" in t.name]
    assert len(late) == 2 and max(late[0].y) == run.periodic["latency_max_ns"].max() / 1e6
    assert not len(attribution)  # it lost nothing
    sentence = sections._latency_sentence(run.summary)
    assert sentence.startswith("after the warm-up, half its packets were made within 473 ns of when")
    assert [display.duration(ns) for ns in (473.0, 3_210.0, 298e6, 1.5e9)] == ["473 ns", "3.21 µs", "298 ms", "1.5 s"]
    assert sections._latency_sentence({}) is None


def test_the_latency_table_keeps_the_loss_free_searches_and_says_which_were_not_metered(monkeypatch):
    searches = pd.DataFrame([
        {"label": "G1", "strategy_label": "Pooling", "case": "A", "outcome": "found", "interval_ns": 300,
         "latency_p50_ns": 500, "latency_p999_ns": 8_000_000, "latency_max_ns": 12_000_000},
        {"label": "G1", "strategy_label": "Mix", "case": "A", "outcome": "found", "interval_ns": 100,
         "latency_p50_ns": 400, "latency_p999_ns": 200_000, "latency_max_ns": 900_000},
        {"label": "G1", "strategy_label": "Allocation", "case": "A", "outcome": "found", "interval_ns": 500,
         "latency_p50_ns": None, "latency_p999_ns": None, "latency_max_ns": None},
        {"label": "G1", "strategy_label": "Pooling", "case": "C", "outcome": "lost", "interval_ns": None,
         "latency_p50_ns": None, "latency_p999_ns": None, "latency_max_ns": None}])
    table = sections.latency_table(searches)
    assert list(table["strategy_label"]) == ["Pooling", "Mix", "Allocation"]
    assert table["p999_ms"].tolist()[:2] == [8.0, 0.2]
    notes = []
    monkeypatch.setattr(sections.show, "note", notes.append)
    monkeypatch.setattr(sections.show, "show_table", lambda *args, **kwargs: None)
    sections.show_latency(searches)
    shown = " ".join(notes)
    assert "1 of 2 cells made 99.9 % of their packets within 1 ms" in shown
    assert "G1, Pooling, case A: 8 ms (max 12 ms) at 300 ns" in shown
    assert "1 loss-free interval comes from an engine build that did not meter latency" in shown


def test_a_chapter_says_which_of_its_solutions_the_selection_or_the_profile_leaves_out(tmp_path, monkeypatch):
    monkeypatch.setenv(sweep.SOLUTIONS_VARIABLE, "paper")
    paper = sweep.Sweep("full", tmp_path, progress=False)
    assert [(s.name, why) for s, why in paper.left_out("g1")] == [("g1-25", "the selection paper"),
                                                                  ("g1-25-coh", "the selection paper")]
    monkeypatch.setenv(sweep.SOLUTIONS_VARIABLE, "all")
    assert sweep.Sweep("full", tmp_path, progress=False).left_out("g1") == []
    ci = sweep.Sweep("ci", tmp_path, progress=False)
    assert {why for _, why in ci.left_out("g1")} <= {"the profile ci"}
    said = []
    monkeypatch.setattr(sections.show, "note", said.append)
    sections.show_left_out(paper, "g1")  # a label holding a comma is not read as two solutions
    assert said == ["This rendering keeps the 2019 article's solutions as it ran them; it leaves out G1 25; "
                    "G1 25, compact headers (the rendering of every solution shows them)."]
    with pytest.raises(ValueError, match="the notebooks ran with different selections of solutions"):
        nb = [nbformat.v4.new_notebook(), nbformat.v4.new_notebook()]
        for notebook, name in zip(nb, ("paper", "all")):
            cell = nbformat.v4.new_code_cell("sweep.finish()")
            cell.outputs = [nbformat.v4.new_output("display_data", data={
                sweep.READ_CELLS_MIMETYPE: {"profile": "full", "selection": name, "keys": []}})]
            notebook.cells = [cell]
        article.selection_of(nb)


def test_the_cells_behind_a_verdict_are_named_for_the_reader():
    # the claims' folded tables showed the data's names: label, strategy_label, interval_ns, loss_pct
    table = pd.DataFrame([{"label": "G1 (JDK 11)", "strategy_label": "Pooling", "case": "C", "outcome": "lost",
                           "interval_ns": None, "loss_pct": 33.0, "agrees": True}])
    assert display.readable(table).columns.tolist() == [
        "solution", "strategy", "case", "outcome", "loss-free interval, ns", "lost at 1,000 ns, %", "agrees"]
    indexed = display.readable(table.set_index(["label", "strategy_label", "case"]))
    assert list(indexed.index.names) == ["solution", "strategy", "case"]


def test_a_table_shows_keys_by_their_labels_and_never_a_key_beside_its_label():
    # the sentinel cells behind a chapter 12 verdict showed "parallel-11" beside its label, and the echo's tables
    # showed collector keys ("g1") as their index: both read as internal names in the page
    from allocorpool.chapters.page import readability
    from allocorpool.lists import SOLUTIONS_BY_NAME
    table = pd.DataFrame([{"solution": "parallel-11", "label": SOLUTIONS_BY_NAME["parallel-11"].label,
                           "strategy": "pool", "strategy_label": "Pooling", "case": "A", "agrees": False},
                          {"solution": "g1", "label": SOLUTIONS_BY_NAME["g1"].label,
                           "strategy": "alloc", "strategy_label": "Allocation", "case": "C", "agrees": True}])
    shown = display.readable(table)
    assert shown.columns.tolist() == ["solution", "strategy", "case", "agrees"]
    assert shown["solution"].tolist() == [SOLUTIONS_BY_NAME["parallel-11"].label, SOLUTIONS_BY_NAME["g1"].label]
    echo = pd.DataFrame({"transport": ["chronicle", "chronicle"], "jdk": [11, 25], "collector": ["g1", "zgc-gen"],
                         "events": [1.0, 2.0]}).set_index(["transport", "jdk", "collector"])
    shown = display.readable(echo)
    assert list(shown.index.names) == ["transport", "JDK", "collector"]
    assert shown.index.get_level_values("collector").tolist() == ["G1", "Generational ZGC"]
    alone = display.readable(pd.DataFrame({"solution": ["g1", "someone-else"], "x": [1.0, 2.0]}).set_index("solution"))
    assert alone.index.tolist() == [SOLUTIONS_BY_NAME["g1"].label, "someone-else"]
    html = display.style(display.readable(table)).to_html() + display.style(display.readable(echo)).to_html()
    assert not readability.findings(html)
    assert readability.findings(display.style(table).to_html())  # the raw table is what the rule catches


def test_a_long_commit_list_in_the_appendix_is_code_not_a_sentence():
    import mistune

    from allocorpool.chapters.page import readability
    index = pd.DataFrame({"commit": [f"{n:012x}" for n in range(63)] + [None]})
    html = mistune.html(methods.commits(index))
    assert "(63)" in html and html.count("<code>") == 63
    assert readability.findings(html) == []  # as prose, 63 hashes would be a sentence of 63 words
    assert "not yet committed" not in html
    dirty = methods.commits(pd.DataFrame({"commit": ["0" * 12, "1" * 12 + "-dirty", "1" * 12 + "-dirty"]}))
    assert dirty.startswith("1 of the 2 builds carried changes not yet committed")


def test_a_progress_line_in_a_notebook_carries_the_metadata_the_article_drops_it_by(monkeypatch):
    from IPython import display as ipython_display

    from allocorpool.run import progress
    shown = []

    class Handle:
        def update(self, obj, **kwargs):
            shown.append(kwargs)

    def display(obj, **kwargs):
        shown.append(kwargs)
        return Handle()

    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    monkeypatch.setattr(ipython_display, "display", display)
    status = progress.Status(True, "quick what-if queue")
    status.show("running")
    status.show("done")
    assert [kwargs["metadata"] for kwargs in shown] == [PROGRESS_METADATA] * 2
    assert progress.is_progress({"metadata": PROGRESS_METADATA}) and not progress.is_progress({"metadata": {}})


def test_a_section_with_nothing_to_show_here_is_left_out_of_the_article(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["papermill"] = {"parameters": {"profile": "quick", "data_dir": str(tmp_path / "data")}}
    empty = nbformat.v4.new_code_cell("show.nothing_to_show(...)")
    empty.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": "Nothing here."},
                                            metadata=display.NOTHING_METADATA)]
    kept = nbformat.v4.new_code_cell("show.note(...)")
    kept.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": "Something."})]
    notebook.cells = [nbformat.v4.new_markdown_cell("# Chapter\n\nIntro."),
                      nbformat.v4.new_markdown_cell("## Empty section\n\nProse."), empty,
                      nbformat.v4.new_markdown_cell("## Full section\n\nProse."), kept]
    nbformat.write(notebook, tmp_path / "01-chapter.ipynb")
    merged = article.merge([tmp_path / "01-chapter.ipynb"], "Title")
    sources = "\n".join(c.source for c in merged.cells)
    assert "## Full section" in sources and "Something." in str([c.get("outputs") for c in merged.cells])
    assert "Empty section" not in sources and "Nothing here." not in str([c.get("outputs") for c in merged.cells])


def test_row_labels_are_named_in_the_heading_row_not_on_an_empty_row_of_their_own():
    # pandas put "solution / strategy / case" on a second heading row whose other cells were empty
    from html.parser import HTMLParser

    class Heading(HTMLParser):
        rows: list[list[str]] = []

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])

        def handle_data(self, data):
            if self.rows and data.strip():
                self.rows[-1].append(data.strip())

    def heading_rows(markup):
        parser = Heading()
        parser.rows = []
        parser.feed(markup.split("<tbody>")[0])
        return parser.rows

    table = pd.DataFrame({"solution": ["a", "a", "b"], "case": ["A", "B", "A"], "x": [1, 2, 3], "y": [4, 5, 6]})
    markup = display.one_heading_row(table.set_index(["solution", "case"]).style.to_html())
    assert heading_rows(markup) == [["solution", "case", "x", "y"]]
    assert markup.count("<td") == 6 and markup.count('class="row_heading') == 5
    grouped = table.set_index(["solution", "case"])
    grouped.columns = pd.MultiIndex.from_tuples([("batch", "1"), ("batch", "2")])
    assert heading_rows(display.one_heading_row(grouped.style.to_html())) == [["batch"], ["solution", "case", "1", "2"]]
    # only the upper level of the columns has a name: the lower heading row's corner is free
    grouped.columns = pd.MultiIndex.from_tuples([("batch", "1"), ("batch", "2")], names=["mode", None])
    assert heading_rows(display.one_heading_row(grouped.style.to_html())) == [
        ["mode", "batch"], ["solution", "case", "1", "2"]]
    # the columns' own name holds the corner: the table stays as pandas wrote it
    grouped.columns = pd.MultiIndex.from_tuples([("batch", "1"), ("batch", "2")], names=["mode", "size"])
    named = grouped.style.to_html()
    assert display.one_heading_row(named) == named
    plain = table.style.hide(axis="index").to_html()
    assert display.one_heading_row(plain) == plain


def test_a_folded_table_keeps_the_row_labels_its_index_names(monkeypatch):
    # the batch chapter's folded CPU table lost its solution, case and strategy: every fold hid the index
    shown = []
    monkeypatch.setattr(display, "display", lambda html: shown.append(html.data))
    table = pd.DataFrame({"solution": ["Parallel", "Parallel"], "case": ["A", "C"], "strategy": ["Pooling"] * 2,
                          "wall, ns": [118.2, 873.8]})
    display.show_details("CPU and wall time", table.set_index(["solution", "case", "strategy"]))
    display.show_details_group("Each", [("one", table.set_index(["solution", "case", "strategy"]))])
    for markup in shown:
        assert "Parallel" in markup and ">C<" in markup and "Pooling" in markup and "solution" in markup
    display.show_details("Unnamed rows", table)  # a row count is no label: left out
    assert ">0<" not in shown[-1] and ">1<" not in shown[-1] and "Parallel" in shown[-1]


def test_a_table_writes_large_numbers_with_thousands_separators_as_the_prose_does(monkeypatch):
    # the continuum's crossover table printed "100000" beside prose that writes "100,000"
    shown = []
    monkeypatch.setattr(display, "display", lambda html: shown.append(html.data))
    display.show_table(pd.DataFrame({"size": [100_000, 1_000], "ns": [1234.5, 5.0]}), precision=0)
    assert "100,000" in shown[0] and "1,234" in shown[0] and "100000" not in shown[0]


def test_the_calibration_table_gives_each_boots_range_with_separators(tmp_path):
    store = Store(tmp_path)
    (tmp_path / "cells").mkdir(exist_ok=True)
    for block, (load, reference) in enumerate(((137.0, 475.0), (137.0, 2809.0))):
        store.upsert("blocks", {"block": f"b{block}", "boot": "e611ccc0", "kernel": "Linux 6.18",
                                "cpu_model": "AMD EPYC 9R14", "started_utc": f"2026-11-2{block}T00:00:00",
                                "load_ns_16mib": load, "load_ns_1024mib": None,
                                "reference_ns_per_packet": reference}, ("block",))
    said = methods.calibrations(tmp_path)
    # the key of the chapters' "machine 1..n": each boot's number, id and CPU
    assert "| machine 1 | e611ccc0 | AMD EPYC 9R14 | Linux 6.18 | 2 | 137 | — | 475-2,809 |" in said, said


def test_a_chapter_none_of_whose_runs_was_measured_shows_its_title_and_that_sentence(tmp_path):
    # chapter 11 at full size printed its tables of 420 runs, each "not measured"
    figure_html = display.figure_bundle(figures.ns_per_packet(BATCH))["text/html"]
    executed_notebook(tmp_path / "01-first.ipynb", "First chapter", figure_html, tmp_path / "data")
    notebook = nbformat.read(tmp_path / "01-first.ipynb", as_version=4)
    said = nbformat.v4.new_code_cell("show_runs()")
    said.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": "None of its 4 runs was measured."},
                                           metadata=display.NOTHING_MEASURED_METADATA)]
    notebook.cells.insert(3, said)
    nbformat.write(notebook, tmp_path / "01-first.ipynb")
    merged = article.merge([tmp_path / "01-first.ipynb"], "Title")
    start = next(i for i, c in enumerate(merged.cells) if c.source == '<a id="chapter-1"></a>')
    chapter = merged.cells[start + 1:merged.cells.index(next(c for c in merged.cells if 'id="methods"' in c.source))]
    assert [c.source for c in chapter] == ["# First chapter\n\nSome prose.", "None of its 4 runs was measured."]
