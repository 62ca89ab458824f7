package allocorpool.echo;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * Bytes allocated by given threads, from HotSpot's per-thread TLAB accounting
 * (com.sun.management.ThreadMXBean): what the service's and the clients' threads allocate
 * between two moments.
 */
final class ThreadAllocations {
    private final com.sun.management.ThreadMXBean bean;

    ThreadAllocations() {
        bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!bean.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot count the bytes each thread allocates");
        }
        bean.setThreadAllocatedMemoryEnabled(true);
    }

    /** Bytes each live thread of ids has allocated so far (threads that ended are left out). */
    Map<Long, Long> snapshot(long[] ids) {
        long[] bytes = bean.getThreadAllocatedBytes(ids);
        Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                out.put(ids[i], bytes[i]);
            }
        }
        return out;
    }

    /** Every live thread of the JVM. */
    Map<Long, Long> snapshotAll() {
        return snapshot(bean.getAllThreadIds());
    }

    /** Bytes allocated between two snapshots by the threads of ids present in both. */
    static long between(Map<Long, Long> before, Map<Long, Long> after, long[] ids) {
        long sum = 0;
        for (long id : ids) {
            Long a = before.get(id);
            Long b = after.get(id);
            if (a != null && b != null) {
                sum += b - a;
            }
        }
        return sum;
    }

    /** Bytes allocated between two snapshots by every thread present in both. */
    static long between(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> entry : after.entrySet()) {
            Long a = before.get(entry.getKey());
            if (a != null) {
                sum += entry.getValue() - a;
            }
        }
        return sum;
    }
}
