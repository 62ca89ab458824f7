"""The fingerprint of the machine a run measured on: what every stored result carries.

Host facts come from /proc (as the engines read them); a run's header, when there is one,
adds the JDK build, the VM flags and the engine's commit, and wins where both say something.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from allocorpool import paths

SMALL_MACHINE_CPUS = 4  # fewer CPUs than this: producer and consumer share the machine (docs/records.md)

# What tells one machine from another in the tables (the article's first screen) and in the machine check:
# not the host name, which the article does not print.
MACHINE_FIELDS = ("cpu_model", "cpus", "memory_bytes", "kernel")
FINGERPRINT_FIELDS = ("host", "cpu_model", "cpus", "memory_bytes", "kernel", "boot_id", "small_machine",
                      "jdk_vendor", "jdk_build", "vm_name", "vm_flags", "compiler", "cxx_flags", "commit")


def _proc_value(path: str, key: str) -> str | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == key:
            return value.strip()
    return None


def cpu_model() -> str:
    return _proc_value("/proc/cpuinfo", "model name") or platform.processor() or platform.machine()


def cpu_name(model: str) -> str:
    """A CPU model as the article prints it: without the trademark marks /proc/cpuinfo carries
    ("Intel(R) Xeon(R) CPU" reads "Intel Xeon CPU")."""
    return " ".join(re.sub(r"\((?:R|TM)\)", " ", str(model), flags=re.IGNORECASE).split())


def cpus() -> int:
    """CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def memory_bytes() -> int | None:
    total = _proc_value("/proc/meminfo", "MemTotal")  # "24105208 kB"
    return int(total.split()[0]) * 1024 if total else None


def boot_id() -> str | None:
    """This boot of the kernel: a virtual machine can come back from a reboot on other hardware, beside
    other neighbours, with the same host name, CPU model and kernel (docs/methods.md: Boot)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def short_boot(boot_id: str | None) -> str:
    """A boot's tag in keys: the first 8 hex digits of its boot id ('noboot' where the host has none)."""
    return (boot_id or "").replace("-", "")[:8] or "noboot"


def host_fingerprint() -> dict[str, Any]:
    """This machine, with every fingerprint field present (None where the host cannot tell)."""
    count = cpus()
    facts: dict[str, Any] = dict.fromkeys(FINGERPRINT_FIELDS)
    facts.update(host=platform.node(), cpu_model=cpu_model(), cpus=count, memory_bytes=memory_bytes(),
                 kernel=f"{platform.system()} {platform.release()}", boot_id=boot_id(),
                 small_machine=count < SMALL_MACHINE_CPUS, commit=paths.source_commit())
    return facts


def fingerprint(header: Mapping[str, Any] | None) -> dict[str, Any]:
    """The host's fingerprint overlaid with what a run's header says about its machine and JVM."""
    facts = host_fingerprint()
    if not header:
        return facts
    from_header = {
        "host": header.get("host"),
        "cpu_model": header.get("cpu_model"),
        "cpus": header.get("cpus"),
        "memory_bytes": header.get("memory_bytes"),
        "kernel": header.get("os"),
        "small_machine": header.get("small_machine"),
        "jdk_vendor": header.get("jdk_vendor"),
        "jdk_build": header.get("jdk_version"),
        "vm_name": header.get("vm_name"),
        "vm_flags": " ".join(header["vm_flags"]) if header.get("vm_flags") else None,
        "compiler": header.get("compiler"),
        "cxx_flags": header.get("cxx_flags"),
        "commit": header.get("commit"),
    }
    facts.update({name: value for name, value in from_header.items() if value is not None})
    return facts
