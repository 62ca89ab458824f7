"""The command line that runs java-lib on a chosen JDK and collector."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from allocorpool import paths
from allocorpool.collectors import THREAD_BUDGET, ThreadBudget
from allocorpool.run import jdks

_HEAP = re.compile(r"^[1-9][0-9]*[mMgG]$")
# uptime for people; timenanos (the JVM's System.nanoTime, accepted by JDK 11 to 25) lines the log up
# exactly with the engine's clock, whose origin the header gives as clock_origin_nanotime.
GC_LOG_DECORATIONS = "uptime,timenanos,level,tags"


@dataclass(frozen=True)
class JavaRun:
    """One JVM for one run of the engine: which JDK, which collector, how much heap."""

    jdk: int
    collector: str
    heap: str = "2g"
    max_direct: str = "2g"
    gc_log: Path | None = None
    compact_headers: bool = False
    vm_options: tuple[str, ...] = field(default_factory=tuple)
    threads: ThreadBudget = THREAD_BUDGET  # the GC and JIT threads beside the engine's own
    main_class: str | None = None  # None: the jar's own main, the packet-analyser engine

    def __post_init__(self) -> None:
        jdks.collector_flags(self.jdk, self.collector)  # refuses what the JDK lacks
        for name, value in (("heap", self.heap), ("max_direct", self.max_direct)):
            if not _HEAP.match(value):
                raise ValueError(f"{name} {value!r} is not a size like 512m or 2g")
        if self.compact_headers and self.jdk < 25:
            raise ValueError(f"compact object headers need JDK 25; JDK {self.jdk} was asked for")

    def vm_flags(self) -> list[str]:
        flags = [f"-Xms{self.heap}", f"-Xmx{self.heap}", f"-XX:MaxDirectMemorySize={self.max_direct}"]
        flags += jdks.collector_flags(self.jdk, self.collector)
        flags += self.threads.flags(self.collector)
        if self.compact_headers:
            flags.append("-XX:+UseCompactObjectHeaders")
        if self.gc_log is not None:
            # filecount=0: one file, never rotated (a long run's log would lose its first events).
            flags.append(f"-Xlog:gc*,safepoint:file={self.gc_log}:{GC_LOG_DECORATIONS}:filecount=0")
        if self.jdk >= 25:
            flags.append("--enable-native-access=ALL-UNNAMED")
        flags += [
            f"-Dallocorpool.nativequeue.lib={paths.native_queue_lib()}",
            f"-Dallocorpool.collector={self.collector}",
            f"-Dallocorpool.commit={paths.source_commit()}",
        ]
        flags += self.vm_options
        return flags

    def command(self, engine_args: list[str]) -> list[str]:
        jar = paths.java_jar()
        if not jar.is_file():
            raise FileNotFoundError(f"{jar} is missing; build it with `make java`")
        entry = ["-jar", str(jar)] if self.main_class is None else ["-cp", str(jar), self.main_class]
        return [str(jdks.java_executable(self.jdk)), *self.vm_flags(), *entry, *engine_args]
