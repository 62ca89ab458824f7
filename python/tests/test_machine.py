"""machine.py: this host's fingerprint, and a run header's facts over it."""

import platform
from pathlib import Path

from allocorpool.machine import FINGERPRINT_FIELDS, fingerprint, host_fingerprint


def test_host_fingerprint():
    facts = host_fingerprint()
    assert set(facts) == set(FINGERPRINT_FIELDS)
    assert facts["cpu_model"] and facts["cpus"] >= 1 and facts["memory_bytes"] > 0
    assert facts["kernel"].startswith(platform.system()) and facts["small_machine"] == (facts["cpus"] < 4)
    assert facts["jdk_build"] is None and facts["commit"]
    assert facts["boot_id"] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def test_header_facts_win():
    facts = fingerprint({"cpu_model": "AMD EPYC 7B13", "cpus": 64, "os": "Linux 6.1.0-x", "jdk_version": "25.0.2+10",
                         "vm_flags": ["-Xmx2g", "-XX:+UseZGC"], "commit": "abc", "compiler": None})
    assert facts["cpu_model"] == "AMD EPYC 7B13" and facts["cpus"] == 64 and facts["kernel"] == "Linux 6.1.0-x"
    assert facts["jdk_build"] == "25.0.2+10" and facts["vm_flags"] == "-Xmx2g -XX:+UseZGC" and facts["commit"] == "abc"
    assert facts["memory_bytes"] == host_fingerprint()["memory_bytes"] and facts["compiler"] is None
    assert facts["boot_id"] == host_fingerprint()["boot_id"]  # no engine header says it: the host's
