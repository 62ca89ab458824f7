"""Blocks: interleaved, repeated, one boot each; figures with intervals; verdicts that need the interval."""

import sys
import threading
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from allocorpool import effects, machine, study
from allocorpool.analysis import blocks as block_figures
from allocorpool.chapters import realtime_blocks
from allocorpool.data.store import Store
from allocorpool.run import blocks, calibration, executor, machine_check, sweep
from allocorpool.run.experiments import batch as measure_batch
from allocorpool.run.runner import run_cell

FAKE = Path(__file__).resolve().parent / "fixtures" / "fake_engine.py"  # 100 ns per packet, FAKE_* vary it
PROFILE = replace(study.PROFILES["ci"], name="blocks", solutions=("flat-glibc",), strict=False,
                  blocks=study.BlockPlan(repetitions=5))
FLAT = study.SOLUTIONS_BY_NAME["flat-glibc"]


def _fake(cell, workdir, **options):
    return run_cell(cell, workdir, progress=False,
                    build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out)])


def _block(strategies=("alloc", "pool"), repetitions=5):
    cells = tuple(study.batch_cell(FLAT, s, "A", PROFILE) for s in strategies)
    return blocks.Block("batch, flat-glibc, case A", cells, repetitions)


def _runner(store, boot, ran=None, stop_after=None):
    def run(cell):
        if stop_after is not None and len(ran) >= stop_after:
            raise KeyboardInterrupt("the session ended")
        if ran is not None:
            ran.append(cell)
        return _fake(cell, store.runs_dir)
    return executor.Executor(store, PROFILE, run=run, boot_id=lambda: boot, slots=1,
                             calibrate=lambda: {"reference_ns_per_packet": 1.0})


def _by_strategy(runs, block):
    figures = block_figures.cell_figures(runs)
    return {cell.strategy: figures[cell.key] for cell in block.cells}


def test_a_round_runs_every_cell_once_in_an_order_shuffled_per_round_and_kept_on_resume():
    block = _block(("dummy", "alloc", "mix", "pool"), repetitions=5)
    order = block.runs("b00t")
    rounds = [order[i:i + 4] for i in range(0, 20, 4)]
    assert all(sorted(c.strategy for c in r) == ["alloc", "dummy", "mix", "pool"] for r in rounds)
    assert all({c.repetition for c in r} == {i} for i, r in enumerate(rounds))
    assert len({tuple(c.strategy for c in r) for r in rounds}) > 1  # interleaved, not always one order
    assert [c.key for c in block.runs("b00t")] == [c.key for c in order]  # the same order when resumed
    assert all(c.key.endswith("_kb00t") or "_kb00t_" in c.key for c in order)
    with pytest.raises(ValueError, match="repetitions 0: 1 or more"):
        blocks.Block("x", block.cells, 0)


def test_a_single_run_comparison_flips_between_seeds_while_the_blocks_interval_says_no_difference(
        tmp_path, monkeypatch):
    # allocation and pooling cost the same (100 ns) with 15 % noise between processes
    monkeypatch.setenv("FAKE_NOISE", "0.15")
    block = _block()
    outcomes = {}  # by what one run against one said: pooling faster (True) or slower (False)
    for seed in range(12):
        monkeypatch.setenv("FAKE_NOISE_SEED", str(seed))
        runs = _runner(Store(tmp_path / f"seed{seed}"), "b00t").measure([block])[0]
        samples = {s: f["boot_samples"]["b00t"] for s, f in _by_strategy(runs, block).items()}
        single_says = samples["pool"][0] < samples["alloc"][0]  # the first repetition: one run each
        outcomes.setdefault(single_says, (seed, effects.ratio(samples["pool"], samples["alloc"])))
        if len(outcomes) == 2:
            break
    assert set(outcomes) == {True, False}  # two seeds where one run against one says opposite things
    for seed, effect in outcomes.values():
        assert effect.outcome() == effects.NO_DIFFERENCE, (seed, effect)


