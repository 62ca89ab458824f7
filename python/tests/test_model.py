"""The model of the answer over boots (analysis.model): verdicts with an equivalence test, the host class as a
factor, the boots that would decide, and the runs read from a store's register and index. Every figure here is
built by the test, with a seeded generator."""

import math

import numpy as np
import pandas as pd
import pytest

from allocorpool.analysis import model


def _runs(effects_by_boot, within=0.01, base=300.0, reps=3, seed=1, test=model.BATCH, solution="parallel-11",
          case="A"):
    """Runs of one comparison: per boot (boot, host class, pooling's ratio to allocation or, in real time, its
    loss less allocation's), each boot with its own speed."""
    rng = np.random.default_rng(seed)
    rows = []
    for boot, cls, effect in effects_by_boot:
        speed = base * rng.uniform(0.7, 1.5)  # boots run at different speeds: the random intercept
        for strategy in ("alloc", "pool"):
            for _ in range(reps):
                if test == model.BATCH:
                    value = speed * (effect if strategy == "pool" else 1.0) * math.exp(rng.normal(0, within))
                    row = {"ns_per_packet": value, "cpu_ns_per_packet": 2 * value, "lost_pct": math.nan}
                else:
                    loss = max(0.0, 10 + (effect if strategy == "pool" else 0.0) + rng.normal(0, within))
                    row = {"ns_per_packet": math.nan, "cpu_ns_per_packet": math.nan, "lost_pct": loss}
                rows.append({"test": test, "solution": solution, "case": case, "strategy": strategy, "boot": boot,
                             "host_class": cls, **row})
    return pd.DataFrame(rows)


def _amd(effects, **kwargs):
    return _runs([(f"b{i}", model.AMD, e) for i, e in enumerate(effects)], **kwargs)


def test_a_clear_gain_is_pooling_faster_with_an_interval_and_a_prediction():
    fit = model.fit(_amd([0.50, 0.52, 0.49, 0.51, 0.50]), model.BATCH, "parallel-11", "A")
    estimate = fit.estimates[model.AMD]
    assert fit.method == "mixed model" and fit.boots == 5 and fit.runs == 30
    assert estimate.verdict == model.FASTER
    assert math.exp(estimate.low) < 0.5 < math.exp(estimate.high) < 0.55
    assert estimate.predict_low <= estimate.low and estimate.predict_high >= estimate.high
    assert estimate.needed is None


def test_a_clear_loss_is_allocation_faster():
    fit = model.fit(_amd([1.40, 1.38, 1.43, 1.41]), model.BATCH, "parallel-11", "A")
    assert fit.estimates[model.AMD].verdict == model.SLOWER


def test_parity_measured_tightly_is_equal_within_the_margin():
    fit = model.fit(_amd([1.0, 1.005, 0.995, 1.0, 1.002, 0.998], within=0.005), model.BATCH, "parallel-11", "A")
    estimate = fit.estimates[model.AMD]
    assert estimate.verdict == model.EQUAL
    assert -model.MARGINS[model.BATCH] <= estimate.low90 and estimate.high90 <= model.MARGINS[model.BATCH]


def test_boots_that_scatter_leave_it_undecided_and_say_how_many_boots_would_decide():
    fit = model.fit(_amd([0.7, 1.2, 0.85, 1.05]), model.BATCH, "parallel-11", "A")
    estimate = fit.estimates[model.AMD]
    assert estimate.verdict == model.UNDECIDED
    assert estimate.needed is not None and estimate.needed > 4
    assert fit.between_share > 0.9  # the repetitions agree; the boots do not


def test_the_host_class_explains_what_separates_the_boots():
    runs = _runs([("a1", model.AMD, 1.3), ("a2", model.AMD, 1.32), ("a3", model.AMD, 1.28),
                  ("i1", model.INTEL, 0.7), ("i2", model.INTEL, 0.72), ("i3", model.INTEL, 0.69)])
    fit = model.fit(runs, model.BATCH, "parallel-11", "A")
    assert fit.estimates[model.AMD].verdict == model.SLOWER
    assert fit.estimates[model.INTEL].verdict == model.FASTER
    assert fit.between_sd < fit.between_sd_alone / 3
    assert fit.host_share() > 0.9


def test_one_boot_gives_its_repetitions_interval_and_no_prediction():
    fit = model.fit(_amd([0.5]), model.BATCH, "parallel-11", "A")
    estimate = fit.estimates[model.AMD]
    assert fit.method == "one boot" and estimate.verdict == model.FASTER
    assert math.isnan(estimate.predict_low) and math.isnan(fit.between_sd)


