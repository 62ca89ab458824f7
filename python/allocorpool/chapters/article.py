"""Renders the executed study notebooks as one self-contained HTML article.

The notebooks (build/executed/<profile>/NN-*.ipynb, in name order) are merged into one, with
their code hidden; their parameters cells, stream output, the output of cells tagged `progress`
and any other progress line dropped (errors are kept); and an opening section that says where the figures come from
(the stored cells the chapters read, their machines and engine time) and lists the chapters.
nbconvert's lab template renders it with plotly.js inlined once in the page's head, and with no
script or style fetched from anywhere else (require.js, MathJax and mermaid are left out: the
study uses none of them).

Usage: python -m allocorpool.chapters.article EXECUTED_DIR OUT.html
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

import nbformat
import pandas as pd
from jinja2 import DictLoader
from nbconvert import HTMLExporter
from plotly.offline import get_plotlyjs

from allocorpool import machine, paths, study
from allocorpool.chapters import answer
from allocorpool.chapters.page import display
from allocorpool.chapters.methods import appendix
from allocorpool.data.store import DEFAULT_PROFILE, Store
from allocorpool.run.progress import is_progress
from allocorpool.run.sweep import READ_CELLS_MIMETYPE

TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{% from 'celltags.j2' import celltags %}
{%- block html_head_js -%}
<script type="text/javascript">{{ resources.plotly_js }}</script>
{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{% block extra_css %}
<style type="text/css">
  main { max-width: 1200px; margin: 0 auto; }
  .jp-RenderedHTMLCommon table { margin: 0.5em 0 1em 0; }
  /* A table keeps its figures on one line while it fits its column; one that would not wraps its cells. */
  .jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th { white-space: normal !important; }
  .celltag_folded { display: none; }
  label.unfold { cursor: pointer; color: #1a5fb4; }
  label.unfold input { margin-right: 0.5em; }
{{ resources.fold_css }}
</style>
<script type="text/javascript">
  // A chapter unfolded: its figures, drawn while hidden, take the width they now have.
  document.addEventListener("change", e => {
    if (e.target.matches("label.unfold input")) window.dispatchEvent(new Event("resize"));
  });
</script>
{% endblock extra_css %}
{% block markdowncell scoped %}
<div class="jp-Cell jp-MarkdownCell jp-Notebook-cell {{ celltags(cell) }}">
<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput" data-mime-type="text/markdown">
{{ cell.source | markdown2html | strip_files_prefix }}
</div>
</div>
{%- endblock markdowncell %}
"""
LEAD_TAG = "lead"  # a cell the article shows unfolded: what a reader of the chapter must see
FOLDED_TAG = "folded"  # a cell the article hides until its chapter is unfolded
DROPPED_TAGS = {"parameters", "injected-parameters", "check"}  # check: the test profile's last cell


def fold(cells: list[nbformat.NotebookNode], name: str, what: str) -> list[nbformat.NotebookNode]:
    """A chapter as the article shows it: its opening prose and the cells tagged LEAD_TAG, the rest hidden
    behind one line that unfolds them in place (errors stay in view). Nothing to hide: the cells as they are."""
    hidden = [cell for cell in cells[1:] if LEAD_TAG not in cell.metadata.get("tags", [])
              and not any(o.get("output_type") == "error" for o in cell.get("outputs", []))]
    if not hidden:
        return cells
    for cell in hidden:
        cell.metadata["tags"] = list(cell.metadata.get("tags", [])) + [FOLDED_TAG, f"fold-{name}"]
    toggle = nbformat.v4.new_markdown_cell(f'<label class="unfold"><input type="checkbox" id="unfold-{name}">'
                                           f"{html.escape(what)}</label>")
    return cells[:1] + [toggle] + cells[1:]


def fold_css(names: list[str]) -> str:
    """Each folded chapter shows its hidden cells while its box is ticked."""
    return "\n".join(f"  body:has(#unfold-{n}:checked) .celltag_fold-{n} {{ display: block; }}" for n in names)


def chapter_title(notebook: nbformat.NotebookNode, fallback: str) -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def parameters(notebooks: list[nbformat.NotebookNode]) -> tuple[str, str]:
    """The profile and data folder the notebooks ran with (papermill records them); one for all."""
    found = {(str(p.get("profile", "")), str(p.get("data_dir", "")))
             for p in (nb.metadata.get("papermill", {}).get("parameters", {}) for nb in notebooks)}
    if len(found) != 1:
        raise ValueError(f"the notebooks ran with different profiles or data folders: {sorted(found)}")
    profile_name, data_dir = found.pop()
    return profile_name or DEFAULT_PROFILE, data_dir