def test_a_real_difference_is_measured_with_its_margin(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_NOISE", "0.05")
    monkeypatch.setenv("FAKE_FACTORS", "alloc:2")
    block = _block()
    figures = _by_strategy(_runner(Store(tmp_path), "b00t").measure([block])[0], block)
    effect = effects.ratio(figures["pool"]["samples"] if "samples" in figures["pool"] else
                           figures["pool"]["boot_samples"]["b00t"], figures["alloc"]["boot_samples"]["b00t"])
    assert effect.outcome() == effects.HOLDS and 0.4 < effect.low < effect.ratio < effect.high < 0.6
    assert effect.margin_text().endswith("% faster (" + effect.margin_text().split("(")[1])


def test_a_block_interrupted_and_resumed_in_another_boot_runs_again_whole_there(tmp_path):
    store, block = Store(tmp_path), _block()
    first_ran: list = []
    with pytest.raises(KeyboardInterrupt):
        _runner(store, "boot1", first_ran, stop_after=3).measure([block])[0]
    second_ran: list = []
    runs = _runner(store, "boot2", second_ran).measure([block])[0]
    assert len(first_ran) == 3 and len(second_ran) == 10  # every run again: nothing of boot1 is reused
    assert {c.boot for c in second_ran} == {"boot2"}
    complete = runs.groupby("boot")["complete"].first().to_dict()
    assert complete == {"boot1": False, "boot2": True}
    figures = block_figures.cell_figures(runs)
    assert {f["boot"] for f in figures.values()} == {"boot2"} and all(f["spread"].n == 5 for f in figures.values())
    assert block_figures.complete_boots(runs) == ["boot2"]
    resumed: list = []
    again = _runner(store, "boot1", resumed).measure([block])[0]  # boot1 comes back: it finishes its own block
    assert len(resumed) == 7 and {c.boot for c in resumed} == {"boot1"}
    assert set(block_figures.complete_boots(again)) == {"boot1", "boot2"}
    register = store.table(blocks.BLOCKS_TABLE)
    assert sorted(register["boot"]) == ["boot1", "boot2"] and register["reference_ns_per_packet"].notna().all()


def test_a_cell_counts_only_the_boots_whose_block_ran_it():
    # boot1's block had alloc and pool; boot2's, newer, added shared: shared was measured in one boot only
    rows = [{"cell": cell, "boot": boot, "status": "ok", "complete": True, "started_utc": started,
             "ns_per_packet": 100.0 + i}
            for boot, started, cells in (("boot1", "2026-01-01", ("alloc", "pool")),
                                         ("boot2", "2026-02-01", ("alloc", "pool", "shared")))
            for cell in cells for i in range(3)]
    figures = block_figures.cell_figures(pd.DataFrame(rows))
    assert list(figures["alloc"]["boot_samples"]) == ["boot1", "boot2"]
    assert figures["shared"]["boot_samples"] == {"boot2": [100.0, 101.0, 102.0]}
    assert block_figures.spread_columns(figures["shared"])["boots"] == 1
    assert list(block_figures.compare(figures["shared"], figures["alloc"]).by_boot) == ["boot2"]
    # a cell only an older boot ran stands on that boot's figures, not on the newest boot's empty list
    older = block_figures.cell_figures(pd.DataFrame([r for r in rows if r["cell"] != "shared"]
                                                    + [{**r, "cell": "old"} for r in rows[:3]]))
    assert older["old"]["boot"] == "boot1" and older["old"]["spread"].n == 3


def test_a_cell_names_the_boots_that_ran_it_from_a_committed_build():
    # boot1 and boot3 ran alloc from a committed build; boot2 from one with uncommitted changes, which still counts
    def runs(boot, started, cell, commit, ns):
        return [{"cell": cell, "boot": boot, "status": "ok", "complete": True, "started_utc": started,
                 "commit": commit, "ns_per_packet": ns + i} for i in range(3)]
    rows = (runs("boot1", "2026-01-01", "alloc", "aaaaaaaaaaaa", 100.0)
            + runs("boot2", "2026-02-01", "alloc", "bbbbbbbbbbbb-dirty", 300.0)
            + runs("boot2", "2026-02-01", "pool", "bbbbbbbbbbbb-dirty", 50.0)
            + runs("boot3", "2026-03-01", "alloc", "cccccccccccc", 110.0))
    figures = block_figures.cell_figures(pd.DataFrame(rows))
    assert list(figures["alloc"]["boot_samples"]) == ["boot1", "boot2", "boot3"]
    assert figures["alloc"]["committed_boots"] == ["boot1", "boot3"] and figures["pool"]["committed_boots"] == []
    assert block_figures.spread_columns(figures["alloc"])["committed_boots"] == 2
    # one run of a boot from an uncommitted build is enough to leave the boot out
    mixed = block_figures.cell_figures(pd.DataFrame(rows[:2] + [{**rows[2], "commit": "aaaaaaaaaaaa-dirty"}]))
    assert mixed["alloc"]["committed_boots"] == []


def test_a_verdict_that_flips_between_boots_says_so():
    fast = {"boot_samples": {"b1": [50, 52, 51], "b2": [100, 101, 99]}}
    slow = {"boot_samples": {"b1": [100, 99, 101], "b2": [98, 100, 101]}}
    comparison = block_figures.compare(fast, slow)
    assert comparison.outcomes == {"b1": effects.HOLDS, "b2": effects.NO_DIFFERENCE}
    assert comparison.flips and comparison.boot == "b2" and comparison.outcome() == effects.NO_DIFFERENCE
    table = block_figures.boot_table([({"solution": "x"}, comparison)])
    assert table["boots agree"].tolist() == ["no: decided in some boots, not in others"]
    assert comparison.agreement == effects.DISAGREE
    reverse = block_figures.compare(fast, {"boot_samples": {"b1": [100, 99, 101], "b2": [50, 49, 51]}})
    assert reverse.outcomes == {"b1": effects.HOLDS, "b2": effects.FAILS} and reverse.agreement == effects.OPPOSE
    assert block_figures.boot_table([({"solution": "x"}, reverse)])["boots agree"].tolist() == ["no: opposite verdicts in different boots"]
    alike = block_figures.compare(fast, {"boot_samples": {"b1": [100, 99, 101], "b2": [200, 201, 199]}})
    assert alike.agreement == effects.AGREE and not alike.flips
    single = block_figures.compare({"ns_per_packet": 50.0}, {"ns_per_packet": 100.0})
    assert single.outcome() == effects.NOT_MEASURED  # one run against one decides nothing


def test_the_verdict_that_stands_is_taken_over_every_boot_not_the_newest_alone():
    # The newest boot alone says pooling is twice as fast; the older one says it is 1.5 x slower.
    pool = {"boot_samples": {"old": [150, 151, 149, 152, 150], "new": [50, 51, 49, 50, 52]}}
    alloc = {"boot_samples": {"old": [100, 101, 99, 100, 102], "new": [100, 99, 101, 100, 98]}}
    split = block_figures.compare(pool, alloc)
    assert split.by_boot["new"].outcome() == effects.HOLDS and split.agreement == effects.OPPOSE
    assert split.effect.boots == 2 and split.effect.ratio == pytest.approx((1.5 * 0.5) ** 0.5, rel=0.02)
    assert split.outcome() == effects.NO_DIFFERENCE  # over both boots, nothing is decided
    # Boots that agree on the direction decide it over both, with an interval that resamples the boots.
    alike = block_figures.compare({"boot_samples": {"old": [60, 61, 59], "new": [70, 71, 69]}},
                                  {"boot_samples": {"old": [100, 101, 99], "new": [100, 99, 101]}})
    assert alike.outcome() == effects.HOLDS and alike.effect.low < 0.6 < 0.7 < alike.effect.high < 0.75
    assert alike.effect.n_num == 6
    assert block_figures.typical({"boot_samples": {"a": [60], "b": [240]}}) == pytest.approx(120.0)  # geometric
    # The same rule for real-time losses: a difference that holds in one boot and not the other is not decided.
    lossy = block_figures.compare_losses({"boot_losses": {"old": [0.0] * 3, "new": [0.0] * 3}},
                                         {"boot_losses": {"old": [0.2, 0.3, 0.25], "new": [0.0] * 3}})
    assert lossy.by_boot["old"].outcome() == effects.HOLDS and lossy.difference.boots == 2
    assert lossy.difference.diff == pytest.approx(-0.125) and lossy.outcome() == effects.NO_DIFFERENCE
    both = block_figures.compare_losses({"boot_losses": {"old": [0.0] * 3, "new": [0.0] * 3}},
                                        {"boot_losses": {"old": [0.2, 0.3, 0.25], "new": [0.1, 0.2, 0.15]}})
    assert both.outcome() == effects.HOLDS and both.difference.high < 0


def test_a_sweep_in_a_boot_three_times_slower_runs_records_and_shows_both_boots(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 150.0))
    monkeypatch.setattr(calibration, "_latency_cache", {})
    checked = replace(PROFILE, machine_check=True)
    monkeypatch.setattr(machine, "boot_id", lambda: "fast-boot")
    first = measure_batch.batch(sweep.Sweep(checked, tmp_path, progress=False).executor, [FLAT])
    monkeypatch.setattr(machine, "boot_id", lambda: "slow-boot")
    monkeypatch.setenv("FAKE_SLOWDOWN", "3")
    second = measure_batch.batch(sweep.Sweep(checked, tmp_path, progress=False).executor, [FLAT])  # nothing refuses
    assert (first["ns_per_packet"] == 100.0).all() and (second["ns_per_packet"] == 300.0).all()
    assert (second["boots"] == 2).all() and (second["runs"] == 5).all()
    register = Store(tmp_path).table(blocks.BLOCKS_TABLE).set_index("boot")
    assert register.loc["slowboot", "reference_ns_per_packet"] == 3 * register.loc["fastboot", "reference_ns_per_packet"]
    pool, alloc = (second.set_index("strategy").loc[s] for s in ("pool", "alloc"))
    comparison = block_figures.compare(pool, alloc)
    assert set(comparison.by_boot) == {"fastboot", "slowboot"} and not comparison.flips
    assert isinstance(block_figures.boot_table([({"case": "A"}, comparison)]), pd.DataFrame)


