"""headline.py: the README's answer is counted from the store, each line could come out either way, and the
README holds what data/full says."""

from pathlib import Path

import pandas as pd
import pytest

from allocorpool import effects
from allocorpool.analysis import model
from allocorpool.chapters import depends, headline

README = Path(__file__).resolve().parents[2] / "README.md"


def _batch(samples):
    """Batch rows from {(solution, case): {strategy: repetitions}}, all in one boot."""
    return pd.DataFrame([{"solution": solution, "case": case, "strategy": strategy, "baseline": False,
                          "boot_samples": {"b1": runs}}
                         for (solution, case), by in samples.items() for strategy, runs in by.items()])


FAST, SLOW, NOISY = [100, 102, 98, 101, 99], [200, 204, 196, 202, 198], [100, 200, 150, 120, 180]


def test_a_family_is_named_in_the_lead_only_where_pooling_won_every_pair():
    batch = _batch({("parallel-11", "C"): {"pool": FAST, "alloc": SLOW},
                    ("g1", "C"): {"pool": FAST, "alloc": SLOW},
                    ("flat-glibc", "C"): {"pool": SLOW, "alloc": FAST},
                    ("flat-glibc", "A"): {"pool": FAST, "alloc": SLOW},
                    ("parallel-11", "A"): {"pool": FAST, "alloc": NOISY}})
    assert "for Java on the heap; where few do (cases A and B), for flat C++." in headline.lead(batch)


def test_the_other_way_round_names_no_family():
    batch = _batch({("parallel-11", "C"): {"pool": SLOW, "alloc": FAST},
                    ("parallel-11", "B"): {"pool": SLOW, "alloc": FAST}})
    lead = headline.lead(batch)
    assert lead.startswith("In no family of solutions did pooling take less time per packet than allocation")
    assert "none of the solutions" not in lead


def test_a_family_that_won_every_case_is_named_once():
    batch = _batch({("flat-glibc", "C"): {"pool": FAST, "alloc": SLOW},
                    ("flat-glibc", "A"): {"pool": FAST, "alloc": SLOW},
                    ("parallel-11", "C"): {"pool": FAST, "alloc": NOISY}})
    lead = headline.lead(batch)
    assert lead.startswith("In every case, pooling took less time per packet than allocation in every solution "
                           "measured for flat C++.")
    assert lead.count("flat C++") == 1


def _runs(effects_by_boot, solution="parallel-11", case="C", test=model.BATCH):
    """Model runs: per boot (boot, host class, pooling's factor on allocation's time, or its loss less
    allocation's in points), three runs a strategy."""
    rows = []
    for boot, cls, effect in effects_by_boot:
        for strategy in ("alloc", "pool"):
            for noise in (0.99, 1.0, 1.01):
                base = {"test": test, "solution": solution, "case": case, "strategy": strategy, "boot": boot,
                        "host_class": cls, "cpus": 2, "ns_per_packet": float("nan"), "cpu_ns_per_packet": float("nan"),
                        "lost_pct": float("nan")}
                if test == model.BATCH:
                    base["ns_per_packet"] = 300 * noise * (effect if strategy == "pool" else 1.0)
                    base["cpu_ns_per_packet"] = 1.5 * base["ns_per_packet"]
                else:
                    base["lost_pct"] = (20 + (effect if strategy == "pool" else 0.0)) * noise
                rows.append(base)
    return pd.DataFrame(rows)


def test_the_readme_answer_gives_each_pair_per_host_class_with_its_interval_and_verdict():
    runs = pd.concat([
        _runs([("a1", model.AMD, 0.25), ("a2", model.AMD, 0.26), ("i1", model.INTEL, 0.2)]),
        _runs([("a1", model.AMD, 1.3), ("a2", model.AMD, 1.32), ("i1", model.INTEL, 0.7)], case="B"),
        _runs([("a1", model.AMD, -15.0), ("a2", model.AMD, -15.0)], test=model.REALTIME)])
    lines = depends.readme_lines(runs)
    lead = lines[0]
    assert lead.startswith("Batch time per packet, pooling against allocation, was measured in 3 boots of 2-CPU "
                           "machines (2 on AMD EPYC and 1 on Intel Xeon).")
    assert "On AMD EPYC: pooling faster in 1, allocation faster in 1 of 2 solution and case pairs." in lead
    assert max(len(sentence.split()) for sentence in lead.split(". ")) < 50
    row = next(line for line in lines if line.startswith("| Parallel 11 |") and "×" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "not measured"  # case A
    assert cells[2].startswith("AMD 1.31×") and "allocation faster; Intel 0.70×" in cells[2]
    assert cells[3].startswith("AMD 0.25×") and cells[3].endswith("pooling faster")
    realtime = next(line for line in lines if line.startswith("| Parallel 11 |") and "points" in line)
    assert "AMD -15.0 points" in realtime and "pooling faster" in realtime
    assert any(line.startswith("| real time at 1 µs") for line in lines)


def test_the_readme_block_is_replaced_and_a_readme_without_it_is_refused(tmp_path, capsys):
    text = f"# x\n\n{headline.BEGIN}\nold\n{headline.END}\n\nrest\n"
    assert headline.replace(text, ["new", "lines"]) == f"# x\n\n{headline.BEGIN}\nnew\nlines\n{headline.END}\n\nrest\n"
    assert headline.current(text) == ["old"]
    with pytest.raises(ValueError, match="no answer block"):
        headline.replace("# x\n", ["new"])


def test_the_readme_says_what_the_committed_store_says():
    """Fails when a sweep has changed data/full's verdicts and `make readme-answer` was not run."""
    assert headline.current(README.read_text()) == headline.from_store("full"), \
        "the README's answer is not what data/full says: run `make readme-answer`"


def test_writing_to_a_readme_without_the_block_exits_2_naming_the_markers(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    assert headline.main(["--write", str(readme)]) == 2
    assert headline.BEGIN in capsys.readouterr().err and readme.read_text() == "# x\n"


def test_the_first_screen_gives_the_margins_of_the_decided_pairs_where_few_buffers_stay_alive():
    # the answer read "pooling faster in 13, allocation faster in 6": counts, where the reader came for margins
    boots = [("b1", model.AMD, 1), ("b2", model.AMD, 1), ("b3", model.AMD, 1)]
    runs = pd.concat([_runs([(b, c, f * 0.5) for b, c, f in boots], case="C"),
                      _runs([(b, c, f * 0.6) for b, c, f in boots], case="A"),
                      _runs([(b, c, f * 0.8) for b, c, f in boots], case="B"),
                      _runs([(b, c, f * 1.3) for b, c, f in boots], solution="g1", case="A")])
    text = depends.answer_sentences(runs, model.fits(runs))
    assert "pooling took 0.50× allocation's time per packet in 1 of 1 solution and machine pairs." in text
    assert "pooling faster (0.60-0.80×) in 2, allocation faster (1.30×) in 1 of 3 pairs." in text
    assert "Limits: 3 boots of 2-CPU virtual machines (3 AMD EPYC)" in text
