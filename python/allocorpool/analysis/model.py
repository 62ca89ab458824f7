"""What the answer depends on: pooling against allocation as a mixed-effects model of every boot's runs.

The boots that measured the answer are not repeats of one machine: their CPU models, kernels and engine
builds differ, and the same cell has run from 1.2 to 3.9 times slower from one boot to the next. So the host
is a factor of the model, and the boot a random effect. For each comparison (a solution and case, pooling
against allocation) the runs of every boot that measured its block are fitted with statsmodels' MixedLM:

    y ~ pooling * host class,  random (1 + pooling | boot)

y is log time per packet (batch; the effect is then the ratio pooling/allocation) or the share of packets
lost at one packet a microsecond in percentage points (real time; the effect is a difference, and a probe
that lost nothing is a zero the model keeps). The host class is read off the recorded CPU model (Intel or AMD).
The fit gives, per host class, the effect with its 95 % interval (Student's t with the boots' degrees of
freedom, since boots, not runs, are what varies), the between-boot SD of the effect left once the class is
known, and a 95 % prediction interval for one new machine of that class (the interval widened by that SD).

A verdict has four outcomes: pooling faster (the 95 % interval clears parity by the margin), allocation
faster (the same, the other way), equal within the margin (the 90 % interval lies inside the margin: two
one-sided tests at 5 %), or undecided. Undecided verdicts say how many boots of the class would decide them,
at 80 % power, from the fitted variances and the present estimate. Margins: 5 % of time (batch), one
percentage point of packets (real time).

Where the model cannot be fitted (fewer than three boots, a singular fit) the same figures come from the
boots' own effects: their mean, its t interval over boots, and their spread. With one boot the interval is
that boot's over its repetitions, and no prediction for another machine is made.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats

from allocorpool import effects, lists
from allocorpool.analysis.search import measured_loss

BATCH, REALTIME = "batch", "real time"
TESTS = (BATCH, REALTIME)
INTERVAL_NS = 1000  # the real-time blocks' interval: one packet a microsecond
# The block names run.cells gives the answer's blocks: "batch, parallel-11, case A", "real time at 1000 ns, ...",
# and "batch at 3x the minimum heap, g1, case B" (the heap headroom: a test of its own per multiple)
_NAMES = {BATCH: re.compile(r"^batch, (?P<solution>[^,]+), case (?P<case>[ABC])$"),
          REALTIME: re.compile(rf"^real time at {INTERVAL_NS} ns, (?P<solution>[^,]+), case (?P<case>[ABC])$"),
          "headroom": re.compile(r"^batch at (?P<factor>[0-9.]+)x the minimum heap, (?P<solution>[^,]+), "
                                 r"case (?P<case>[ABC])$")}


def headroom_test(factor: float) -> str:
    """The test of the headroom blocks at a multiple of the minimum heap: 'batch at 3× the minimum heap'."""
    return f"batch at {factor:g}× the minimum heap"


def is_batch(test: str) -> bool:
    """Whether a test measures time per packet (batch, at any heap), not loss."""
    return test != REALTIME
NUMERATOR, DENOMINATOR = "pool", "alloc"  # the answer's comparison: pooling against allocation
MARGINS = {BATCH: math.log(1 + effects.MARGIN), REALTIME: 1.0}  # log ratio; percentage points of packets
POWER = 0.80  # the power the boots needed to decide are estimated at
MAX_BOOTS = 100  # more than this many boots: "over 100"

# The verdicts, in the study's one vocabulary (effects), and how they read of pooling against allocation
FASTER, SLOWER, EQUAL, UNDECIDED, NOT_MEASURED = (
    effects.HOLDS, effects.FAILS, effects.EQUAL, effects.NO_DIFFERENCE, effects.NOT_MEASURED)
VERDICTS = (FASTER, SLOWER, EQUAL, UNDECIDED, NOT_MEASURED)
WORDS = {FASTER: "pooling faster", SLOWER: "allocation faster", EQUAL: "equal", UNDECIDED: "undecided",
         NOT_MEASURED: "not measured"}
INTEL, AMD, OTHER = "Intel", "AMD", "other"


CPU_NAMES = {AMD: "AMD EPYC", INTEL: "Intel Xeon", OTHER: "other CPUs"}


def short_label(solution: str) -> str:
    """A solution's one short label: 'Parallel 11', 'Native G1 11', 'C++ flat (glibc)'."""
    return lists.SOLUTIONS_BY_NAME[solution].label.split(",")[0] if solution in lists.SOLUTIONS_BY_NAME else solution