def test_the_memory_latency_is_timed_once_per_boot_for_every_process_of_a_store(tmp_path, monkeypatch):
    timings = []

    def latency():
        timings.append(1)
        return dict.fromkeys(machine_check.LATENCY_COLUMNS, 100.0 + len(timings))

    clock = [1_000_000.0]
    monkeypatch.setattr(calibration.time, "time", lambda: clock[0])
    monkeypatch.setattr(machine, "boot_id", lambda: "boot-one")
    folder = tmp_path / "calibration"
    for process in range(3):  # a notebook each: nothing in memory, the store's folder shared
        monkeypatch.setattr(calibration, "_latency_cache", {})
        assert calibration._recent_latency(latency, folder)["load_ns_16mib"] == 101.0
    assert len(timings) == 1
    clock[0] += calibration.LATENCY_VALID_S + 1  # too old: timed again, and kept for the next process
    assert calibration._recent_latency(latency, folder)["load_ns_16mib"] == 102.0
    monkeypatch.setattr(calibration, "_latency_cache", {})
    monkeypatch.setattr(machine, "boot_id", lambda: "boot-two")  # another boot never takes this one's figures
    assert calibration._recent_latency(latency, folder)["load_ns_16mib"] == 103.0
    monkeypatch.setattr(calibration, "_latency_cache", {})
    (folder / calibration.LATENCY_FILE).write_text("{not json")  # a damaged file is timed again, not an error
    assert calibration._recent_latency(latency, folder)["load_ns_16mib"] == 104.0 and len(timings) == 4


