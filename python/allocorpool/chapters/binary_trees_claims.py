"""Chapter 10's claims: the original benchmark's conclusions, each decided on this machine's runs.

A claim is decided by effect sizes (allocorpool.effects): the ratio of two variants' medians over their
finished runs, with its 95 % bootstrap interval. A comparison holds where that interval clears parity by
effects.MARGIN in the claimed direction, fails where it clears it the other way, reads "undecided"
otherwise, and "not measured" with fewer than two runs a side. A claim of a few comparisons
needs each of them (effects.all_of); one over many pairs counts them (effects.tally). The original's
figures, one run each on another machine, are shown as context and decide nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from allocorpool import effects
from allocorpool.chapters.page import display as show
from allocorpool.chapters.binary_trees import measured, seed_depth
from allocorpool.effects import Verdict
from allocorpool.run.binary_trees import MARKERS, variant

PERCENT = f"{effects.MARGIN * 100:.0f} %"
# per figure: its name, its unit, and how the claim words "first is smaller" and "first is larger"
FIGURES = {"wall_s": ("wall time", "s", "less wall time than", "more wall time than"),
           "cpu_s": ("CPU time", "s", "less CPU time than", "more CPU time than"),
           "sys_s": ("system time", "s", "less system time than", "more system time than"),
           "pause_max_ms": ("longest pause", "ms", "shorter pauses than", "longer pauses than")}
ORIGINAL = {"wall_s": "real_s", "sys_s": "sys_s"}  # the original's column of a figure (CPU: user + sys)
_FLIPPED = {effects.HOLDS: effects.FAILS, effects.FAILS: effects.HOLDS}
_ORDER = {effects.FAILS: 0, effects.NO_DIFFERENCE: 1, effects.NOT_MEASURED: 2, effects.HOLDS: 3}


class Runs:
    """One depth's measured variants (the chapter's rows) and their finished runs, figure by figure."""

    def __init__(self, rows: pd.DataFrame, runs: pd.DataFrame):
        self.rows = measured(rows).set_index("variant")
        self.depth = int(rows["depth"].iloc[0]) if len(rows) else None
        self.runs = runs[(runs["depth"] == self.depth) & (runs["status"] == "ok")]

    def names(self, mask: pd.Series | None = None) -> list[str]:
        """The variants, or those where mask (over some of the rows) is true."""
        return list(self.rows.index if mask is None else self.rows.index[mask.reindex(self.rows.index).eq(True)])

    def values(self, name: str, figure: str) -> pd.Series:
        part = self.runs[self.runs["variant"] == name]
        if figure == "cpu_s":
            return pd.to_numeric(part["user_s"], errors="coerce") + pd.to_numeric(part["sys_s"], errors="coerce")
        return pd.to_numeric(part[figure], errors="coerce")

    def spread(self, name: str, figure: str) -> effects.Spread:
        return effects.spread(self.values(name, figure))

    def text(self, name: str, figure: str) -> str:
        return self.spread(name, figure).text(FIGURES[figure][1])

    def largest(self, names: list[str], figure: str) -> str:
        return max(names, key=lambda name: self.spread(name, figure).median)

    def smallest(self, names: list[str], figure: str) -> str:
        return min(names, key=lambda name: self.spread(name, figure).median)


def label(name: str) -> str:
    return variant(name).label


@dataclass(frozen=True)
class Comparison:
    """The claim that first's figure is smaller (or larger) than second's, and its effect: first over second."""

    first: str
    second: str
    figure: str
    smaller: bool
    effect: effects.Effect

    @property
    def outcome(self) -> str:
        decided = effects.decide(self.effect)
        return decided if self.smaller else _FLIPPED.get(decided, decided)

    def row(self, data: Runs) -> dict[str, str]:
        _, _, less, more = FIGURES[self.figure]
        return {"comparison": f"{label(self.first)} {less if self.smaller else more} {label(self.second)}",
                "medians (95 % intervals)": f"{data.text(self.first, self.figure)} against "
                                            f"{data.text(self.second, self.figure)}",
                "ratio (95 % interval)": self.effect.text(), "verdict": self.outcome}


def compare(data: Runs, first: str, second: str, figure: str = "wall_s", smaller: bool = True) -> Comparison:
    return Comparison(first, second, figure, smaller,
                      effects.ratio(data.values(first, figure), data.values(second, figure)))


def verdict(claim: str, rule: str, outcome: str, detail: str, comparisons: list[Comparison], data: Runs) -> Verdict:
    """The claim's verdict: its outcome (effects.OUTCOMES, or MIXED for pairs that went both ways), the effects
    with their intervals and the seed's figures as context, and every comparison made, those against it first."""
    table = pd.DataFrame([c.row(data) for c in comparisons])
    if len(table):
        table = table.sort_values("verdict", key=lambda s: s.map(_ORDER), kind="stable").reset_index(drop=True)
    return Verdict(outcome, detail, table, rule, claim)