def host_class(cpu_model: object) -> str:
    """The host class of a recorded CPU model: Intel, AMD or other."""
    text = str(cpu_model or "")
    return INTEL if "intel" in text.lower() else AMD if "amd" in text.lower() else OTHER


def _base(key: str, boot: str) -> str:
    """A run's measurement without its repetition and boot: the block cell's measurement."""
    return re.sub(rf"(_r\d+)?_k{re.escape(boot)}$", "", key)


def answer_runs(index: pd.DataFrame, register: pd.DataFrame) -> pd.DataFrame:
    """One row per finished run of the answer's blocks (pooling and allocation, batch and real time at 1 µs) in
    every boot that registered them: test, solution, case, strategy, boot, host class, CPU model, kernel,
    commit, the block's calibration (memory latency over 16 MiB and 1 GiB, the reference run), and the run's
    figures: ns_per_packet, cpu_ns_per_packet (the process's CPU time, every thread's) and lost_pct."""
    columns = ["test", "solution", "case", "strategy", "boot", "host_class", "cpu_model", "cpus", "kernel", "commit",
               "load_ns_16mib", "load_ns_1024mib", "reference_ns", "ns_per_packet", "cpu_ns_per_packet", "lost_pct"]
    if register is None or not len(register) or index is None or not len(index) or "boot" not in index:
        return pd.DataFrame(columns=columns)
    # buffers off the heap have the engine's own names for the strategies (native-pool): the study's are the same
    strategy = index["strategy"].astype(str).str.removeprefix("native-")
    runs = index[index["boot"].notna() & (index["status"] == "ok") & strategy.isin([NUMERATOR, DENOMINATOR])]
    runs = runs.assign(strategy=strategy[runs.index])
    by_boot = {str(boot): part for boot, part in runs.groupby("boot")}
    rows = []
    for block in register.to_dict("records"):
        named = [(test, pattern.match(str(block["name"]))) for test, pattern in _NAMES.items()]
        test, match = next(((t, m) for t, m in named if m), (None, None))
        if test == "headroom":
            test = headroom_test(float(match["factor"]))
        boot = str(block["boot"])
        if match is None or boot not in by_boot:
            continue
        cells = {re.sub(r"_b[0-9a-f]+$", "", key) for key in str(block["cells"]).split(",")}
        part = by_boot[boot]
        mine = part[[_base(str(k), boot) in cells for k in part["measurement"]]]
        for run in mine.to_dict("records"):
            packets, cpu = run.get("measured_packets"), run.get("measured_cpu_s")
            cpu_ns = cpu * 1e9 / packets if _number(cpu) and _number(packets) and packets else math.nan
            lost = measured_loss(run)[1] if test == REALTIME else None
            rows.append({"test": test, "solution": match["solution"], "case": match["case"],
                         "strategy": run["strategy"], "boot": boot, "host_class": host_class(block.get("cpu_model")),
                         "cpu_model": block.get("cpu_model"), "cpus": block.get("cpus"), "kernel": block.get("kernel"),
                         "commit": block.get("commit"), "load_ns_16mib": block.get("load_ns_16mib"),
                         "load_ns_1024mib": block.get("load_ns_1024mib"),
                         "reference_ns": block.get("reference_ns_per_packet"),
                         "ns_per_packet": run.get("ns_per_packet") if is_batch(test) else math.nan,
                         "cpu_ns_per_packet": cpu_ns if is_batch(test) else math.nan,
                         "lost_pct": math.nan if lost is None else lost})
    return pd.DataFrame(rows, columns=columns)


def _number(value: object) -> bool:
    return isinstance(value, (int, float, np.number)) and math.isfinite(float(value))


