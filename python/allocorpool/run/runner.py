"""Runs one cell of the study as a separate engine process, with a timeout.

A `Cell` is one engine run (engine, JDK and collector or C++ design and allocator, case,
strategy, mode, ...). `run_cell` starts it, reads its JSON Lines as the engine writes them
(every record is flushed) into a records.Run while it runs, shows progress (tqdm, in a
notebook or a terminal: elapsed/duration, packets, lost) and returns a `CellResult`. A run
that fails, crashes or times out is a result with its status, exit code and stderr tail and
every record it wrote: run_cell does not raise for what the engine does.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from tqdm.auto import tqdm

from allocorpool import kinds, lists, paths, settings
from allocorpool.data import gclog
from allocorpool.data.keys import configuration_of
from allocorpool.data.records import CellResult, RecordReader, Run
from allocorpool.run import jdks
from allocorpool.run.java import JavaRun

ENGINES = ("java", "cpp")
MODES = ("batch", "realtime")
SOURCES = ("counter", "random")  # the engines' --source: the published code's draws, or independent ones
STDERR_TAIL_CHARS = 4000
STOP_GRACE_S = 5.0
# The fill phase (the internal FIFO and the store filled before anything is measured) has its own
# limit: at the article's sizes case C's allocating fill takes 80-100 s before the first period,
# longer than a whole short run may take. The engines end a fill that has not finished within
# duration_s + ENGINE_FILL_LIMIT_S with an error (docs/records.md); the runner waits a minute more.
ENGINE_FILL_LIMIT_S = float(lists.ENGINE_FACTS["fill_limit_s"])


@kinds.register
@dataclass(frozen=True)
class Cell:
    """One run of one engine: everything that selects what is measured."""

    kind: ClassVar[str] = "engine"  # allocorpool.kinds: registered
    engine: str
    case: str
    strategy: str
    mode: str = "batch"
    duration_s: float = 30.0
    warmup_s: float = 5.0
    interval_ns: int | None = None  # real-time only
    scale: float = 1.0
    source: str = "counter"
    # Absolute counts that override the case's scaled ones (None: the case's).
    internal_queue_size: int | None = None
    stored_count: int | None = None
    pool_size: int | None = None
    capture_delay_ms: float | None = None  # real-time: the input queue's capacity in time (None: the engines' 100 ms)
    jdk: int | None = None  # java only, from here to vm_options
    collector: str | None = None
    heap: str = "2g"
    compact_headers: bool = False
    live_objects: bool = False
    gc_log: bool = False
    vm_options: tuple[str, ...] = ()  # more JVM options, as the solution runs them (e.g. G1's pause goal)
    stop_when_heap_full: bool = False  # end the timed phase when the heap is 90 % used (Epsilon never frees)
    design: str | None = None  # cpp only: "cpp" or "flat"
    allocator: str | None = None  # cpp only
    build: str = ""  # the engine build that runs it (paths.engine_build); "" where not known
    # A tighter limit on the fill phase than the engines' own (a minimum-heap bisection's: a run that
    # thrashes in too small a heap does not fit). How long it may take, not what it measures: not in the key.
    fill_limit_s: float | None = None
    # Which run of the same measurement this is: the first (0) has the key it always had, later ones
    # (repeats that show the spread between runs) add r<n> to it.
    repetition: int = 0
    # A probe of a series (run.probe_series): it runs in a JVM that filled the model once for a search's
    # probes, after the ones before it; alone, it is a series of one.
    series: bool = False
    # The boot a block's repetition ran in (run.blocks: the short boot id): a block measured again in
    # another boot is a replicate of its own, never mixed with this one's runs. "" outside blocks.
    boot: str = ""
    # The run's processing threads (--threads N: each with its own share of the case; in real time, N consumers
    # of one clock); None runs the model on the engine's main thread, as every other chapter's cells do.
    threads: int | None = None
    # With threads: "strong" splits the case's live set between them (each thread its share); None runs the
    # engines' default, weak scaling (every thread a live set of the case's size).
    scaling: str | None = None
    # With threads (java, batch): one producer thread acquires and fills every packet, the N threads (workers)
    # process and release them (the engine's --handoff).
    handoff: bool = False

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"engine {self.engine!r}: one of {ENGINES}")
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: one of {MODES}")
        if (self.mode == "realtime") != (self.interval_ns is not None):
            raise ValueError("interval_ns is required in realtime mode and only there")
        if self.source not in SOURCES:
            raise ValueError(f"source {self.source!r}: one of {SOURCES}")
        if self.capture_delay_ms is not None and (self.mode != "realtime" or not self.capture_delay_ms > 0):
            raise ValueError("capture_delay_ms is a positive time, for realtime cells only")
        if self.fill_limit_s is not None and not self.fill_limit_s > 0:
            raise ValueError(f"fill_limit_s {self.fill_limit_s!r}: a positive time or None")
        if self.repetition < 0:
            raise ValueError(f"repetition {self.repetition!r}: 0 (the first run) or more")
        if self.series and (self.engine != "java" or self.mode != "realtime" or self.live_objects
                            or self.stop_when_heap_full):
            raise ValueError("series: java realtime cells only, without live_objects or stop_when_heap_full")
        if self.threads is not None and (self.threads < 1 or self.series):
            raise ValueError(f"threads {self.threads!r}: 1 or more, not in a series (None: the main thread)")
        if self.scaling not in (None, "strong") or (self.scaling is not None and self.threads is None):
            raise ValueError(f"scaling {self.scaling!r}: None (weak, the engines' default) or 'strong', with threads")
        if self.handoff and (self.threads is None or self.engine != "java" or self.mode != "batch"):
            raise ValueError("handoff: java batch cells with threads only")
        object.__setattr__(self, "vm_options", tuple(self.vm_options))  # a list when rebuilt from a store
        if self.engine == "java":
            if self.jdk is None or self.collector is None:
                raise ValueError("a java cell needs jdk and collector")
            jdks.collector_flags(self.jdk, self.collector)
            if self.design is not None or self.allocator is not None:
                raise ValueError("design and allocator are for cpp cells")
        else:
            if self.design is None or self.allocator is None:
                raise ValueError("a cpp cell needs design and allocator")
            if self.jdk is not None or self.collector is not None or self.gc_log or self.live_objects \
                    or self.compact_headers or self.vm_options or self.stop_when_heap_full:
                raise ValueError("jdk, collector, gc_log, live_objects, compact_headers, vm_options and "
                                 "stop_when_heap_full are for java cells")

    @property
    def key(self) -> str:
        """A readable id, unique per cell: names its files and indexes the store."""
        parts = [self.engine]
        if self.engine == "java":
            parts += [f"jdk{self.jdk}", str(self.collector), self.heap] + (["coh"] if self.compact_headers else [])
            parts += [option.removeprefix("-XX:").lstrip("-") for option in self.vm_options]
        else:
            parts += [str(self.design), str(self.allocator)]
        parts.append(self.case)
        parts += [f"{tag}{count}" for tag, count in (("q", self.internal_queue_size), ("s", self.stored_count),
                                                      ("p", self.pool_size)) if count is not None]
        parts += [self.strategy, self.mode] + ([f"t{self.threads}"] if self.threads is not None else [])
        parts += (["strong"] if self.scaling == "strong" else []) + (["handoff"] if self.handoff else [])
        if self.interval_ns is not None:
            parts.append(f"{self.interval_ns}ns")
        if self.capture_delay_ms is not None:
            parts.append(f"c{self.capture_delay_ms:g}ms")
        parts += [f"d{self.duration_s:g}", f"w{self.warmup_s:g}", f"x{self.scale:g}", self.source]
        parts += (["live"] if self.live_objects else []) + (["gclog"] if self.gc_log else [])
        parts += ["heapstop"] if self.stop_when_heap_full else []
        parts += ["series"] if self.series else []
        parts += [f"r{self.repetition}"] if self.repetition else []
        parts += [f"k{self.boot}"] if self.boot else []
        parts += [f"b{self.build}"] if self.build else []
        return "_".join(parts)

    @property
    def configuration(self) -> str:
        """What a real-time run of this cell measures at any interval, for any length, in any repetition, boot
        or build: every run of one configuration is a probe of the same solution, strategy, case and sizes."""
        return configuration_of(self.key)

    @property
    def measurement(self) -> str:
        """The key without the engine build: what is measured, whichever build measured it."""
        return self.key.removesuffix(f"_b{self.build}") if self.build else self.key

    def params(self) -> dict[str, Any]:
        return asdict(self)

    def engine_args(self, out: Path) -> list[str]:
        args = ["--case", self.case, "--strategy", self.strategy, "--mode", self.mode]
        if self.interval_ns is not None:
            args += ["--interval-ns", str(self.interval_ns)]
        if self.capture_delay_ms is not None:
            args += ["--capture-delay-ms", f"{self.capture_delay_ms:g}"]
        args += ["--duration-s", f"{self.duration_s:g}", "--warmup-s", f"{self.warmup_s:g}",
                 "--scale", f"{self.scale:g}", "--source", self.source]
        for option, count in (("--internal-queue-size", self.internal_queue_size),
                              ("--stored-count", self.stored_count), ("--pool-size", self.pool_size)):
            if count is not None:
                args += [option, str(count)]
        if self.threads is not None:
            args += ["--threads", str(self.threads)]
        if self.scaling is not None:
            args += ["--scaling", self.scaling]
        if self.handoff:
            args.append("--handoff")
        if self.live_objects:
            args.append("--live-objects")
        if self.stop_when_heap_full:
            args.append("--stop-when-heap-full")
        if self.series:
            args.append("--probes-from-stdin")
        if self.engine == "cpp" and self.mode == "realtime":
            # The allocation count is a batch cell's figure (it does not depend on the interval); its pass
            # fills the model again after the timed run, which changes nothing measured and costs a probe
            # up to half its time (case C: 18 s beyond a 14 s fill).
            args += ["--count-allocations", "no"]
        return args + ["--out", str(out)]


def cpu_pins(cell: Cell) -> list[str]:
    """Where a real-time engine pins its clock and its consumer: the first two CPUs this thread may run on
    (the engine inherits its affinity: the whole machine, or a slot's CPUs, run.slots), and a cell of N
    consumer threads the N after the first; none pinned where there are too few, or the N are not
    consecutive. How it runs, not what it measures: not in the key. Nothing for batch."""
    if cell.mode != "realtime":
        return []
    cpus = sorted(os.sched_getaffinity(0))
    consumers = cell.threads or 1
    # N consumers take the N CPUs after the clock's, consecutive (the engine pins consumer k on the first + k)
    pinned = len(cpus) > consumers and cpus[1:consumers + 1] == list(range(cpus[1], cpus[1] + consumers))
    producer, consumer = cpus[:2] if pinned else (-1, -1)
    return ["--producer-cpu", str(producer), "--consumer-cpu", str(consumer)]


def engine_command(cell: Cell, out: Path, gc_log: Path | None) -> list[str]:
    """The command line of a cell's engine (java via JavaRun, cpp via build/cpp-lib/cpp_engine)."""
    args = [*cell.engine_args(out), *cpu_pins(cell)]
    if cell.engine == "java":
        assert cell.jdk is not None and cell.collector is not None
        run = JavaRun(jdk=cell.jdk, collector=cell.collector, heap=cell.heap, gc_log=gc_log,
                      compact_headers=cell.compact_headers, vm_options=cell.vm_options)
        return run.command(args)
    engine = paths.cpp_engine()
    if not engine.is_file():
        raise FileNotFoundError(f"{engine} is missing; build cpp-lib first")
    return [str(engine), "--design", str(cell.design), "--allocator", str(cell.allocator), *args]


CommandBuilder = Callable[[Cell, Path, Path | None], list[str]]


def default_fill_timeout(cell: Cell) -> float | None:
    """How long a run may take before its first period: the cell's own fill limit when it has one, else
    its engine's, and a minute; None for the other studies' cells (event echo), which have no fill phase."""
    if not isinstance(cell, Cell):
        return None
    return cell.fill_limit_s if cell.fill_limit_s is not None else cell.duration_s + ENGINE_FILL_LIMIT_S + 60.0


def default_timeout(cell: Cell) -> float:
    """How long a run may take from its first period (its fill phase done): room for the JVM's
    start, the end-of-run class histogram and a loaded machine."""
    return 60.0 + 2.0 * cell.duration_s


class Tail:
    """The complete lines appended to a file since the last read."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._offset = 0
        self._partial = b""

    def lines(self, final: bool = False) -> list[str]:
        try:
            with open(self._path, "rb") as file:
                file.seek(self._offset)
                data = file.read()
        except FileNotFoundError:
            data = b""
        self._offset += len(data)
        chunks = (self._partial + data).split(b"\n")
        self._partial = chunks.pop()
        if final and self._partial:
            chunks.append(self._partial)  # a last line cut short: the reader reports it
            self._partial = b""
        return [chunk.decode("utf-8", errors="replace") for chunk in chunks]


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Run in an engine's process before it execs (preexec_fn=parent_death(): `parent` is the starting
    process's pid, taken before the fork): the kernel sends it SIGKILL when the process that started it
    dies, so a killed kernel or sweep leaves no engine running on the cores it pinned. A parent that died
    before the request took effect has left the child to another parent: it exits at once. (Taking the
    parent's pid after the fork, the child of a parent already dead read init's and lived on.)"""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def parent_death() -> Callable[[], None]:
    """The preexec_fn of an engine's process: die_with_parent, with this process's pid."""
    return functools.partial(die_with_parent, os.getpid())


def engine_environment() -> dict[str, str]:
    """The environment with the commit the engines put in their header (as `make` exports it)."""
    return {**os.environ, settings.COMMIT_VARIABLE: settings.commit() or paths.source_commit()}


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ends the engine's process group (its own session): TERM, then KILL after a grace period."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=STOP_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


def tail_text(path: Path) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - STDERR_TAIL_CHARS))
            return file.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def _show(bar: Any, run: Run, elapsed: float) -> None:
    bar.n = min(elapsed, bar.total)
    periodic = run.periodic
    if len(periodic):
        last = periodic.iloc[-1]
        bar.set_postfix({"packets": f"{int(last['packets_total']):,}", "lost": f"{int(last['lost_total']):,}"},
                        refresh=False)
    bar.refresh()