def rule_one(first: str, second: str, figure: str, smaller: bool = True) -> str:
    """The rule of a claim decided by one comparison."""
    way = "below" if smaller else "above"
    return (f"Rule: {first}'s median {FIGURES[figure][0]} over {second}'s. It holds where the 95 % interval "
            f"lies {way} parity by {PERCENT}, and fails where it lies beyond parity the other way by as much.")


def lacking(data: Runs, names: list[str]) -> str:
    """A sentence naming the variants with fewer than two finished runs here ('' where none)."""
    few = [label(name) for name in names if len(data.values(name, "wall_s").dropna()) < 2]
    return f" Fewer than two finished runs here: {'; '.join(few)}." if few else ""


def context(data: Runs, seed: pd.DataFrame, names: list[str], figures: tuple[str, ...] = ("wall_s",),
            called: dict[str, str] | None = None) -> str:
    """The original's single runs of these variants, as a sentence of context ('' where it lacks one); called
    names the original's rows that ran another program than ours (macOS's allocator for glibc, say)."""
    depth = seed_depth(seed, data.depth)
    theirs = seed[seed["depth"] == depth].set_index("seed_label")
    parts = []
    for name in names:
        row = theirs.loc[variant(name).seed_label] if variant(name).seed_label in theirs.index else None
        if row is None:
            return ""
        values = [row["user_s"] + row["sys_s"] if figure == "cpu_s" else row[ORIGINAL[figure]] for figure in figures]
        parts.append(", ".join(f"{value:.2f} s {FIGURES[figure][0]}" for value, figure in zip(values, figures))
                     + f" ({(called or {}).get(name, label(name))})")
    return (f" Context only, one run each on another machine at depth {depth}, the original measured "
            + (" against " if len(parts) == 2 else "; ").join(parts) + ".")


def claim_bump_allocation(data: Runs, seed: pd.DataFrame) -> Verdict:
    claim = "Runtimes that allocate by bumping a pointer (the JVMs, OCaml) beat explicit allocators"
    rule = (f"Rule: each such runtime's median wall time over each explicit allocator's, pair by pair. A pair "
            f"holds where its 95 % interval lies below parity by {PERCENT}, and fails where it lies above by as "
            f"much; the verdict counts the pairs.")
    bump = data.names(data.rows["bump_allocation"])
    explicit = data.names(data.rows["memory"] == "malloc/free")
    if not bump or not explicit:
        return verdict(claim, rule, effects.NOT_MEASURED, "No such runtime or no explicit allocator ran here.", [],
                       data)
    pairs = [compare(data, b, e) for b in bump for e in explicit]
    counted = effects.tally(p.outcome for p in pairs)
    detail = f"Here it {counted.text('pairs')}."
    if "ocaml" in bump and "c-jemalloc" in explicit:
        detail += f" OCaml over jemalloc, the original's pair: {compare(data, 'ocaml', 'c-jemalloc').effect.text()}."
    detail += context(data, seed, ["ocaml", "java11-g1", "c-jemalloc"])
    return verdict(claim, rule, counted.outcome(), detail, pairs, data)