def read_records(notebooks: list[nbformat.NotebookNode]) -> list[dict]:
    """Each chapter's record of what it read (Sweep.finish: READ_CELLS_MIMETYPE)."""
    return [output.data[READ_CELLS_MIMETYPE] for notebook in notebooks for cell in notebook.cells
            for output in cell.get("outputs", []) if READ_CELLS_MIMETYPE in output.get("data", {})]


def cells_read(notebooks: list[nbformat.NotebookNode], profile_name: str) -> set[str] | None:
    """The keys of the profile's stored cells the chapters read (Sweep.finish records them); None where
    no chapter recorded any (notebooks executed before they did)."""
    records = read_records(notebooks)
    if not records:
        return None
    return {key for record in records if record["profile"] == profile_name for key in record["keys"]}


def selection_of(notebooks: list[nbformat.NotebookNode]) -> str | None:
    """The selection of solutions the chapters ran with (Sweep.finish records it); None where none recorded
    one (notebooks executed before they did)."""
    found = {record.get("selection") for record in read_records(notebooks)} - {None}
    if len(found) > 1:
        raise ValueError(f"the notebooks ran with different selections of solutions: {sorted(found)}")
    return found.pop() if found else None


def solutions_sentence(prof: study.Profile, selection: str) -> str:
    """Which of the profile's solutions the chapters show."""
    every = study.solutions(None, prof)
    shown = study.solutions(None, prof, study.selection(selection))
    text = (f"Solutions: **{selection}** (`SOLUTIONS={selection}`), {study.SELECTION_TEXTS[selection]}: "
            f"{len(shown)} of the profile's {len(every)}")
    return text + ("; the chapters' text names the others, which `SOLUTIONS=all` shows." if len(shown) < len(every)
                   else ".")


def summary_line(profile_name: str, data_dir: str, read: set[str] | None, selection: str | None) -> str:
    """The first screen's one line of provenance: profile, solutions, machines, dates and boots; the rest is in
    the Methods appendix."""
    prof = study.profile(profile_name)
    root = Path(data_dir) if data_dir else paths.data_dir() / prof.name
    index = Store(root).index if (root / "cells").is_dir() else pd.DataFrame()
    if len(index) and read is not None:
        index = index[index["key"].isin(read)]
    shown = f"{len(study.solutions(None, prof, study.selection(selection)))} solutions" if selection else "solutions"
    if not len(index):
        return f"Profile {prof.name}, {shown}: the store holds nothing the chapters read. [Methods](#methods)."
    dates = pd.to_datetime(index["stored_utc"])
    cpus = sorted({f"{machine.cpu_name(cpu)}, {int(n)} CPUs"
                   for cpu, n in zip(index["cpu_model"], index["cpus"]) if pd.notna(n)})
    kinds = f"{len(cpus)} CPU models" if len(cpus) > 1 else "one CPU model"
    boots = index["boot_id"].nunique() if "boot_id" in index else 0
    kernels = index["kernel"].nunique() if "kernel" in index else 0
    return (f"Profile **{prof.name}** ({prof.description}); {shown}. Measured on {kinds} ({'; '.join(cpus)}) from "
            f"{dates.min():%Y-%m-%d} to {dates.max():%Y-%m-%d}, in {boots} recorded boot{'s' if boots != 1 else ''} "
            f"under {kernels} kernel build{'s' if kernels != 1 else ''}. How, where and with what: [Methods](#methods).")


