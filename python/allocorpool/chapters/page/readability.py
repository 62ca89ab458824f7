"""What a reader of the rendered article must not meet: sentences over 50 words and internal names.

The article's prose is read from its paragraphs, list items and headings (tables and figures are
not sentences). A finding names the rule and quotes the text, so a test can list every one.
The same rules run in the browser test over the page as Chromium lays it out, and from the
command line over a rendered file: python -m allocorpool.chapters.page.readability build/article.html
"""

from __future__ import annotations

import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

from allocorpool.lists import SOLUTIONS_BY_NAME
from allocorpool.run.queue_bench import QUEUE_PAIRS

MAX_WORDS = 50
PROSE_TAGS = ("p", "li", "h1", "h2", "h3", "h4", "summary", "figcaption")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "cf.", "approx.", "No.", "Fig.", "et al.")
_WORD = re.compile(r"[A-Za-z0-9]")

# An underscore joining two words (a cell key, a column or a function name), a call or a module
# path, a file name, a progress line of the sweep, and words the reader is never told.
INTERNAL_NAME = re.compile(r"\b[a-z][a-z0-9]*_[A-Za-z0-9_=]+\b|\b\w+\(\w*\)|\b\w+\.(?:py|parquet|jsonl|ipynb|json|csv)\b"
                           r"|\b(?:data|build|notebooks|python|docs)/[\w./-]*\w")
# A project path, in prose or set as inline code: the reader of the page has no checkout.
PROJECT_PATH = re.compile(r"\b(?:data|build|notebooks|python|docs)/[\w./-]*\w")
PROGRESS_LINE = re.compile(r"\[\w+(?: [\w-]+)+ +\d+ s\]|\brunning (?:java|cpp)_")
RAW_VALUES = {"True", "False", "nan", "NaN", "None"}
# A file of the project named in a table's cell, and the records' keys a table must show by their labels.
FILE_NAME = re.compile(r"\b[\w-]+\.(?:py|parquet|jsonl|ipynb|json|csv|md|txt|cpp|hpp|java|h)\b")
RECORD_KEYS = set(SOLUTIONS_BY_NAME) | set(QUEUE_PAIRS)
# A figure's trace name (its legend entry) in the plotly figure's JSON of the page.
TRACE_NAME = re.compile(r'"name":\s*"([^"\\]{1,200})"')
BANNED_WORDS = re.compile(r"\bseeds?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.text[:300]}"


def words(sentence: str) -> int:
    return sum(1 for token in sentence.split() if _WORD.search(token))


def sentences(paragraph: str) -> list[str]:
    text = " ".join(paragraph.split())
    for abbreviation in _ABBREVIATIONS:
        text = text.replace(abbreviation, abbreviation.replace(".", "\u2024"))
    return [part.replace("\u2024", ".") for part in _SENTENCE_END.split(text) if part.strip()]


def prose(html: str) -> list[str]:
    """The text of each prose element of the page: the tables' captions, then the paragraphs, list items and
    headings outside tables (innermost elements only)."""
    soup = BeautifulSoup(html, "html.parser")
    found = [caption.get_text(" ", strip=True) for caption in soup.find_all("caption")]
    for hidden in soup.find_all(["script", "style", "table", "pre", "code"]):
        hidden.decompose()
    for element in soup.find_all(PROSE_TAGS):
        if element.find(PROSE_TAGS):
            continue  # a list item holding paragraphs: its paragraphs are read
        text = element.get_text(" ", strip=True).replace("\u00b6", "").strip()
        if text:
            found.append(text)
    return found


def table_cells(soup: BeautifulSoup) -> list[str]:
    return [cell.get_text(" ", strip=True) for cell in soup.find_all(["td", "th"])]


def findings(html: str) -> list[Finding]:
    found = []
    paragraphs = prose(html)
    for paragraph in paragraphs:
        for sentence in sentences(paragraph):
            if words(sentence) > MAX_WORDS:
                found.append(Finding(f"sentence of {words(sentence)} words", sentence))
        for rule, pattern in (("internal name", INTERNAL_NAME), ("progress line", PROGRESS_LINE),
                              ("unexplained word", BANNED_WORDS)):
            for match in pattern.finditer(paragraph):
                found.append(Finding(f"{rule} {match.group(0)!r}", paragraph))
    soup = BeautifulSoup(html, "html.parser")  # parsed once for the code, text blocks, figures and tables
    for code in soup.find_all("code"):
        if code.find_parent("pre") is None:
            found += [Finding(f"internal name {m.group(0)!r}", code.get_text()) for m in PROJECT_PATH.finditer(code.get_text())]
    for block in soup.find_all("pre"):  # a progress line shown as plain text
        for match in PROGRESS_LINE.finditer(block.get_text()):
            found.append(Finding(f"progress line {match.group(0)!r}", block.get_text()))
    for script in soup.find_all("script"):
        for name in TRACE_NAME.findall(script.get_text()):
            if INTERNAL_NAME.fullmatch(name) or name in RECORD_KEYS or name in RAW_VALUES:
                found.append(Finding("internal name in a legend", name))
    for cell in table_cells(soup):
        if cell in RAW_VALUES:
            found.append(Finding("raw value in a table", cell))
        elif INTERNAL_NAME.fullmatch(cell) or cell in RECORD_KEYS:
            found.append(Finding("internal name in a table", cell))
        found += [Finding(f"file name {m.group(0)!r} in a table", cell) for m in FILE_NAME.finditer(cell)]
    return found


def statistics_of(html: str) -> dict[str, float]:
    lengths = [words(s) for paragraph in prose(html) for s in sentences(paragraph)]
    return {"words": sum(lengths), "sentences": len(lengths),
            "mean sentence": round(statistics.fmean(lengths), 1) if lengths else 0.0,
            "longest sentence": max(lengths, default=0)}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m allocorpool.chapters.page.readability ARTICLE.html", file=sys.stderr)
        return 2
    html = Path(argv[0]).read_text(encoding="utf-8")
    for finding in findings(html):
        print(finding)
    print(statistics_of(html))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
