package allocorpool.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The process's CPU time, user and system, of all its threads: the collector's concurrent and
 * parallel threads count too, which is what the lower-bound overhead in CPU time compares.
 */
public final class ProcessCpu {
    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    private ProcessCpu() {}

    /** Nanoseconds of CPU used so far, or -1 where the JVM does not say. */
    public static long nanos() {
        return OS instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) OS).getProcessCpuTime() : -1;
    }
}