@dataclass(frozen=True)
class Estimate:
    """The effect of pooling on one host class: on the model's scale (log ratio, or points), with its 95 %
    interval, its 90 % interval (the equivalence test's) and the 95 % prediction interval for one new machine
    (NaN where it cannot be made: one boot)."""

    host_class: str
    boots: int  # boots of this class
    point: float
    low: float
    high: float
    low90: float
    high90: float
    predict_low: float
    predict_high: float
    boot_variance: float  # the variance of one more boot's estimate of the effect (between + within)
    margin: float
    needed: int | None = None  # boots of this class that would decide it (None: decided, or none would)

    @property
    def verdict(self) -> str:
        if not math.isfinite(self.point):
            return NOT_MEASURED
        return verdict(self.low, self.high, self.low90, self.high90, self.margin)


def verdict(low: float, high: float, low90: float, high90: float, margin: float) -> str:
    """Pooling faster where the 95 % interval lies below -margin, allocation faster where it lies above +margin,
    equal where the 90 % interval lies inside ±margin (TOST at 5 %), else undecided."""
    if high < -margin:
        return FASTER
    if low > margin:
        return SLOWER
    if -margin <= low90 and high90 <= margin:
        return EQUAL
    return UNDECIDED


def boots_needed(point: float, boot_variance: float, margin: float, power: float = POWER) -> int | None:
    """How many boots in all would decide an effect of this size at this power, from the variance of one boot's
    estimate: a direction where the effect lies beyond the margin, equality where it lies inside (the nearer
    of the two decisions); None where the effect sits on the margin or nothing varies."""
    if not (math.isfinite(point) and math.isfinite(boot_variance)) or boot_variance <= 0:
        return None
    distance = abs(abs(point) - margin)
    if distance < 1e-12:
        return None
    # a direction: one side of a 95 % interval must clear the margin; equality: both sides of a 90 % interval
    z = stats.norm.ppf(0.975) if abs(point) > margin else stats.norm.ppf(0.95)
    tail = stats.norm.ppf(power) if abs(point) > margin else stats.norm.ppf(1 - (1 - power) / 2)
    n = boot_variance * ((z + tail) / distance) ** 2
    return int(min(math.ceil(n), MAX_BOOTS + 1))


@dataclass(frozen=True)
class Fit:
    """One comparison across the boots that measured it."""

    test: str
    solution: str
    case: str
    value: str  # the figure fitted: ns_per_packet, cpu_ns_per_packet or lost_pct
    estimates: dict[str, Estimate]  # by host class
    between_sd: float  # SD of the effect between boots, the host class known
    between_sd_alone: float  # the same without the host class
    within_variance: float  # the variance of one boot's estimate from its repetitions alone
    method: str  # "mixed model", "boots' effects" or "one boot"
    boots: int
    runs: int
    per_boot: dict[str, float] = field(default_factory=dict)  # each boot's own effect

    @property
    def log_scale(self) -> bool:
        return self.value != "lost_pct"

    @property
    def between_share(self) -> float:
        """The share of one boot's variance of the effect that lies between boots (the rest: repetitions)."""
        between = self.between_sd_alone ** 2
        total = between + self.within_variance
        return between / total if total > 0 else math.nan

    def host_share(self) -> float:
        """The share of the between-boot variance the host class explains."""
        if not self.between_sd_alone > 0:
            return math.nan
        return max(0.0, 1 - (self.between_sd / self.between_sd_alone) ** 2)


def _boot_effects(data: pd.DataFrame) -> pd.DataFrame:
    """Each boot's effect (mean of y pooling less mean of y allocation), its within-boot variance and class."""
    rows = []
    for boot, part in data.groupby("boot", sort=False):
        num, den = part.loc[part["pool"] == 1, "y"], part.loc[part["pool"] == 0, "y"]
        if len(num) < 2 or len(den) < 2:
            continue
        rows.append({"boot": boot, "host_class": part["host_class"].iloc[0], "effect": num.mean() - den.mean(),
                     "variance": num.var(ddof=1) / len(num) + den.var(ddof=1) / len(den),
                     "dof": len(num) + len(den) - 2})
    return pd.DataFrame(rows, columns=["boot", "host_class", "effect", "variance", "dof"])