def test_a_reference_run_stands_for_later_blocks_only_where_the_profile_lets_it(tmp_path, monkeypatch):
    ran = []

    def run(cell):
        ran.append(cell.key)
        return executor.run_cell(cell, tmp_path / "runs", progress=False,
                                 build=lambda c, out, log: [sys.executable, str(FAKE), "ok", *c.engine_args(out)])

    clock = [1_000_000.0]
    monkeypatch.setattr(calibration.time, "time", lambda: clock[0])
    monkeypatch.setattr(machine, "boot_id", lambda: "boot-one")
    folder = tmp_path / "calibration"
    each = replace(PROFILE, blocks=study.BlockPlan(repetitions=2))
    for _ in range(2):  # by default every block runs its own
        assert calibration.calibrate(each, run, folder=folder)["reference_status"] == "ok"
    assert len(ran) == 2
    standing = replace(PROFILE, blocks=study.BlockPlan(repetitions=2, reference_valid_s=60))
    first = calibration.calibrate(standing, run, folder=folder)
    again = calibration.calibrate(standing, run, folder=folder)
    assert len(ran) == 3 and again["reference_ns_per_packet"] == first["reference_ns_per_packet"] is not None
    clock[0] += 61  # too old: run again
    calibration.calibrate(standing, run, folder=folder)
    monkeypatch.setattr(machine, "boot_id", lambda: "boot-two")  # another boot never takes this one's figure
    calibration.calibrate(standing, run, folder=folder)
    assert len(ran) == 5


