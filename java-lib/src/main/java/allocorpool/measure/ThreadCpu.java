package allocorpool.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time, user and system, of each of a run's own threads (the processing thread, or a threaded
 * run's threads, a hand-off run's producer first), from {@link ThreadMXBean#getThreadCpuTime}: the
 * summary's {@code thread_cpu_s}, beside the process's (ProcessCpu), which counts the collector's
 * and the JIT's threads too.
 */
public final class ThreadCpu {
    private static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();

    private final long[] threadIds;

    private ThreadCpu(long[] threadIds) {
        this.threadIds = threadIds;
    }

    /** A meter of these threads, or null where the JVM does not measure thread CPU time. */
    public static ThreadCpu of(Thread... threads) {
        if (!BEAN.isThreadCpuTimeSupported()) {
            return null;
        }
        if (!BEAN.isThreadCpuTimeEnabled()) {
            BEAN.setThreadCpuTimeEnabled(true);
        }
        long[] ids = new long[threads.length];
        for (int i = 0; i < threads.length; i++) {
            ids[i] = threads[i].getId();
        }
        return new ThreadCpu(ids);
    }

    /** Each thread's CPU nanoseconds so far (-1 for one that is not alive). */
    public long[] nanos() {
        long[] nanos = new long[threadIds.length];
        for (int i = 0; i < threadIds.length; i++) {
            nanos[i] = BEAN.getThreadCpuTime(threadIds[i]);
        }
        return nanos;
    }

    /** Each thread's CPU seconds from {@code start} to {@code end} (nanos() then), null for one not measured. */
    public static Double[] seconds(long[] start, long[] end) {
        Double[] seconds = new Double[start.length];
        for (int i = 0; i < start.length; i++) {
            seconds[i] = start[i] < 0 || end[i] < 0 ? null : (end[i] - start[i]) / 1e9;
        }
        return seconds;
    }
}
