"""A Jupyter kernel for C++20: cells go to Cling (cppyy) in a separate interpreter process.

The kernel itself is an ipykernel wrapper kernel that runs no C++: it hands each cell to a
cpp_worker process and shows what comes back. State (includes, types, functions,
variables) lives in that process from cell to cell. A compile error, an uncaught C++
exception or a caught crash signal ends the cell with an error and the state stays; a
worker that dies anyway (stack overflow, std::exit, a signal cppyy cannot catch) or is
interrupted (a cell that never ends) ends the cell with an error too, and the next cell
starts a fresh interpreter, which the error says.

Configured on the kernel's command line (the kernel spec's argv): include directories,
and shared objects to preload into the worker (LD_PRELOAD), for code such as a replaced
operator new that must take the place of the C++ runtime's own.
"""

from __future__ import annotations

import codecs
import json
import os
import selectors
import signal
import subprocess
import sys
from typing import Any, Callable

from ipykernel.kernelapp import IPKernelApp
from ipykernel.kernelbase import Kernel
from traitlets import List, Unicode

OutputSink = Callable[[str, str], None]


class WorkerDied(Exception):
    """The interpreter process ended while it ran a cell."""

    def __init__(self, returncode: int) -> None:
        if returncode < 0:
            how = f"was killed by {signal.Signals(-returncode).name}"
        else:
            how = f"exited with status {returncode}"
        super().__init__(f"the C++ interpreter {how}")


class InterpreterProcess:
    """One cpp_worker process and the pipes to it."""

    def __init__(self, include_dirs: list[str], preload: list[str]) -> None:
        requests_read, self._requests = os.pipe()
        self._replies, replies_write = os.pipe()
        env = dict(os.environ)
        if preload:
            env["LD_PRELOAD"] = " ".join(preload + env.get("LD_PRELOAD", "").split())
        command = [sys.executable, "-m", "allocorpool.kernels.cpp_worker",
                   "--requests", str(requests_read), "--replies", str(replies_write),
                   "--kernel-pid", str(os.getpid())]
        for directory in include_dirs:
            command += ["--include-dir", directory]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, pass_fds=(requests_read, replies_write),
                                        env=env)
        os.close(requests_read)
        os.close(replies_write)
        self._outputs = {self.process.stdout.fileno(): "stdout", self.process.stderr.fileno(): "stderr"}
        self._decoders = {fd: codecs.getincrementaldecoder("utf-8")(errors="replace") for fd in self._outputs}
        self._pending = {fd: "" for fd in self._outputs}
        for fd in self._outputs:
            os.set_blocking(fd, False)

    def run(self, code: str, output: OutputSink) -> dict[str, Any]:
        """The worker's reply to a cell, its output handed to `output` as it comes."""
        try:
            os.write(self._requests, (json.dumps({"code": code}) + "\n").encode())
        except BrokenPipeError:
            raise WorkerDied(self.process.wait()) from None
        reply = b""
        with selectors.DefaultSelector() as selector:
            for fd in (*self._outputs, self._replies):
                selector.register(fd, selectors.EVENT_READ)
            while not reply.endswith(b"\n"):
                for key, _ in selector.select():
                    if key.fd == self._replies:
                        data = os.read(self._replies, 65536)
                        if not data:
                            self._drain(output)
                            raise WorkerDied(self.process.wait())
                        reply += data
                    else:
                        self._read_output(key.fd, output)
        # Everything the worker printed came before its reply.
        self._drain(output)
        return json.loads(reply)

    def _read_output(self, fd: int, output: OutputSink) -> bool:
        """Forwards the whole lines there are (a line can come in several writes); False when
        nothing was there."""
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return False
        pending = self._pending[fd] + self._decoders[fd].decode(data)
        complete = pending.rfind("\n") + 1
        if complete:
            output(self._outputs[fd], pending[:complete])
        self._pending[fd] = pending[complete:]
        return bool(data)

    def _drain(self, output: OutputSink) -> None:
        """Forwards everything left, the last partial lines included."""
        for fd in self._outputs:
            while self._read_output(fd, output):
                pass
            if self._pending[fd]:
                output(self._outputs[fd], self._pending[fd])
                self._pending[fd] = ""

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for fd in (self._requests, self._replies):
            os.close(fd)
        self.process.stdout.close()
        self.process.stderr.close()


class CppKernel(Kernel):
    implementation = "allocorpool-cpp"
    implementation_version = "1.0"
    language = "c++"
    language_version = "20"
    language_info = {
        "name": "c++",
        "version": "20",
        "mimetype": "text/x-c++src",
        "file_extension": ".cpp",
        "codemirror_mode": "text/x-c++src",
    }
    banner = "C++20 with Cling (cppyy), in an interpreter process of its own"

    include_dirs = List(Unicode(), help="include directories of every session").tag(config=True)
    preload = List(Unicode(), help="shared objects preloaded into the interpreter process").tag(config=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._interpreter: InterpreterProcess | None = None

    def _stream(self, name: str, text: str) -> None:
        self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def _error(self, silent: bool, ename: str, evalue: str, traceback: list[str]) -> dict[str, Any]:
        content = {"ename": ename, "evalue": evalue, "traceback": traceback}
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        return {"status": "error", "execution_count": self.execution_count, **content}

    def _interpreter_lost(self, silent: bool, ename: str, what: str) -> dict[str, Any]:
        """Stops the interpreter process (if it still runs) and says so."""
        self._interpreter.stop()
        self._interpreter = None
        note = f"{what}; its C++ state is lost and the next cell starts a new interpreter"
        return self._error(silent, ename, note, [note])

    async def do_execute(self, code: str, silent: bool, store_history: bool = True,
                         user_expressions: dict | None = None, allow_stdin: bool = False,
                         **kwargs: Any) -> dict[str, Any]:
        if not code.strip():
            return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}
        output: OutputSink = (lambda name, text: None) if silent else self._stream
        if self._interpreter is None:
            self._interpreter = InterpreterProcess(list(self.include_dirs), list(self.preload))
        try:
            reply = self._interpreter.run(code, output)
        except WorkerDied as died:
            return self._interpreter_lost(silent, "InterpreterDied", str(died))
        except KeyboardInterrupt:
            return self._interpreter_lost(silent, "KeyboardInterrupt", "interrupted: the C++ interpreter was stopped")
        if reply["status"] == "ok":
            return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}
        lines = reply["first_line"], reply["last_line"]
        where = f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}-{lines[1]}"
        header = f"{reply['ename']}: {reply['evalue']} (cell {where})"
        diagnostics = reply["diagnostics"].rstrip()
        return self._error(silent, reply["ename"], reply["evalue"], [header, diagnostics] if diagnostics else [header])

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:
        if self._interpreter is not None:
            self._interpreter.stop()
            self._interpreter = None
        return {"status": "ok", "restart": restart}


if __name__ == "__main__":
    IPKernelApp.launch_instance(kernel_class=CppKernel)
