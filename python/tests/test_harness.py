"""The harness table: one row per engine and design, both sources side by side, the article's figure beside."""

from __future__ import annotations

import pytest

from allocorpool.data import reference
from allocorpool.run import harness


def row(engine, source, ns, design=None):
    base = {"type": "harness", "engine": engine, "design": design, "source": source, "case": "B",
            "ns_per_packet": ns, "host": "h", "cpu_model": "c", "commit": "x"}
    if engine == "cpp":
        base["article_ns_per_packet"] = {"flat": 16.0, "cpp": 145.0}[design]
    else:
        base.update(collector="Parallel", jdk_version="11.0.25+9")
    return base


def test_the_table_puts_both_sources_and_the_articles_figure_side_by_side():
    rows = [row("cpp", "counter", 6.0, "flat"), row("cpp", "counter", 60.0, "cpp"),
            row("cpp", "random", 9.0, "flat"), row("cpp", "random", 66.0, "cpp"),
            row("java", "counter", 27.0), row("java", "random", 40.5)]
    shown = harness.table(rows, reference.load())
    assert list(shown.index) == ["cpp flat", "cpp cpp", "java Parallel (JDK 11.0.25)"]
    assert shown.loc["cpp flat", "counter"] == 6.0 and shown.loc["cpp flat", "random / counter"] == 1.5
    assert shown.loc["java Parallel (JDK 11.0.25)", "random / counter"] == 1.5
    article = shown[f"{reference.REFERENCE}, ns"]
    # flat: harness_bench's own figure (the article's C++ table has no flat row); cpp and java: case B's dummy
    assert article["cpp flat"] == 16.0 and article["cpp cpp"] == 164.0
    assert article["java Parallel (JDK 11.0.25)"] == 57.0


def test_a_warm_up_as_long_as_the_run_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        harness.main(["--duration-s", "2", "--warmup-s", "2"])
    assert stop.value.code == 2 and "valid: [0, --duration-s 2)" in capsys.readouterr().err
