"""The exploration kernels, run headless: nbval fails a notebook with a broken cell in each
language, the C++ kernel keeps its state through errors and crashes, and papermill passes
parameters to a Java notebook. Needs `make kernels`; `make test-kernels` runs these."""

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import nbformat
import papermill
import pytest
from jupyter_client.manager import start_new_kernel

from allocorpool import paths
from allocorpool.kernels import specs

pytestmark = [
    pytest.mark.kernels,
    pytest.mark.skipif(not os.environ.get("ALLOC_OR_POOL_KERNEL_TESTS"),
                       reason="run by `make test-kernels`, after the kernels are installed"),
]

NBVAL_SHIM = paths.project_root() / "notebooks" / "conftest.py"
LANGUAGES = {specs.CPP_KERNEL_NAME: "c++", **{k.name: "java" for k in specs.JAVA_KERNELS}}


def notebook(kernel: str, *cells: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": kernel, "language": LANGUAGES[kernel], "display_name": kernel}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    return nb


def nbval(directory: Path, nb: nbformat.NotebookNode) -> subprocess.CompletedProcess:
    """pytest --nbval-lax on the notebook, in a process of its own, the shim beside it."""
    nbformat.write(nb, directory / "under_test.ipynb")
    shutil.copy(NBVAL_SHIM, directory / "conftest.py")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(directory),
         "--nbval-lax", "--nbval-cell-timeout=120", "under_test.ipynb"],
        cwd=directory, capture_output=True, text=True, timeout=300)


@pytest.fixture(params=specs.installed_java_kernels() or ["java17-g1"])
def java_kernel(request) -> str:
    return request.param


def test_a_java_notebook_passes(tmp_path, java_kernel):
    result = nbval(tmp_path, notebook(java_kernel, "int answer = 6 * 7;", "System.out.println(answer);"))
    assert result.returncode == 0, result.stdout
    assert "2 passed" in result.stdout


def test_a_broken_java_cell_fails_the_notebook(tmp_path, java_kernel):
    result = nbval(tmp_path, notebook(java_kernel, "int one = 1;", "String s = undefinedName;",
                                      "int boom = one / 0;"))
    assert result.returncode == 1, result.stdout
    assert "2 failed, 1 passed" in result.stdout
    assert "cannot find symbol" in result.stdout
    assert "ArithmeticException" in result.stdout


def test_a_cpp_notebook_passes(tmp_path):
    result = nbval(tmp_path, notebook(specs.CPP_KERNEL_NAME,
                                      '#include "packet.hpp"\n#include "native_queue/dual_array_queue.hpp"\n'
                                      "int answer = 6 * 7;",
                                      "std::cout << answer << std::endl;"))
    assert result.returncode == 0, result.stdout
    assert "2 passed" in result.stdout


def test_a_broken_cpp_cell_fails_the_notebook(tmp_path):
    result = nbval(tmp_path, notebook(specs.CPP_KERNEL_NAME, "int one = 1;", "int two = one + undefined_name;",
                                      'throw std::runtime_error("boom");', "int* p = nullptr;\n*p = one;"))
    assert result.returncode == 1, result.stdout
    assert "3 failed, 1 passed" in result.stdout
    assert "use of undeclared identifier 'undefined_name'" in result.stdout
    assert "uncaught C++ exception: boom" in result.stdout
    assert "SegmentationViolation" in result.stdout


class CppSession:
    """A C++ kernel driven cell by cell: each run gives the reply and the text shown."""

    def __init__(self) -> None:
        self.manager, self.client = start_new_kernel(kernel_name=specs.CPP_KERNEL_NAME, startup_timeout=120)

    def run(self, code: str) -> tuple[dict, str]:
        shown: list[str] = []

        def collect(msg: dict) -> None:
            content = msg["content"]
            if msg["msg_type"] == "stream":
                shown.append(content["text"])
            elif msg["msg_type"] == "error":
                shown.append("\n".join(content["traceback"]))

        reply = self.client.execute_interactive(code, timeout=120, output_hook=collect)
        return reply["content"], "".join(shown)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def cpp() -> CppSession:
    session = CppSession()
    yield session
    session.close()


def test_cpp_state_lives_through_errors_and_caught_crashes(cpp):
    reply, shown = cpp.run("#include <vector>\nstd::vector<int> kept{1, 2, 3};\nint sum(const std::vector<int>& v) {\n"
                           "  int s = 0;\n  for (int x : v) s += x;\n  return s;\n}\nsum(kept)")
    assert reply["status"] == "ok" and "(int) 6" in shown
    reply, shown = cpp.run("int fine = 1;\nint broken = fine +;")
    assert reply["status"] == "error" and reply["ename"] == "CompileError" and "(cell line 2)" in shown
    reply, _ = cpp.run('throw std::logic_error("no");')
    assert reply["ename"] == "CppException" and reply["evalue"] == "uncaught C++ exception: no"
    reply, _ = cpp.run("#include <cstdlib>\nstd::abort();")
    assert reply["ename"] == "AbortSignal"
    reply, shown = cpp.run('std::cout << sum(kept) + fine << "\\n";')
    assert reply["status"] == "ok" and shown == "7\n"


def test_cpp_interpreter_death_and_interrupt_start_afresh(cpp):
    cpp.run("int lost = 1;")
    reply, _ = cpp.run("#include <cstdlib>\nstd::exit(3);")
    assert reply["ename"] == "InterpreterDied" and "exited with status 3" in reply["evalue"]
    reply, shown = cpp.run("lost")
    assert reply["ename"] == "CompileError" and "undeclared identifier 'lost'" in shown
    threading.Timer(2.0, cpp.manager.interrupt_kernel).start()
    reply, _ = cpp.run("volatile long spin = 0;\nwhile (true) { ++spin; }")
    assert reply["ename"] == "KeyboardInterrupt"
    reply, shown = cpp.run('std::cout << "back" << std::endl;')
    assert reply["status"] == "ok" and shown == "back\n"


def test_cpp_kernel_compiles_optimized_and_counts_allocations(cpp):
    reply, shown = cpp.run(
        '#include "alloc_counter.hpp"\n#include <new>\n'
        "std::uint64_t counted = 0;\n"
        "{\n  auto before = cpp_engine::alloc_counter::this_thread().allocations;\n"
        "  ::operator delete(::operator new(16));  // a new-expression's pair could be elided\n"
        "  counted = cpp_engine::alloc_counter::this_thread().allocations - before;\n}\n"
        "#ifdef __OPTIMIZE__\nstd::cout << \"optimized \";\n#endif\nstd::cout << counted << std::endl;")
    assert reply["status"] == "ok" and shown == "optimized 1\n"


def test_papermill_passes_parameters_to_a_java_notebook(tmp_path, java_kernel):
    nb = notebook(java_kernel, 'int packets = 1;\nString label = "default";', 'System.out.println(label + " " + packets * 2);')
    nb.cells[0].metadata["tags"] = ["parameters"]
    nbformat.write(nb, tmp_path / "in.ipynb")
    executed = papermill.execute_notebook(str(tmp_path / "in.ipynb"), str(tmp_path / "out.ipynb"),
                                          parameters={"packets": 21, "label": "injected"}, progress_bar=False)
    assert executed.cells[1].source == '// Parameters\nvar packets = 21;\nvar label = "injected";\n'
    assert executed.cells[2].outputs[0]["text"] == "injected 42\n"