def claim_explicit_pauses(data: Runs, seed: pd.DataFrame) -> Verdict:
    claim = "The largest pauses come from explicit deallocation, not from mark-and-sweep collectors"
    rule = (f"Rule: the explicit allocator with the longest median pause against each mark-and-sweep collector. "
            f"It holds if its pauses are longer than each one's by {PERCENT} over the whole 95 % interval. It "
            f"fails if one collector's are longer than its by as much.")
    rows = data.rows[data.rows["pause_max_ms"].notna()]
    explicit = data.names((rows["memory"] == "malloc/free")
                          & rows["pause_source"].str.contains("deallocation", na=False))
    sweeping = data.names(rows["mark_sweep"].astype(bool))
    if not explicit or not sweeping:
        return verdict(claim, rule, effects.NOT_MEASURED, "No deallocation or no mark-and-sweep pause was measured "
                                                          "here.", [], data)
    worst = data.largest(explicit, "pause_max_ms")
    pairs = [compare(data, worst, other, "pause_max_ms", smaller=False) for other in sweeping]
    closest = next(p for p in pairs if p.second == data.largest(sweeping, "pause_max_ms"))
    detail = (f"Here the explicit allocator with the longest pauses is {label(worst)}: "
              f"{data.text(worst, 'pause_max_ms')}. The collector with the longest is {label(closest.second)}: "
              f"{data.text(closest.second, 'pause_max_ms')}, a ratio of {closest.effect.text()}. Against the "
              f"{len(pairs)} collectors it {effects.tally(p.outcome for p in pairs).text('collectors')}.")
    generational = data.names(rows["bump_allocation"].astype(bool) & (rows["memory"] == "tracing GC"))
    if generational:
        longest = data.largest(generational, "pause_max_ms")
        detail += (f" Outside the claim, the JVMs' collectors pause longest in {label(longest)}: "
                   f"{data.text(longest, 'pause_max_ms')}.")
    return verdict(claim, rule, effects.all_of([p.outcome for p in pairs]), detail, pairs, data)


def claim_parallel_marking(data: Runs, seed: pd.DataFrame) -> Verdict:
    several, one = f"c-boehm-{MARKERS}", "c-boehm-1"
    claim = f"Parallel marking trades CPU time for wall time (Boehm's collector, {MARKERS} markers against 1)"
    rule = (f"Rule: {MARKERS} markers' median wall time and CPU time over 1 marker's. It holds if wall time is lower "
            f"and CPU time higher, each by {PERCENT} over the whole 95 % interval. It fails if either goes the other "
            f"way by as much.")
    wall, cpu = compare(data, several, one), compare(data, several, one, "cpu_s", smaller=False)
    detail = (f"Here wall time is {wall.effect.text()} and CPU time {cpu.effect.text()} of 1 marker's."
              + lacking(data, [several, one]) + context(data, seed, [several, one], ("wall_s", "cpu_s")))
    return verdict(claim, rule, effects.all_of([wall.outcome, cpu.outcome]), detail, [wall, cpu], data)


def claim_batched_frees(data: Runs, seed: pd.DataFrame) -> Verdict:
    collected, freed = "c-boehm-1", "c-boehm-free"
    claim = ("Collectors reclaim in batches while explicit deallocation pays per object: Boehm's allocator is "
             "faster when its collector reclaims the trees than when the program frees them")
    pair = compare(data, collected, freed)
    detail = (f"Here it is {pair.effect.text()}." + lacking(data, [collected, freed])
              + context(data, seed, [collected, freed]))
    return verdict(claim, rule_one("the collected program", "the freeing one", "wall_s"), pair.outcome, detail,
                   [pair], data)


def claim_lock(data: Runs, seed: pd.DataFrame) -> Verdict:
    unlocked, locked = "rust-dlmalloc", "rust-dlmalloc-locked"
    claim = "dlmalloc without synchronisation is faster than behind a lock (the original ran C, here Rust's crate)"
    pair = compare(data, unlocked, locked)
    detail = (f"Here it is {pair.effect.text()}." + lacking(data, [unlocked, locked])
              + context(data, seed, [unlocked, locked], called={unlocked: "C, dlmalloc, no lock",
                                                                 locked: "C, dlmalloc behind a lock"}))
    return verdict(claim, rule_one("the unlocked program", "the locked one", "wall_s"), pair.outcome, detail, [pair],
                   data)