def follow(process: subprocess.Popen[bytes], tail: Tail, reader: RecordReader, *, started: float,
           timeout_s: float, fill_timeout_s: float | None, poll_s: float, bar: Any = None,
           on_update: Callable[[Run], None] | None = None, until_summary: bool = False) -> bool:
    """Feeds a run's records to reader as they arrive, until its process ends (or, until_summary, its
    summary arrives: a series' probe, whose JVM goes on). True when it timed out: fill_timeout_s after
    started while no period came (the fill phase), timeout_s after the first period."""
    measuring_since: float | None = None  # when the first period arrived: the fill phase was over
    while True:
        exit_code = process.poll()
        lines = tail.lines(final=exit_code is not None)
        summary = False
        for line in lines:
            record = reader.feed(line)
            if measuring_since is None and record is not None and record["type"] == "periodic":
                measuring_since = time.monotonic()
            summary = summary or (record is not None and record["type"] == "summary")
        if lines and on_update is not None:
            on_update(reader.run())
        if bar is not None:
            _show(bar, reader.run(), time.monotonic() - started)
        if exit_code is not None or (until_summary and summary):
            return False
        now = time.monotonic()
        if measuring_since is not None:
            over = now - measuring_since > timeout_s
        else:
            over = now - started > (timeout_s if fill_timeout_s is None else fill_timeout_s)
        if over:
            return True
        try:  # back at once when the process ends: a run of a fraction of a second waits no poll out
            process.wait(timeout=poll_s)
        except subprocess.TimeoutExpired:
            pass


