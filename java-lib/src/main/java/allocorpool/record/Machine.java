package allocorpool.record;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Facts about the machine for the header, read from the OS (/proc on Linux) rather than
 * from JVM beans, which report container limits differently from one JDK to another.
 */
public final class Machine {
    private Machine() {}

    public static String host() {
        String name = firstLine(Paths.get("/proc/sys/kernel/hostname"));
        if (name != null && !name.isEmpty()) {
            return name;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Kernel name and release, e.g. {@code Linux 6.1.0-18-amd64}. */
    public static String os() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    public static String cpuModel() {
        for (String line : ProcFile.lines(Paths.get("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return System.getProperty("os.arch");
    }

    /** Online CPUs this process may use. */
    public static int cpus() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** Physical memory (MemTotal), or null where /proc/meminfo is not there. */
    public static Long memoryBytes() {
        for (String line : ProcFile.lines(Paths.get("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return null;
    }

    private static String firstLine(Path file) {
        List<String> lines = ProcFile.lines(file);
        return lines.isEmpty() ? null : lines.get(0).trim();
    }
}
