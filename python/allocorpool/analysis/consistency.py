"""Figures of one configuration wherever the study measured it: do they agree?

A configuration is what a batch run measures, apart from how long it ran, when and by which build: the
engine, collector, heap and options, the strategy, the packet source and the model's effective sizes (the
counts the run reported, so that a continuum point of case A's sizes is case A). Chapters measure some
configurations more than once: a block's repetitions, another chapter's single run, another boot.

`consistency` groups a store's finished batch runs by configuration and boot. Where a configuration was
measured in more than one boot, or by more than one kind of run in a boot, it says whether the figures
agree: each boot's median with its 95 % interval (a single run: its figure) must overlap every other
boot's. Boots that do not overlap make the configuration boot-dependent; within one boot, a run outside
the interval of that boot's other runs makes it disagree there. One run on each side cannot tell.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import pandas as pd

from allocorpool import effects, machine
from allocorpool.lists import STRATEGY_LABELS

# What a configuration is: the index's columns that say what a batch run measured (not how long, when or by
# which build)
CONFIGURATION = ["engine", "jdk", "collector", "heap", "vm_options", "compact_headers", "design", "allocator",
                 "strategy", "source", "scale", "params_pool_size", "params_mix_pool_size",
                 "params_internal_queue_size", "params_stored_count"]
AGREE, BOOTS_DISAGREE, RUNS_DISAGREE, CANNOT_TELL = (
    "agree", "boot-dependent", "differs within a boot", "cannot tell: one run in each place")
COLUMNS = ["configuration", "boots", "runs", "figures", "outcome"]
DESIGN_WORDS = {"cpp": "allocating design", "flat": "flat design"}


def boot_of(row: pd.Series) -> str:
    """A run's boot: its boot id's first 8 digits, or (a run recorded before boots were) its kernel."""
    boot_id = row.get("boot_id")
    if isinstance(boot_id, str) and boot_id:
        return machine.short_boot(boot_id)
    return f"kernel {row.get('kernel') or 'unknown'}"


def label(config: dict) -> str:
    """A configuration for people: 'Java 11, parallel, 2g heap, pooling, queue 1,000 and store 1,000, scale 1'."""
    def number(column: str) -> str:
        value = str(config.get(column, ""))
        return "" if value in ("", "nan") else f"{int(float(value)):,}"
    runtime = f"Java {config['jdk']}, {config['collector']}, {config['heap']} heap" if config["engine"] == "java" \
        else ", ".join(v for v in ("C++", DESIGN_WORDS.get(config.get("design"), config.get("design")),
                                   config.get("allocator")) if v)
    options = " ".join(o.strip(" '\"") for o in str(config.get("vm_options", "")).strip("[]()").split(",") if o.strip(" '\""))
    strategy = str(config["strategy"])
    base = strategy.removeprefix("native-")
    words = ("native " if base != strategy else "") + STRATEGY_LABELS.get(base, base).lower()
    pool = f", pool {number('params_pool_size')}" if strategy.endswith(("pool", "mix")) and number(
        "params_pool_size") else ""
    return (f"{runtime}{', ' + options if options else ''}, {words}, queue {number('params_internal_queue_size')} "
            f"and store {number('params_stored_count')}{pool}, scale {config['scale']}")


def consistency(index: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration measured in more than one boot, or by several keys in one boot (COLUMNS)."""
    ns = pd.to_numeric(index.get("ns_per_packet"), errors="coerce")
    batch = index[(index["mode"] == "batch") & (index["status"] == "ok") & ns.notna()]
    if batch.empty:
        return pd.DataFrame(columns=COLUMNS)
    present = [c for c in CONFIGURATION if c in batch.columns]
    # Grouped in plain Python: a store's index has thousands of rows and a group per configuration, and pandas
    # pays per group what a dictionary does not. configuration -> boot -> (measurement, figure), in row order.
    keys = zip(*(batch[c].astype(str).replace({"None": "", "nan": ""}).tolist() for c in present))
    measurements = [m if isinstance(m, str) else None for m in batch["measurement"].tolist()]
    groups: dict[tuple, dict[str, list[tuple[str | None, float]]]] = defaultdict(lambda: defaultdict(list))
    for key, boot, kind, figure in zip(keys, batch.apply(boot_of, axis=1).tolist(), measurements,
                                       ns[batch.index].astype(float).tolist()):
        groups[key][boot].append((kind, figure))
    rows = []
    for values in sorted(groups):
        by_boot = {boot: groups[values][boot] for boot in sorted(groups[values])}
        boots = {boot: [figure for _, figure in runs] for boot, runs in by_boot.items()}
        kinds = {boot: [[f for k, f in runs if k == kind] for kind in sorted({k for k, _ in runs if k is not None})]
                 for boot, runs in by_boot.items()}
        if len(boots) < 2 and len({k for runs in by_boot.values() for k, _ in runs if k is not None}) < 2:
            continue  # measured by one kind of run, in one boot: its own interval says how it spreads
        outcome = _outcome(boots, kinds)
        config = dict(zip(present, values))
        rows.append({"configuration": label({c: config.get(c, "") for c in CONFIGURATION}),
                     "boots": len(boots), "runs": sum(len(runs) for runs in boots.values()),
                     "figures": "; ".join(f"{boot}: {effects.spread(ns).text('ns')}" for boot, ns in boots.items()),
                     "outcome": outcome})
    return pd.DataFrame(rows, columns=COLUMNS)


def _apart(a: list[float], b: list[float]) -> bool:
    """Two sets of runs whose medians' intervals do not overlap (one run: its figure), one side of two or more."""
    x, y = effects.spread(a), effects.spread(b)
    return (x.n >= 2 or y.n >= 2) and (x.high < y.low or y.high < x.low)


def _outcome(boots: dict[str, list[float]], kinds: dict[str, list[list[float]]]) -> str:
    """AGREE, BOOTS_DISAGREE, RUNS_DISAGREE or CANNOT_TELL (see the module's docstring); kinds: each boot's runs
    by the measurement they belong to (a block's, a chapter's single run)."""
    if all(len(ns) < 2 for ns in boots.values()):
        return CANNOT_TELL
    if any(_apart(a, b) for a, b in combinations(boots.values(), 2)):
        return BOOTS_DISAGREE
    if any(_apart(a, b) for runs in kinds.values() for a, b in combinations(runs, 2)):
        return RUNS_DISAGREE
    return AGREE