def run_cell(cell: Cell, workdir: Path, *, timeout_s: float | None = None, progress: bool = True,
             on_update: Callable[[Run], None] | None = None, poll_s: float = 0.25,
             build: CommandBuilder = engine_command, fill_timeout_s: float | None = None) -> CellResult:
    """Runs a cell; its files go to workdir as <key>.jsonl, <key>.gc.log, <key>.stdout, <key>.stderr.

    An engine cell times out fill_timeout_s (default_fill_timeout) after its start while no period
    has been recorded (the fill phase), and timeout_s (default_timeout) after its first period; a
    cell of another kind, timeout_s after its start.

    on_update gets the records read so far whenever new ones arrived (for live plots).
    """
    workdir = workdir.resolve()  # the engine runs in it: its paths must not be relative to here
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / f"{cell.key}.jsonl"
    log = workdir / f"{cell.key}.gc.log" if cell.gc_log else None
    stdout_path, stderr_path = workdir / f"{cell.key}.stdout", workdir / f"{cell.key}.stderr"
    for stale in (out, log):
        if stale is not None:
            stale.unlink(missing_ok=True)
    reader = RecordReader()
    started = time.monotonic()
    try:
        command = build(cell, out, log)
    except (OSError, ValueError) as error:
        return CellResult(cell, "error", None, str(error), 0.0, reader.run())
    timeout = default_timeout(cell) if timeout_s is None else timeout_s
    fill_timeout = default_fill_timeout(cell) if fill_timeout_s is None else fill_timeout_s
    bar = tqdm(total=cell.duration_s, desc=cell.key, unit="s", leave=True,
               bar_format="{desc}: {bar} {n:.1f}/{total:g} s [{elapsed}]{postfix}") if progress else None
    timed_out = False
    exit_code: int | None = None
    tail = Tail(out)
    try:
        with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
            try:
                process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                           cwd=workdir, env=engine_environment(), start_new_session=True,
                                           preexec_fn=parent_death())
            except OSError as error:
                return CellResult(cell, "error", None, str(error), 0.0, reader.run(), command=command)
            try:
                timed_out = follow(process, tail, reader, started=started, timeout_s=timeout,
                                   fill_timeout_s=fill_timeout, poll_s=poll_s, bar=bar, on_update=on_update)
            finally:
                if process.poll() is None:  # timed out, or interrupted (the exception goes on)
                    stop(process)
                exit_code = process.returncode
        for line in tail.lines(final=True):
            reader.feed(line)
    finally:
        if bar is not None:
            bar.close()
    run = reader.run()
    elapsed = time.monotonic() - started
    status = "timeout" if timed_out else ("ok" if exit_code == 0 and run.status == "ok" else "error")
    events = gclog.parse(log, cell.collector) if log is not None and log.is_file() else None
    refusal = built_by_another(cell, run)
    if refusal:
        status = "error"
    said = tail_text(stderr_path)
    if status != "ok" and not said.strip():
        said = tail_text(stdout_path)  # a JVM that cannot start says why on stdout
    return CellResult(cell, status, exit_code, said, elapsed, run, events, command, refusal)


def built_by_another(cell: Cell, run: Run) -> str | None:
    """Why a run's result is not the cell's: the engine that ran reports another source id than the
    cell's build (a stale build, or another checkout's engine). None when they agree or are not known."""
    built = (run.header or {}).get("engine_source")
    wanted = getattr(cell, "build", "")  # the other studies' cells are not keyed by an engine build
    if not wanted or not built or built == wanted:
        return None
    return (f"the engine that ran was built from sources {built}, not this cell's {cell.build}: rebuild the "
            f"engines (make build) or rerun the cell")