def merge(paths: list[Path], title: str) -> nbformat.NotebookNode:
    """One notebook of the chapters, each behind an anchor: first the title, the answer (the cells tagged
    ANSWER_TAG, in order), one line of provenance and the chapters' list; last the Methods appendix."""
    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    merged = nbformat.v4.new_notebook()
    merged.metadata = dict(notebooks[0].metadata) if notebooks else {}
    merged.metadata["title"] = title
    contents = "".join(f'<li><a href="#chapter-{i}">{html.escape(chapter_title(nb, path.stem))}</a></li>'
                       for i, (nb, path) in enumerate(zip(notebooks, paths), 1))
    profile_name, data_dir = parameters(notebooks)
    read = cells_read(notebooks, profile_name)
    selection = selection_of(notebooks)
    merged.cells.append(nbformat.v4.new_markdown_cell(f"# {title}"))
    answer_cells: list[nbformat.NotebookNode] = []
    merged.cells.append(nbformat.v4.new_markdown_cell(
        f"{summary_line(profile_name, data_dir, read, selection)}\n\n<ol>{contents}</ol>"))
    for i, notebook in enumerate(notebooks, 1):
        merged.cells.append(nbformat.v4.new_markdown_cell(f'<a id="chapter-{i}"></a>'))
        start = len(merged.cells)
        for cell in notebook.cells:
            tags = set(cell.get("metadata", {}).get("tags", []))
            if DROPPED_TAGS & tags:
                continue
            if cell.cell_type == "markdown" and answer.ANSWER_TAG in tags:
                answer_cells.append(cell)
                continue
            if cell.cell_type == "code":
                progress = "progress" in tags
                cell.outputs = [o for o in cell.outputs if o.get("output_type") == "error"
                                or (o.get("output_type") != "stream" and not progress and not _bare_value(o)
                                    and not is_progress(o) and READ_CELLS_MIMETYPE not in o.get("data", {}))]
                if answer.ANSWER_TAG in tags:
                    answer_cells.append(cell)
                    continue
                if cell.outputs and all(map(display.is_nothing_to_show, cell.outputs)):
                    _drop_section_heading(merged)  # a section with nothing to show here is left out
                    continue
            merged.cells.append(cell)
        unmeasured = [o for cell in merged.cells[start:] for o in cell.get("outputs", []) if display.is_nothing_measured(o)]
        if unmeasured:  # the chapter's title and the sentence that says nothing was measured, nothing else
            merged.cells[start + 1:] = [nbformat.v4.new_markdown_cell(unmeasured[0]["data"]["text/markdown"])]
        else:
            merged.cells[start:] = fold(merged.cells[start:], str(i), f"Show chapter {i} in full")
    merged.cells[1:1] = answer_cells
    said = solutions_sentence(study.profile(profile_name), selection) if selection is not None else ""
    methods = appendix(profile_name, data_dir, read, selection, said)
    merged.cells += fold([nbformat.v4.new_markdown_cell('<a id="methods"></a>\n\n## Methods: where these figures '
                                                        "come from"), nbformat.v4.new_markdown_cell(methods)],
                         "methods", "Show the methods: machines, boots, builds and commits")
    return merged


def _drop_section_heading(merged: nbformat.NotebookNode) -> None:
    """Drops the markdown cell of a section (a heading and its prose) that the merge just appended."""
    if merged.cells and merged.cells[-1].cell_type == "markdown" and merged.cells[-1].source.startswith("## "):
        merged.cells.pop()


def _bare_value(output: nbformat.NotebookNode) -> bool:
    """A cell's last value shown as its Python repr only (a function that returned what it had shown):
    never a part of the article, which shows tables, notes and figures as displays."""
    return output.get("output_type") == "execute_result" and set(output.get("data", {})) == {"text/plain"}


def render(notebook: nbformat.NotebookNode) -> str:
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"article.html.j2": TEMPLATE})],
                            template_file="article.html.j2", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True)
    folded = sorted({tag[len("fold-"):] for cell in notebook.cells for tag in cell.metadata.get("tags", [])
                     if tag.startswith("fold-")})
    body, _ = exporter.from_notebook_node(notebook, resources={"plotly_js": get_plotlyjs(),
                                                               "fold_css": fold_css(folded)})
    return body


def build(executed: Path, out: Path, title: str = "To allocate or to pool? Measured again") -> int:
    """Writes the article; returns its size in bytes."""
    paths = sorted(executed.glob("[0-9][0-9]-*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no executed notebooks in {executed}; run `make sweep` first")
    text = render(merge(paths, title))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m allocorpool.chapters.article", description=__doc__.splitlines()[0])
    parser.add_argument("executed", type=Path, help="folder of executed notebooks")
    parser.add_argument("out", type=Path, help="the HTML file to write")
    parser.add_argument("--title", default="To allocate or to pool? Measured again", help="the page's title")
    args = parser.parse_args(argv)
    try:
        size = build(args.executed, args.out, args.title)
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{args.out}: {size / 1e6:.1f} MB from {len(list(args.executed.glob('[0-9][0-9]-*.ipynb')))} notebooks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
