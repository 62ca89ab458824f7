package allocorpool.measure;

import java.lang.management.ManagementFactory;

/**
 * Bytes allocated by the processing threads (one, or each of a threaded run's), from HotSpot's
 * per-thread TLAB accounting (com.sun.management.ThreadMXBean): the alloc_bytes_per_packet of a run.
 */
public final class AllocationMeter {
    private final com.sun.management.ThreadMXBean bean;
    private final long[] threadIds;

    private AllocationMeter(com.sun.management.ThreadMXBean bean, long[] threadIds) {
        this.bean = bean;
        this.threadIds = threadIds;
    }

    /** A meter for the calling thread, or null where the JVM cannot count. */
    public static AllocationMeter forCurrentThread() {
        return forThreads(Thread.currentThread());
    }

    /** A meter for the sum over these threads, or null where the JVM cannot count. */
    public static AllocationMeter forThreads(Thread... threads) {
        com.sun.management.ThreadMXBean bean = bean();
        if (bean == null) {
            return null;
        }
        long[] ids = new long[threads.length];
        for (int i = 0; i < threads.length; i++) {
            ids[i] = threads[i].getId();
        }
        return new AllocationMeter(bean, ids);
    }

    private static com.sun.management.ThreadMXBean bean() {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!(threads instanceof com.sun.management.ThreadMXBean)) {
            return null;
        }
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) threads;
        if (!bean.isThreadAllocatedMemorySupported()) {
            return null;
        }
        if (!bean.isThreadAllocatedMemoryEnabled()) {
            bean.setThreadAllocatedMemoryEnabled(true);
        }
        return bean;
    }

    public long bytes() {
        long total = 0;
        for (long id : threadIds) {
            total += bean.getThreadAllocatedBytes(id);
        }
        return total;
    }
}
