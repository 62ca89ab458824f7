"""The C++ kernel's interpreter process: cppyy's Cling, fed one cell at a time.

It runs apart from the kernel so that whatever C++ code does to a process (a crash no
signal handler survives, a loop that never ends, std::exit) costs the session its C++
state, not the kernel. Cells arrive as JSON lines on one pipe and replies leave on
another; the C++ code's standard output and error are this process's own, which the kernel
reads and shows.

Each cell is split into top-level pieces (cpp_chunks) and each piece goes to
TInterpreter::ProcessLine, the cling prompt's entry point, which declares or executes it
and prints the value of a trailing expression. The first piece that fails ends the cell
with an error naming its lines: a compile error (ProcessLine's error code), an uncaught
C++ exception, or a segmentation fault, bus error or abort, which cppyy turns into Python
exceptions so the interpreter and its state live on. Standard error is captured per piece,
so that a failing piece's diagnostics become the error's text rather than loose output;
a piece's other standard error output is shown when it ends.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import signal
import sys
import tempfile
from typing import Any, Callable

from .cpp_chunks import Chunk, split

_PR_SET_PDEATHSIG = 1
# What TCling prints when executed code lets a C++ exception escape.
_UNCAUGHT = re.compile(r"^compilation failed(?:: (?P<what>.*)| with unknown error)$", re.MULTILINE)


def _die_with_kernel(kernel_pid: int) -> None:
    """Be killed when the kernel dies, even while C++ code spins and reads no request."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != kernel_pid:
        os._exit(1)


class Interpreter:
    """Cling through cppyy, with the include directories of a session."""

    def __init__(self, include_dirs: list[str]) -> None:
        import cppyy
        import cppyy.ll

        self._cppyy = cppyy
        # Crash signals become exceptions here, without ROOT's gdb backtrace first.
        cppyy.gbl.CppyyLegacy.gEnv.SetValue("Root.Stacktrace", "no")
        cppyy.ll.set_signals_as_exception(True)
        self._fatal = cppyy.ll.FatalError
        for directory in include_dirs:
            cppyy.add_include_path(directory)
        # Line-buffered standard output, so that a long cell's lines show as they come.
        self._process("#include <cstdio>\n#include <iostream>")
        self._process("setvbuf(stdout, nullptr, _IOLBF, 0);")

    def _process(self, code: str) -> int:
        error = ctypes.c_int(0)
        self._cppyy.gbl.gInterpreter.ProcessLine(code, ctypes.pointer(error))
        return error.value

    def flush(self) -> None:
        self._cppyy.gbl.std.cout.flush()
        self._cppyy.gbl.fflush(self._cppyy.nullptr)

    def run_cell(self, code: str) -> dict[str, Any]:
        for chunk in split(code):
            failure = self._run_chunk(chunk)
            if failure is not None:
                return {"status": "error", "first_line": chunk.first_line,
                        "last_line": chunk.last_line, **failure}
        return {"status": "ok"}

    def _run_chunk(self, chunk: Chunk) -> dict[str, str] | None:
        """None when the piece compiled and ran, else what went wrong."""
        fatal: Exception | None = None
        with _captured_stderr() as stderr_text:
            try:
                error_code = self._process(chunk.text)
            except self._fatal as signalled:
                error_code, fatal = 1, signalled
            finally:
                self.flush()
        diagnostics = stderr_text()
        if fatal is not None:
            name = type(fatal).__name__
            return {"ename": name, "evalue": f"{name} in C++ code (the interpreter recovered)",
                    "diagnostics": diagnostics}
        if error_code == 0:
            sys.stderr.write(diagnostics)
            sys.stderr.flush()
            return None
        uncaught = _UNCAUGHT.search(diagnostics)
        if uncaught is not None and "error:" not in diagnostics:
            what = uncaught.group("what")
            return {"ename": "CppException",
                    "evalue": f"uncaught C++ exception: {what}" if what else "uncaught C++ exception",
                    "diagnostics": ""}
        return {"ename": "CompileError", "evalue": "the code did not compile", "diagnostics": diagnostics}


class _captured_stderr:
    """File descriptor 2 into a temporary file for a while; calling the result reads it."""

    def __enter__(self) -> Callable[[], str]:
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        return self._read

    def __exit__(self, *exc: object) -> None:
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)

    def _read(self) -> str:
        self._file.seek(0)
        text = self._file.read().decode("utf-8", errors="replace")
        self._file.close()
        return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, required=True, help="file descriptor of the cell requests")
    parser.add_argument("--replies", type=int, required=True, help="file descriptor for the replies")
    parser.add_argument("--kernel-pid", type=int, required=True)
    parser.add_argument("--include-dir", action="append", default=[])
    args = parser.parse_args(argv)
    _die_with_kernel(args.kernel_pid)
    # An interrupt is the kernel's to handle: it stops this process if a cell must end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    interpreter = Interpreter(args.include_dir)
    with open(args.requests, "r", encoding="utf-8") as requests, \
            open(args.replies, "w", encoding="utf-8") as replies:
        for line in requests:
            reply = interpreter.run_cell(json.loads(line)["code"])
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
