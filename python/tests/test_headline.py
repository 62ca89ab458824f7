"""headline.py: the README's answer is counted from the store, each line could come out either way, and the
README holds what data/full says."""

from pathlib import Path

import pandas as pd
import pytest

from allocorpool import effects
from allocorpool.chapters import headline

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
    lines = headline.lines(batch, batch.iloc[:0], pd.DataFrame())
    lead = lines[0]
    assert "for Java on the heap; where few do (cases A and B), for flat C++." in lead
    assert "| batch, Java on the heap, JDK 11 | faster in 2 of 2 | no difference in 1 of 1 |" in lines
    assert "| batch, flat C++ | slower in 1 of 1 | faster in 1 of 1 |" in lines
    assert not any("real time" in line for line in lines)  # nothing probed: no row claims anything


def test_the_other_way_round_names_no_family():
    batch = _batch({("parallel-11", "C"): {"pool": SLOW, "alloc": FAST},
                    ("parallel-11", "B"): {"pool": SLOW, "alloc": FAST}})
    lead = headline.lines(batch, batch.iloc[:0], pd.DataFrame())[0]
    assert lead.startswith("In no family of solutions did pooling take less time per packet than allocation")
    assert "none of the solutions" not in lead


def test_a_family_that_won_every_case_is_named_once():
    batch = _batch({("flat-glibc", "C"): {"pool": FAST, "alloc": SLOW},
                    ("flat-glibc", "A"): {"pool": FAST, "alloc": SLOW},
                    ("parallel-11", "C"): {"pool": FAST, "alloc": NOISY}})
    lead = headline.lines(batch, batch.iloc[:0], pd.DataFrame())[0]
    assert lead.startswith("In every case, pooling took less time per packet than allocation in every solution "
                           "measured for flat C++. Elsewhere")
    assert lead.count("flat C++") == 1


def test_real_time_counts_fewer_packets_lost_per_family():
    probes = pd.DataFrame([{"solution": "zgc", "case": "C", "strategy": s, "baseline": False,
                            "boot_losses": {"b1": losses}}
                           for s, losses in (("pool", [0.0, 0.1, 0.0, 0.2, 0.1]), ("alloc", [50, 55, 60, 52, 58]))])
    lines = headline.lines(pd.DataFrame(), probes, pd.DataFrame())
    assert "| real time at 1 µs, Java on the heap | fewer lost in 1 of 1 | not measured |" in lines


def test_the_jdk_pairs_are_counted_in_case_c():
    jdks = pd.DataFrame([{"jdk": j, "collector": "g1", "case": "C", "strategy": s, "batch_status": "ok",
                          "boot_samples": {"b1": runs}}
                         for j in (17, 25) for s, runs in (("pool", FAST), ("alloc", SLOW if j == 17 else NOISY))])
    lines = headline.lines(pd.DataFrame(), None, jdks)
    assert "| batch, Java on the heap, every collector of JDK 17 to 25 | faster in 1, no difference in 1 of 2 " \
           "| not measured |" in lines


def test_tally_words_say_boots_that_disagree():
    assert headline.tally_words(effects.tally([effects.HOLDS, effects.FAILS], 1)) == \
        "faster in 1, slower in 1 of 2 (boots disagree on 1, none with opposite verdicts)"
    assert headline.tally_words(effects.tally([effects.HOLDS, effects.FAILS, effects.HOLDS], 2, 1)) == \
        "faster in 2, slower in 1 of 3 (boots disagree on 2, 1 of them with opposite verdicts)"
    assert headline.tally_words(effects.tally([effects.NOT_MEASURED])) == "not measured"


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
