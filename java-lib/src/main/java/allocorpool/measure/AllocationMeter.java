package allocorpool.measure;

import java.lang.management.ManagementFactory;

/**
 * Bytes allocated by one thread (the processing thread), from HotSpot's per-thread TLAB
 * accounting (com.sun.management.ThreadMXBean): the alloc_bytes_per_packet of a run.
 */
public final class AllocationMeter {
    private final com.sun.management.ThreadMXBean bean;
    private final long threadId;

    private AllocationMeter(com.sun.management.ThreadMXBean bean, long threadId) {
        this.bean = bean;
        this.threadId = threadId;
    }

    /** A meter for the calling thread, or null where the JVM cannot count. */
    public static AllocationMeter forCurrentThread() {
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
        return new AllocationMeter(bean, Thread.currentThread().getId());
    }

    public long bytes() {
        return bean.getThreadAllocatedBytes(threadId);
    }
}
