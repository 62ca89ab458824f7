"""A search's probes in one JVM that fills the model once (the Java engine's --probes-from-stdin).

At the article's sizes a Java probe fills its store for 17-83 s before its 8 s window, and a search probes
one cell five to seven times: fill phases were 57 of the 160 min of the article's searches (README). A
series starts the engine for the first probe that must run and sends each later one, as a line of its
standard input, to the same JVM, which runs it on the model as the probe before left it. Each probe is
stored as its own cell (Cell.series: its key says so; its header's series_probe gives its place). A probe
that fails or times out ends its series, and so does a probe of another run (another heap, case or queue):
the next probe starts a new one.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import pandas as pd

from allocorpool.data import gclog
from allocorpool.data.records import RecordReader
from allocorpool.run.runner import (Cell, CellResult, Tail, built_by_another, default_fill_timeout, default_timeout,
                                    engine_command, engine_environment, follow, parent_death, stop, tail_text)

EXIT_WAIT_S = 30.0  # how long a series that was told to end (its input closed) may take to exit


def _run_of(cell: Cell) -> Cell:
    """What a series holds fixed: the cell without what a probe line sets."""
    return replace(cell, interval_ns=1, duration_s=1.0, warmup_s=0.0, repetition=0)


def probe_line(cell: Cell, out: Path) -> str:
    """The line of standard input that asks a series for the cell's probe."""
    return f"--interval-ns {cell.interval_ns} --duration-s {cell.duration_s:g} --warmup-s {cell.warmup_s:g} --out {out}\n"


class ProbeSeries:
    """Runs series cells (Cell.series) one after another, in one JVM while they are probes of one run.
    Use as a context manager, or close() it: the JVM waits for its next probe until then."""

    def __init__(self, workdir: Path, poll_s: float = 0.25) -> None:
        self._workdir = workdir.resolve()
        self._poll_s = poll_s
        self._process: subprocess.Popen[bytes] | None = None
        self._run: Cell | None = None
        self._command: list[str] = []
        self._files: list[IO[bytes]] = []
        self._gc_log: Path | None = None
        self._stderr: Path | None = None
        self._stdout: Path | None = None
        self._previous_end_s: float | None = None  # the previous probe's end on the series' clock
        self.started = 0  # JVMs started: series begun

    def __enter__(self) -> ProbeSeries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Ends the series: closes the JVM's input (it exits), or stops it when it does not."""
        process, self._process = self._process, None
        if process is not None:
            try:
                if process.stdin is not None:
                    process.stdin.close()
                process.wait(timeout=EXIT_WAIT_S)
            except (OSError, subprocess.TimeoutExpired):
                stop(process)
        for file in self._files:
            file.close()
        self._files = []
        self._run = None

    def run(self, cell: Cell) -> CellResult:
        """One probe: in the running series when it is a probe of the same run, else in a new one."""
        if not cell.series:
            raise ValueError(f"{cell.key} is not a series cell (Cell.series)")
        if self._process is not None and (self._process.poll() is not None or _run_of(cell) != self._run):
            self.close()
        self._workdir.mkdir(parents=True, exist_ok=True)
        out = self._workdir / f"{cell.key}.jsonl"
        out.unlink(missing_ok=True)
        started = time.monotonic()
        if self._process is None:
            error = self._start(cell, out)
            if error is not None:
                return CellResult(cell, "error", None, error, 0.0, RecordReader().run(), command=self._command)
            fill_timeout = default_fill_timeout(cell)
            command = self._command
        else:
            line = probe_line(cell, out)
            command = [*self._command, "<<<", line.strip()]
            try:
                assert self._process.stdin is not None
                self._process.stdin.write(line.encode())
                self._process.stdin.flush()
            except OSError as error:  # the JVM ended between two probes
                self.close()
                return CellResult(cell, "error", None, f"the series ended before this probe: {error}", 0.0,
                                  RecordReader().run(), command=command)
            fill_timeout = default_timeout(cell)  # no fill phase: its first period comes within a second
        process = self._process
        assert process is not None
        reader = RecordReader()
        tail = Tail(out)
        timed_out = follow(process, tail, reader, started=started, timeout_s=default_timeout(cell),
                           fill_timeout_s=fill_timeout, poll_s=self._poll_s, until_summary=True)
        run = reader.run()
        if timed_out or run.status != "ok":
            if not timed_out:
                try:
                    process.wait(timeout=EXIT_WAIT_S)  # a failed probe ends its JVM (exit status 1)
                except subprocess.TimeoutExpired:
                    pass
            exit_code = process.poll()
            self.close()
            for line in tail.lines(final=True):
                reader.feed(line)
            run = reader.run()
        else:
            exit_code = None  # the JVM goes on, waiting for the next probe
        elapsed = time.monotonic() - started
        status = "timeout" if timed_out else ("ok" if run.status == "ok" else "error")
        refusal = built_by_another(cell, run)
        if refusal:
            status = "error"
        said = tail_text(self._stderr) if self._stderr is not None else ""
        if status != "ok" and not said.strip() and self._stdout is not None:
            said = tail_text(self._stdout)
        events = self._events(cell, run.header, run.summary)
        return CellResult(cell, status, exit_code, said, elapsed, run, events, command, refusal)

    def _start(self, cell: Cell, out: Path) -> str | None:
        """Starts a series with the cell as its first probe; why it could not, or None."""
        self._gc_log = self._workdir / f"{cell.key}.gc.log" if cell.gc_log else None
        if self._gc_log is not None:
            self._gc_log.unlink(missing_ok=True)
        self._stdout, self._stderr = self._workdir / f"{cell.key}.stdout", self._workdir / f"{cell.key}.stderr"
        try:
            self._command = engine_command(cell, out, self._gc_log)
            self._files = [open(self._stdout, "wb"), open(self._stderr, "wb")]
            self._process = subprocess.Popen(self._command, stdin=subprocess.PIPE, stdout=self._files[0],
                                             stderr=self._files[1], cwd=self._workdir, env=engine_environment(),
                                             start_new_session=True, preexec_fn=parent_death())
        except (OSError, ValueError) as error:
            self.close()
            return str(error)
        self._run = _run_of(cell)
        self._previous_end_s = None
        self.started += 1
        return None

    def _events(self, cell: Cell, header: dict[str, Any] | None, summary: dict[str, Any] | None) -> pd.DataFrame | None:
        """The GC log's events of this probe: those that ended after the previous probe's end, up to its own."""
        if self._gc_log is None or not self._gc_log.is_file():
            return None
        events = gclog.parse(self._gc_log, cell.collector)
        end_s = (summary or {}).get("t_s")
        origin = (header or {}).get(gclog.ORIGIN_FIELD)
        if origin is None or end_s is None or "end_nanotime" not in events:
            return events
        t_end = (events["end_nanotime"].astype("Int64") - int(origin)) / 1e9
        keep = t_end.le(end_s).fillna(True)
        if self._previous_end_s is not None:
            keep &= t_end.gt(self._previous_end_s).fillna(False)
        self._previous_end_s = float(end_s)
        sliced = events[keep.to_numpy(dtype=bool)].reset_index(drop=True)
        sliced.attrs = dict(events.attrs)
        return sliced