def fit(runs: pd.DataFrame, test: str, solution: str, case: str, value: str | None = None) -> Fit:
    """The comparison's fit over every boot of its block (runs: answer_runs' rows)."""
    value = value or ("ns_per_packet" if is_batch(test) else "lost_pct")
    margin = MARGINS[REALTIME] if value == "lost_pct" else MARGINS[BATCH]
    mine = runs[(runs["test"] == test) & (runs["solution"] == solution) & (runs["case"] == case)]
    mine = mine[pd.to_numeric(mine[value], errors="coerce").notna()].copy()
    mine["y"] = pd.to_numeric(mine[value])
    if value != "lost_pct":
        mine = mine[mine["y"] > 0]
        mine["y"] = np.log(mine["y"])
    mine["pool"] = (mine["strategy"] == NUMERATOR).astype(int)
    per_boot = _boot_effects(mine)
    mine = mine[mine["boot"].isin(per_boot["boot"])]
    empty = Fit(test, solution, case, value, {}, math.nan, math.nan, math.nan, "not measured", 0, 0)
    if per_boot.empty:
        return empty
    within = float(per_boot["variance"].mean())
    classes = sorted(per_boot["host_class"].unique())
    common = dict(test=test, solution=solution, case=case, value=value, boots=len(per_boot), runs=len(mine),
                  per_boot=dict(zip(per_boot["boot"], per_boot["effect"])), within_variance=within)
    if len(per_boot) >= 3 and mine["y"].std() > 0:
        fitted = _mixed(mine, per_boot, classes, margin)
        if fitted is not None:
            estimates, between, alone = fitted
            return Fit(estimates=estimates, between_sd=between, between_sd_alone=alone, method="mixed model",
                       **common)
    return Fit(estimates=_from_boots(per_boot, classes, margin), between_sd=_spread(per_boot, classes),
               between_sd_alone=_spread(per_boot, []), method="one boot" if len(per_boot) == 1 else "boots' effects",
               **common)


