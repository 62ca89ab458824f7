"""Chapter 08's choice of pool: allocation, the engine's free list and the standard library's pool resource as one
block per C++ design and case, on the fake engine; its table and findings decided by intervals, either way."""

import sys
from dataclasses import replace
from pathlib import Path

from allocorpool import study
from allocorpool.chapters import cpp as chapter
from allocorpool.lists import POOL_CHOICE_STRATEGIES
from allocorpool.run import executor, sweep
from allocorpool.run.experiments import batch as measure_batch
from allocorpool.run.cells import batch_block, pool_choice_block
from allocorpool.run.runner import run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"
FLAT = study.SOLUTIONS_BY_NAME["flat-glibc"]
CI = study.PROFILES["ci"]
PROFILE = replace(CI, name="pool-choice", strict=False, blocks=replace(CI.blocks, repetitions=3))


def _fake(ran):
    """The fake engine, noting the key of each block run (not the calibration's reference cell)."""
    def run(cell, workdir, **options):
        if cell.engine == "cpp":
            ran.append(cell.key)
        return run_cell(cell, workdir, progress=False,
                        build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out)])
    return run


def _ratio(shown: str) -> float:
    """The median ratio of a shown effect, '9.89 x (9.77-10.60)'."""
    return float(shown.split(" x")[0])


def test_the_block_shares_allocation_and_the_free_list_with_the_batch_block():
    choice = pool_choice_block(FLAT, "A", PROFILE)
    batch = {cell.strategy: cell for cell in batch_block(FLAT, "A", PROFILE).cells}
    assert [cell.strategy for cell in choice.cells] == list(POOL_CHOICE_STRATEGIES)
    assert all(cell == batch[cell.strategy] for cell in choice.cells if cell.strategy != "pmr")
    assert choice.repetitions == 3 and choice.id != batch_block(FLAT, "A", PROFILE).id
    assert "--strategy" in (args := choice.cells[-1].engine_args(Path("x"))) and args[args.index("--strategy") + 1] == "pmr"


def test_a_slow_standard_pool_is_slower_than_both_by_its_interval(tmp_path, monkeypatch):
    ran: list[str] = []
    monkeypatch.setattr(executor, "run_cell", _fake(ran))
    monkeypatch.setenv("FAKE_FACTORS", "pmr:10,alloc:3")
    monkeypatch.setenv("FAKE_NOISE", "0.02")
    table = measure_batch.pool_choice(sweep.Sweep(PROFILE, tmp_path, progress=False).executor, [FLAT])
    assert (table["status"] == "ok").all() and (table["runs"] == 3).all()
    assert len(ran) == 3 * len(POOL_CHOICE_STRATEGIES) * len(PROFILE.cases)
    shown = chapter.pool_choice_table(table)
    # the noise is drawn from the output file's name, which carries the boot: bounds, not digits
    assert 9.0 < _ratio(shown.loc[(FLAT.label, "A"), "Standard pool over free list"]) < 11.0
    assert 3.0 < _ratio(shown.loc[(FLAT.label, "A"), "Standard pool over allocation"]) < 3.7
    findings = chapter.pool_choice_findings(table)
    assert findings[0].startswith("Against the engine's free list, the standard-library pool takes more time in 1 and "
                                  "less in 0 of 1 design and case pair")
    assert "more time in 1 and less in 0" in findings[1]


def test_an_equal_standard_pool_shows_no_difference_and_reuses_the_batch_blocks_runs(tmp_path, monkeypatch):
    ran: list[str] = []
    monkeypatch.setattr(executor, "run_cell", _fake(ran))
    monkeypatch.setenv("FAKE_NOISE", "0.02")
    runs = sweep.Sweep(PROFILE, tmp_path, progress=False)
    measure_batch.batch(runs.executor, [FLAT])
    before = len(ran)
    table = measure_batch.pool_choice(runs.executor, [FLAT])
    assert len(ran) - before == 3 * len(PROFILE.cases)  # the standard pool's runs only
    assert all("_pmr_" in key for key in ran[before:])
    findings = chapter.pool_choice_findings(table)
    assert findings[0].startswith("Against the engine's free list, the standard-library pool takes more time in 0 "
                                  "and less in 0 of 1")


def test_a_replay_without_the_block_says_not_measured(tmp_path):
    table = measure_batch.pool_choice(sweep.Sweep(replace(PROFILE, name="pool-choice-replay"), tmp_path, progress=False,
                        replay=True).executor, [FLAT])
    assert (table["status"] == "missing").all()
    assert (chapter.pool_choice_table(table) == "not measured").all().all()
    assert chapter.pool_choice_findings(table) == []