def test_cpu_time_is_fitted_as_wall_time_is():
    fit = model.fit(_amd([0.5, 0.52, 0.49]), model.BATCH, "parallel-11", "A", value="cpu_ns_per_packet")
    assert fit.value == "cpu_ns_per_packet" and fit.estimates[model.AMD].verdict == model.FASTER


def test_real_time_losses_are_differences_in_points_and_zeros_are_kept():
    lossless = _runs([("b0", model.AMD, -10.0), ("b1", model.AMD, -10.0), ("b2", model.AMD, -10.0)], within=0.0,
                     test=model.REALTIME)
    lossless["lost_pct"] = 0.0  # neither strategy lost a packet in any probe
    fit = model.fit(lossless, model.REALTIME, "parallel-11", "A")
    assert fit.estimates[model.AMD].point == 0 and fit.estimates[model.AMD].verdict == model.EQUAL
    lossy = _runs([("b0", model.AMD, -8.0), ("b1", model.AMD, -9.0), ("b2", model.AMD, -8.5), ("b3", model.AMD, -9)],
                  within=0.5, test=model.REALTIME)
    estimate = model.fit(lossy, model.REALTIME, "parallel-11", "A").estimates[model.AMD]
    assert estimate.verdict == model.FASTER and -10 < estimate.point < -7


def test_verdicts_follow_the_intervals_against_the_margin():
    m = 0.05
    assert model.verdict(-0.3, -0.1, -0.28, -0.12, m) == model.FASTER
    assert model.verdict(0.1, 0.3, 0.12, 0.28, m) == model.SLOWER
    assert model.verdict(-0.06, 0.04, -0.04, 0.03, m) == model.EQUAL
    assert model.verdict(-0.2, 0.1, -0.18, 0.08, m) == model.UNDECIDED


def test_more_boots_are_needed_the_nearer_an_effect_lies_to_the_margin():
    m = model.MARGINS[model.BATCH]
    far, near = model.boots_needed(-0.4, 0.04, m), model.boots_needed(-0.08, 0.04, m)
    assert far < near
    assert model.boots_needed(-m, 0.04, m) is None  # on the margin no number of boots decides it
    assert model.boots_needed(-0.4, 0.0, m) is None
    assert model.boots_needed(0.0, 100.0, m) == model.MAX_BOOTS + 1


def test_the_host_class_is_read_off_the_cpu_model():
    assert model.host_class("Intel(R) Xeon(R) Processor") == model.INTEL
    assert model.host_class("AMD EPYC") == model.AMD
    assert model.host_class(None) == model.OTHER


def test_answer_runs_are_the_registered_blocks_runs_of_each_boot():
    cell = "java_jdk11_parallel_2g_A_{}_batch_d10_w3_x1_counter_live_gclog"
    register = pd.DataFrame([
        {"block": "blk", "name": "batch, parallel-11, case A", "boot": boot, "cpu_model": cpu, "kernel": "k",
         "commit": "c", "cells": ",".join(cell.format(s) + "_bfeed" for s in ("dummy", "alloc", "pool")),
         "load_ns_16mib": 100.0, "load_ns_1024mib": 300.0, "reference_ns_per_packet": 700.0}
        for boot, cpu in (("aaaa1111", "AMD EPYC"), ("bbbb2222", "Intel(R) Xeon(R)"))]
        + [{"block": "other", "name": "threads 1, 2, g1, case A", "boot": "aaaa1111", "cpu_model": "AMD EPYC",
            "kernel": "k", "commit": "c", "cells": cell.format("pool") + "_bfeed"}])
    index = []
    for boot in ("aaaa1111", "bbbb2222", "cccc3333"):  # the third boot never registered the block
        for strategy in ("dummy", "alloc", "pool"):
            for rep in range(2):
                measurement = cell.format(strategy) + (f"_r{rep}" if rep else "") + f"_k{boot}"
                index.append({"key": measurement + "_bfeed", "measurement": measurement, "boot": boot,
                              "strategy": strategy, "status": "ok" if rep or strategy != "pool" else "failed",
                              "ns_per_packet": 100.0, "measured_cpu_s": 0.2, "measured_packets": 1e6})
    runs = model.answer_runs(pd.DataFrame(index), register)
    assert set(runs["boot"]) == {"aaaa1111", "bbbb2222"}
    assert set(runs["strategy"]) == {"alloc", "pool"}  # the dummy measures the harness, not the answer
    assert len(runs) == 2 * 3  # per boot: two allocation runs, one pooling run (the other failed)
    assert set(runs["host_class"]) == {model.AMD, model.INTEL}
    assert runs["cpu_ns_per_packet"].eq(200.0).all() and runs["solution"].eq("parallel-11").all()