def test_a_real_time_block_keeps_up_only_where_no_probe_of_it_lost(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 150.0))
    monkeypatch.setattr(calibration, "_latency_cache", {})
    prof = replace(PROFILE, blocks=study.BlockPlan(repetitions=2, probe_repetitions=3))
    table = measure_batch.probe_blocks(sweep.Sweep(prof, tmp_path, progress=False).executor, [FLAT], interval_ns=1000)
    table = table.set_index("strategy")
    assert list(table.index) == list(study.REALTIME_STRATEGIES) and (table["probes"] == 3).all()
    assert (table["keeps_up"] == effects.HOLDS).all() and (table["lossy"] == 0).all()
    fast = sweep.Sweep(prof, tmp_path / "fast", progress=False)
    lossy = measure_batch.probe_blocks(fast.executor, [FLAT], interval_ns=400)  # loses < 437
    assert (lossy["keeps_up"] == effects.FAILS).all() and (lossy["lossy"] == 3).all()
    assert block_figures.keeps_up([{"ok": True}, {"ok": False}, {"ok": None}]) == effects.FAILS  # one is enough
    assert block_figures.keeps_up([{"ok": None}]) == effects.NOT_MEASURED


def test_a_real_time_block_that_keeps_up_in_one_boot_and_loses_in_another_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "run_cell", _fake)
    monkeypatch.setattr(machine_check, "memory_latency", lambda: dict.fromkeys(machine_check.LATENCY_COLUMNS, 150.0))
    monkeypatch.setattr(calibration, "_latency_cache", {})
    prof = replace(PROFILE, blocks=study.BlockPlan(repetitions=2, probe_repetitions=3))
    monkeypatch.setattr(machine, "boot_id", lambda: "fast-boot")
    first = measure_batch.probe_blocks(sweep.Sweep(prof, tmp_path, progress=False).executor, [FLAT], interval_ns=1000)
    assert (first["keeps_up"] == effects.HOLDS).all()
    monkeypatch.setattr(machine, "boot_id", lambda: "slow-boot")
    monkeypatch.setenv("FAKE_SLOWDOWN", "3")  # loses below 1311 ns
    both = measure_batch.probe_blocks(sweep.Sweep(prof, tmp_path, progress=False).executor, [FLAT], interval_ns=1000)
    both = both.set_index("strategy")
    assert (both["probes"] == 6).all() and (both["keeps_up"] == effects.FAILS).all()  # one lossy boot is enough
    assert both.loc["pool", "boot_keeps_up"] == {"fastboot": effects.HOLDS, "slowboot": effects.FAILS}
    words = realtime_blocks.loss_words(both.loc["pool"].to_dict())
    assert words.startswith("loses in 3 of 6 probes") and words.endswith(", yet kept up in every probe of 1 of 2 boots")
    assert realtime_blocks.boots_words({"boot_keeps_up": {"a": effects.FAILS, "b": effects.FAILS}}) == ""



