"""your_machine.py: this machine's verdicts beside the article's sizes', verdict by verdict."""

import pandas as pd

from allocorpool import effects
from allocorpool.chapters import your_machine


def _batch(solution, case, alloc, pool):
    return [{"solution": solution, "case": case, "strategy": s, "ns_per_packet": float(pd.Series(runs).median()),
             "status": "ok", "boot_samples": {"b1": runs}} for s, runs in (("alloc", alloc), ("pool", pool))]


def _probes(solution, case, alloc, pool):
    return [{"solution": solution, "case": case, "strategy": s, "interval_ns": 1000, "probes": len(losses),
             "losses": losses, "keeps_up": effects.HOLDS if not any(losses) else effects.FAILS}
            for s, losses in (("alloc", alloc), ("pool", pool))]


def test_verdicts_agree_contradict_or_are_decided_in_one_place_only():
    mine = your_machine.verdicts(
        pd.DataFrame(_batch("g1", "A", [400, 410, 390], [100, 104, 98]) + _batch("g1", "B", [100, 104, 98], [400, 410, 390])
                     + _batch("g1", "C", [100, 300, 200], [210, 90, 310])),
        pd.DataFrame(_probes("g1", "C", [0.2, 0.3, 0.25], [0.0, 0.0, 0.0])))
    full = your_machine.verdicts(
        pd.DataFrame(_batch("g1", "A", [400, 410, 390], [100, 104, 98]) + _batch("g1", "B", [400, 410, 390], [100, 104, 98])
                     + _batch("g1", "C", [400, 410, 390], [100, 104, 98])),
        pd.DataFrame(columns=["solution", "case", "strategy"]))
    table = your_machine.compare(mine, full).set_index(["test", "case"])
    assert table.loc[("batch", "A"), "the two"] == your_machine.AGREE
    assert table.loc[("batch", "B"), "the two"] == your_machine.CONTRADICT  # allocation wins here, pooling there
    assert table.loc[("batch", "C"), "the two"] == your_machine.ONE_ONLY  # no difference here
    assert table.loc[("real time", "C"), "the two"] == your_machine.UNJUDGED  # not measured at full size
    assert table.loc[("real time", "C"), "on this machine"].startswith("pooling beats allocation: loss -0.250 points")
    assert table.loc[("batch", "A"), "solution"] == "G1 11"
    said = your_machine.sentence(your_machine.compare(mine, full))
    assert said == ("Of the 3 verdicts measured both here and at the article's sizes, the two agree on 1, "
                    "contradict each other on 1, and only one of them decides 1 (the other is undecided). "
                    "1 more verdict could not be compared.")