def claim_system_malloc(data: Runs, seed: pd.DataFrame) -> Verdict:
    others = ["c-jemalloc", "c-mimalloc", "c-tcmalloc"]
    claim = "The system's allocator is the slowest explicit one (the original's was macOS's; here it is glibc's)"
    rule = (f"Rule: glibc's median wall time over each other C allocator's. It holds if glibc is slower than each by "
            f"{PERCENT} over the whole 95 % interval. It fails if one is slower than glibc by as much.")
    pairs = [compare(data, "c-glibc", other, smaller=False) for other in others]
    measured_others = [other for other in others if other in data.rows.index]
    detail = ""
    if "c-glibc" in data.rows.index and measured_others:
        closest = next(p for p in pairs if p.second == data.largest(measured_others, "wall_s"))
        detail = (f"Here glibc's time is {closest.effect.text()} that of the slowest of the others, "
                  f"{label(closest.second)}.")
    detail += lacking(data, ["c-glibc", *others]) + context(data, seed, ["c-glibc", "c-jemalloc"],
                                                                       called={"c-glibc": "C, macOS's malloc"})
    return verdict(claim, rule, effects.all_of([p.outcome for p in pairs]), detail.strip(), pairs, data)


def claim_ocaml_fastest(data: Runs, seed: pd.DataFrame) -> Verdict:
    claim = "OCaml is the fastest of all"
    rule = (f"Rule: OCaml's median wall time over each other variant's. It holds if OCaml is faster than each by "
            f"{PERCENT} over the whole 95 % interval. It fails if any one is faster than OCaml by as much.")
    others = [name for name in data.names() if name != "ocaml"]
    if "ocaml" not in data.rows.index or not others:
        return verdict(claim, rule, effects.NOT_MEASURED, "OCaml or every other variant has no finished run here.",
                       [], data)
    pairs = [compare(data, "ocaml", other) for other in others]
    fastest = data.smallest(others, "wall_s")
    detail = (f"Against the {len(pairs)} others it {effects.tally(p.outcome for p in pairs).text('variants')}. "
              f"The fastest, {label(fastest)}, takes {data.text(fastest, 'wall_s')}; OCaml takes "
              f"{data.text('ocaml', 'wall_s')}." + context(data, seed, ["ocaml", "java11-g1"]))
    return verdict(claim, rule, effects.all_of([p.outcome for p in pairs]), detail, pairs, data)


def claim_incremental_sys(data: Runs, seed: pd.DataFrame) -> Verdict:
    incremental, plain = "c-boehm-incremental", f"c-boehm-{MARKERS}"
    claim = "Boehm's incremental mode costs system time, for the kernel's tracking of written pages"
    rule = (f"Rule: the incremental mode's median system time and wall time over the plain mode's, both with "
            f"{MARKERS} markers. It holds if both are higher by {PERCENT} over the whole 95 % interval. It fails if "
            f"either is lower by as much.")
    sys_, wall = (compare(data, incremental, plain, figure, smaller=False) for figure in ("sys_s", "wall_s"))
    detail = (f"Here system time is {sys_.effect.text()} and wall time {wall.effect.text()} of the plain mode's."
              + lacking(data, [incremental, plain]) + context(data, seed, [incremental, plain], ("sys_s", "wall_s")))
    return verdict(claim, rule, effects.all_of([sys_.outcome, wall.outcome]), detail, [sys_, wall], data)


CLAIMS = (claim_bump_allocation, claim_explicit_pauses, claim_parallel_marking, claim_batched_frees, claim_lock,
          claim_system_malloc, claim_ocaml_fastest, claim_incremental_sys)


def claims(rows: pd.DataFrame, runs: pd.DataFrame, seed: pd.DataFrame) -> list[Verdict]:
    """The original's claims, each decided on one depth's rows and that depth's finished runs."""
    data = Runs(rows, runs)
    return [check(data, seed) for check in CLAIMS]


def text(v: Verdict) -> str:
    """The claim, its verdict, its rule and its effects, as the chapter prints them."""
    return f"**{v.claim}.**\n\n*{v.words[:1].upper() + v.words[1:]}.* {v.rule} {v.summary}"


def show_claims(verdicts: list[Verdict]) -> None:
    for v in verdicts:
        show.note(text(v))
        if len(v.cells):
            n = len(v.cells)
            show.show_details("The comparison behind it" if n == 1 else
                              f"The {n} comparisons behind it, those against the claim first", v.cells)
