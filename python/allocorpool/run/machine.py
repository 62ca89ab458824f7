"""The machine's fingerprint lives in allocorpool.machine (the store reads it too); its names stay here for
the notebooks that import them from run."""

from allocorpool.machine import (  # noqa: F401
    FINGERPRINT_FIELDS,
    MACHINE_FIELDS,
    SMALL_MACHINE_CPUS,
    boot_id,
    cpu_model,
    cpus,
    fingerprint,
    host_fingerprint,
    memory_bytes,
)