def _mixed(data: pd.DataFrame, per_boot: pd.DataFrame, classes: list[str],
           margin: float) -> tuple[dict[str, Estimate], float, float] | None:
    """The MixedLM fit with and without the host class; None where it does not converge to a usable fit."""
    import statsmodels.formula.api as smf
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    data = data.assign(intel=(data["host_class"] == INTEL).astype(int))
    by_class = len(classes) > 1
    formula = "y ~ pool * intel" if by_class else "y ~ pool"
    results = {}
    for name, form in (("class", formula), ("alone", "y ~ pool")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = smf.mixedlm(form, data, groups=data["boot"], re_formula="~pool")
                result = model.fit(reml=True, method=["lbfgs", "powell"])
            except (np.linalg.LinAlgError, ValueError, ConvergenceWarning):
                return None
        if not result.converged or not np.all(np.isfinite(result.fe_params)) \
                or not np.all(np.isfinite(np.diag(result.cov_params()))):
            return None
        results[name] = result
    result = results["class"]
    slope_var = max(0.0, float(result.cov_re.loc["pool", "pool"]))
    alone_var = max(0.0, float(results["alone"].cov_re.loc["pool", "pool"]))
    cov = result.cov_params()
    dof = max(1, len(per_boot) - (2 if by_class else 1))
    within = float(per_boot["variance"].mean())
    estimates = {}
    for cls in classes:
        weights = pd.Series(0.0, index=result.fe_params.index)
        weights["pool"] = 1.0
        if by_class and cls == INTEL:
            weights["pool:intel"] = 1.0
        point = float(weights @ result.fe_params)
        se = math.sqrt(max(0.0, float(weights @ cov.loc[weights.index, weights.index] @ weights)))
        estimates[cls] = _estimate(cls, int((per_boot["host_class"] == cls).sum()), point, se, dof, slope_var,
                                   within, margin)
    return estimates, math.sqrt(slope_var), math.sqrt(alone_var)


def _estimate(cls: str, boots: int, point: float, se: float, dof: int, between: float, within: float,
              margin: float) -> Estimate:
    t95, t90 = stats.t.ppf(0.975, dof), stats.t.ppf(0.95, dof)
    spread = math.sqrt(se ** 2 + between + within)  # one new machine: its own boot effect and its repetitions
    boot_variance = between + within
    estimate = Estimate(cls, boots, point, point - t95 * se, point + t95 * se, point - t90 * se, point + t90 * se,
                        point - t95 * spread, point + t95 * spread, boot_variance, margin)
    if estimate.verdict != UNDECIDED:
        return estimate
    return replace(estimate, needed=boots_needed(point, boot_variance, margin))


def _spread(per_boot: pd.DataFrame, classes: list[str]) -> float:
    """The SD of the boots' effects beyond what their repetitions explain (within each class, where given)."""
    groups = [per_boot[per_boot["host_class"] == c] for c in classes] if len(classes) > 1 else [per_boot]
    parts = [g["effect"] - g["effect"].mean() for g in groups if len(g) > 1]
    deviations = pd.concat(parts) if parts else pd.Series(dtype=float)
    if len(deviations) < 2:
        return math.nan
    dof = len(deviations) - sum(1 for g in groups if len(g) > 1)
    observed = float((deviations ** 2).sum() / max(dof, 1))
    return math.sqrt(max(0.0, observed - float(per_boot["variance"].mean())))


def _from_boots(per_boot: pd.DataFrame, classes: list[str], margin: float) -> dict[str, Estimate]:
    """Estimates from the boots' own effects: with several boots of a class, their mean and its t interval over
    boots; with one, that boot's effect and its interval over repetitions (no prediction for another machine)."""
    estimates = {}
    for cls in classes:
        part = per_boot[per_boot["host_class"] == cls]
        if len(part) == 1:
            row = part.iloc[0]
            se, dof = math.sqrt(row["variance"]), max(1, int(row["dof"]))
            t95, t90 = stats.t.ppf(0.975, dof), stats.t.ppf(0.95, dof)
            point = float(row["effect"])
            estimate = Estimate(cls, 1, point, point - t95 * se, point + t95 * se, point - t90 * se,
                                point + t90 * se, math.nan, math.nan, math.nan, margin)
            estimates[cls] = estimate
            continue
        point, sd = float(part["effect"].mean()), float(part["effect"].std(ddof=1))
        between = max(0.0, sd ** 2 - float(part["variance"].mean()))
        estimates[cls] = _estimate(cls, len(part), point, sd / math.sqrt(len(part)), len(part) - 1, between,
                                   float(part["variance"].mean()), margin)
    return estimates


def tests_of(runs: pd.DataFrame) -> list[str]:
    """The tests the runs hold: batch, the headroom multiples (smallest first), real time."""
    held = set(runs["test"].dropna())
    headroom = sorted((t for t in held if t not in TESTS), key=lambda t: float(re.findall(r"[0-9.]+", t)[0]))
    return [t for t in (BATCH, *headroom, REALTIME) if t in held]


def fits(runs: pd.DataFrame, value: str | None = None, tests: Iterable[str] | None = None) -> list[Fit]:
    """Every comparison the runs hold (of the tests given; None: every test), batch first, in solution and case
    order."""
    out = []
    for test in tests_of(runs) if tests is None else tests:
        part = runs[runs["test"] == test]
        for (solution, case), _ in part.groupby(["solution", "case"], sort=True):
            if value == "cpu_ns_per_packet" and not is_batch(test):
                continue
            out.append(fit(runs, test, str(solution), str(case), value))
    return out


def explained(runs: pd.DataFrame) -> pd.DataFrame:
    """What the boots' batch effects depend on, over every comparison: each boot's effect less its comparison's
    mean, regressed on the host class and the block's calibration (memory latency over 1 GiB, the reference run,
    each in SDs over the boots), with intervals clustered by boot. One row per term: its coefficient (the change
    in pooling/allocation, in percent, per unit), its 95 % interval, and the share of the effects' spread it
    explains alone (R²)."""
    import statsmodels.formula.api as smf

    batch = runs[(runs["test"] == BATCH) & (pd.to_numeric(runs["ns_per_packet"], errors="coerce") > 0)].copy()
    rows = []
    for (solution, case, boot), part in batch.groupby(["solution", "case", "boot"]):
        num = np.log(part.loc[part["strategy"] == NUMERATOR, "ns_per_packet"].astype(float))
        den = np.log(part.loc[part["strategy"] == DENOMINATOR, "ns_per_packet"].astype(float))
        if len(num) >= 2 and len(den) >= 2:
            first = part.iloc[0]
            rows.append({"comparison": f"{solution} {case}", "boot": boot, "effect": num.mean() - den.mean(),
                         "intel": int(first["host_class"] == INTEL), "latency": first["load_ns_1024mib"],
                         "reference": first["reference_ns"]})
    frame = pd.DataFrame(rows).dropna()
    columns = ["term", "coefficient_pct", "low_pct", "high_pct", "r2", "boots", "effects"]
    if frame.empty or frame["boot"].nunique() < 3:
        return pd.DataFrame(columns=columns)
    frame["deviation"] = frame["effect"] - frame.groupby("comparison")["effect"].transform("mean")
    for name in ("latency", "reference"):
        sd = frame[name].std()
        frame[name] = (frame[name] - frame[name].mean()) / sd if sd > 0 else 0.0
    out = []
    terms = [("intel", "host class: Intel rather than AMD"), ("latency", "memory latency over 1 GiB, per SD"),
             ("reference", "reference run's time, per SD")]
    for term, label in terms:
        if frame[term].nunique() < 2:
            continue
        result = smf.ols(f"deviation ~ {term}", frame).fit(cov_type="cluster", cov_kwds={"groups": frame["boot"]})
        low, high = result.conf_int().loc[term]
        out.append({"term": label, "coefficient_pct": 100 * math.expm1(result.params[term]),
                    "low_pct": 100 * math.expm1(low), "high_pct": 100 * math.expm1(high),
                    "r2": float(result.rsquared), "boots": frame["boot"].nunique(), "effects": len(frame)})
    return pd.DataFrame(out, columns=columns)


def budget(fits: Sequence[Fit]) -> pd.DataFrame:
    """The undecided comparisons and the boots of their host class that would decide them, fewest first."""
    rows = []
    for fit in fits:
        for cls, estimate in fit.estimates.items():
            if estimate.verdict == UNDECIDED:
                rows.append({"test": fit.test, "solution": short_label(fit.solution), "case": fit.case,
                             "machines": CPU_NAMES[cls], "boots now": estimate.boots,
                             "boots to decide": estimate.needed if estimate.needed is not None else math.inf,
                             "decides toward": _toward(estimate)})
    table = pd.DataFrame(rows, columns=["test", "solution", "case", "machines", "boots now", "boots to decide",
                                        "decides toward"])
    table["more boots"] = (table["boots to decide"] - table["boots now"]).clip(lower=1)
    return table.sort_values("more boots", kind="stable").reset_index(drop=True)


def _toward(estimate: Estimate) -> str:
    if abs(estimate.point) <= estimate.margin:
        return WORDS[EQUAL]
    return WORDS[FASTER] if estimate.point < 0 else WORDS[SLOWER]


def budget_lines(fits: Sequence[Fit]) -> list[str]:
    """`make plan`'s boot budget: a line per undecided comparison with the boots of its machine class that would
    decide it, then how many comparisons a few more boots of each class would decide."""
    table = budget(fits)
    if table.empty:
        return ["Every comparison of the answer is decided: no more boots are needed."]
    more = table["more boots"]
    lines = [f"{len(table)} comparisons of pooling against allocation are undecided. More boots of their machine "
             f"class would decide each (at {effects.pct(POWER)} power, from the fitted variances):"]
    for row, extra in zip(table.to_dict("records"), more):
        words = ("unknown (one boot shows no spread between boots)" if row["boots now"] < 2 else
                 "no number of boots (its effect sits on the margin)") if not math.isfinite(extra) else (
            f"over {MAX_BOOTS} more boots" if row["boots to decide"] > MAX_BOOTS else
            f"{int(extra)} more boot{'s' * (extra != 1)}")
        lines.append(f"  {row['test']}, {row['solution']}, case {row['case']}, {row['machines']} "
                     f"({row['boots now']} now): {words}, likely {row['decides toward']}")
    for extra in (1, 3, 10):
        decided = int((more <= extra).sum())
        if decided:
            lines.append(f"{extra} more boot{'s' * (extra != 1)} of each class would decide {decided} of the "
                         f"{len(table)}.")
    return lines
