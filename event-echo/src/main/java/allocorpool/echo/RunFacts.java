package allocorpool.echo;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The header fields every event-echo record file starts with: the machine (from /proc, as
 * the study's other engines read it), the JVM (build, flags, collector) and the commit.
 */
final class RunFacts {
    static final int SCHEMA = 1;
    static final int SMALL_MACHINE_CPUS = 4;

    private RunFacts() {}

    static Map<String, Object> header(String program) {
        Map<String, Object> h = RecordWriter.record("header");
        h.put("schema", SCHEMA);
        h.put("engine", "event-echo");
        h.put("program", program);
        h.put("run_id", UUID.randomUUID().toString());
        h.put("started_utc", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        h.put("host", host());
        h.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        h.put("cpu_model", cpuModel());
        int cpus = Runtime.getRuntime().availableProcessors();
        h.put("cpus", cpus);
        h.put("memory_bytes", memoryBytes());
        h.put("small_machine", cpus < SMALL_MACHINE_CPUS);
        h.put("commit", commit());
        h.put("jdk_vendor", System.getProperty("java.vendor"));
        h.put("jdk_version", System.getProperty("java.runtime.version"));
        h.put("vm_name", System.getProperty("java.vm.name"));
        h.put("vm_flags", ManagementFactory.getRuntimeMXBean().getInputArguments());
        h.put("collector", System.getProperty("allocorpool.collector"));
        List<String> beans = new ArrayList<>();
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            beans.add(bean.getName());
        }
        h.put("gc_beans", beans);
        h.put("heap_max_bytes", Runtime.getRuntime().maxMemory());
        return h;
    }

    /** The commit the launcher passed (-Dallocorpool.commit), else the environment's, else "unknown". */
    static String commit() {
        String commit = System.getProperty("allocorpool.commit");
        if (commit == null || commit.isEmpty()) {
            commit = System.getenv("ALLOC_OR_POOL_COMMIT");
        }
        return commit == null || commit.isEmpty() ? "unknown" : commit;
    }

    private static String host() {
        List<String> lines = lines(Paths.get("/proc/sys/kernel/hostname"));
        if (!lines.isEmpty() && !lines.get(0).trim().isEmpty()) {
            return lines.get(0).trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        for (String line : lines(Paths.get("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return System.getProperty("os.arch");
    }

    private static Long memoryBytes() {
        for (String line : lines(Paths.get("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return null;
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            return List.of();
        }
    }
}