def test_blocks_in_lanes_run_at_once_each_whole_in_one_lane_and_store_what_one_after_the_other_stores(tmp_path):
    first, second = _block(repetitions=2), blocks.Block("batch, flat-glibc, case B", tuple(
        study.batch_cell(FLAT, s, "B", PROFILE) for s in ("alloc", "pool")), 2)
    placed: list = []  # (lane, key) of every run that ended

    def lanes(fail_at=None, at_once=True):
        both_running = threading.Barrier(2, timeout=60)  # broken unless the lanes' first runs overlap

        def lane(name):
            mine: list = []

            def run(cell):
                if not mine and at_once:
                    both_running.wait()
                if name == "two" and len(mine) == fail_at:
                    raise RuntimeError("lane two broke")
                mine.append(cell.key)
                placed.append((name, cell.key))
                return _fake(cell, tmp_path / "runs")
            return blocks.Lane(name, run, calibrate=lambda: {"reference_ns_per_packet": 1.0})
        return [lane("one"), lane("two")]
    side = _runner(Store(tmp_path / "side"), "b00t").measure([first, second], lanes())
    serial = _runner(Store(tmp_path / "serial"), "b00t").measure([first, second])
    assert [len(frame) for frame in side] == [4, 4] and all(frame["complete"].all() for frame in side)
    for frame, alone in zip(side, serial):
        assert frame[["key", "status", "cell", "repetition"]].equals(alone[["key", "status", "cell", "repetition"]])
    used = [{lane for lane, key in placed if key in set(frame["key"])} for frame in side]
    assert all(len(lane) == 1 for lane in used) and used[0] != used[1]  # each block whole in one lane
    placed.clear()
    store = Store(tmp_path / "stopped")
    with pytest.raises(RuntimeError, match="lane two broke"):  # the other lane stops before its next run
        _runner(store, "b00t").measure([first, second], lanes(fail_at=2))
    assert len(store.index) == len(placed) and sum(lane == "two" for lane, _ in placed) == 2  # every run kept
    _runner(store, "b00t").measure([first, second], lanes(at_once=False))  # a lane may have nothing left
    assert len(placed) == len({key for _, key in placed}) == 8  # resumed: nothing ran twice


def test_boots_are_named_machine_1_to_n_in_the_order_they_first_measured():
    blocks = pd.DataFrame({"boot": ["bbbbbbbb", "aaaaaaaa", "bbbbbbbb"],
                           "started_utc": ["2026-01-02T00:00:00", "2026-01-03T00:00:00", "2026-01-01T00:00:00"]})
    index = pd.DataFrame({"boot_id": ["cccccccc-0000", None, "aaaaaaaa-1111"],
                          "stored_utc": ["2025-12-31T00:00:00", "2025-01-01T00:00:00", "2026-01-05T00:00:00"]})
    assert block_figures.machine_names(blocks) == {"bbbbbbbb": "machine 1", "aaaaaaaa": "machine 2"}
    assert block_figures.machine_names(blocks, index) == {"cccccccc": "machine 1", "bbbbbbbb": "machine 2",
                                                          "aaaaaaaa": "machine 3"}
    assert block_figures.machine_names(pd.DataFrame()) == {}
