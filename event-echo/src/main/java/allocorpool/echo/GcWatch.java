package allocorpool.echo;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The collectors' work: totals from the GarbageCollectorMXBeans (pauses and concurrent
 * cycles apart: a ZGC cycle's time is mostly concurrent, its pauses are counted on their
 * own bean), and one "gc" record per GarbageCollectionNotification.
 */
final class GcWatch implements AutoCloseable {
    /** Totals of the pause beans and of the cycle beans at one moment. */
    static final class Totals {
        final long pauses;
        final long pauseMs;
        final long cycles;
        final long cycleMs;

        Totals(long pauses, long pauseMs, long cycles, long cycleMs) {
            this.pauses = pauses;
            this.pauseMs = pauseMs;
            this.cycles = cycles;
            this.cycleMs = cycleMs;
        }

        Totals minus(Totals earlier) {
            return new Totals(pauses - earlier.pauses, pauseMs - earlier.pauseMs, cycles - earlier.cycles,
                    cycleMs - earlier.cycleMs);
        }
    }

    private final List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    private final ConcurrentLinkedQueue<Map<String, Object>> events = new ConcurrentLinkedQueue<>();
    private final NotificationListener listener = this::onNotification;
    private final long originMs;

    /** Event times are seconds since originMs (System.currentTimeMillis() at the run's start). */
    GcWatch(long originMs) {
        this.originMs = originMs;
        for (GarbageCollectorMXBean bean : beans) {
            ((NotificationEmitter) bean).addNotificationListener(listener, null, null);
        }
    }

    /** Whether a bean's events stop the application for their whole duration. */
    static String kind(String beanName) {
        switch (beanName) {
            case "G1 Concurrent GC":
            case "ZGC": // JDK 11 to 17: one bean timing the whole concurrent cycle
            case "ZGC Cycles":
            case "ZGC Minor Cycles":
            case "ZGC Major Cycles":
            case "Shenandoah Cycles":
            case "ConcurrentMarkSweep":
                return "cycle";
            default:
                return beanName.contains("Cycles") || beanName.contains("Concurrent") ? "cycle" : "pause";
        }
    }

    Totals totals() {
        long pauses = 0, pauseMs = 0, cycles = 0, cycleMs = 0;
        for (GarbageCollectorMXBean bean : beans) {
            long count = Math.max(0, bean.getCollectionCount());
            long ms = Math.max(0, bean.getCollectionTime());
            if (kind(bean.getName()).equals("pause")) {
                pauses += count;
                pauseMs += ms;
            } else {
                cycles += count;
                cycleMs += ms;
            }
        }
        return new Totals(pauses, pauseMs, cycles, cycleMs);
    }

    List<Map<String, Object>> drain() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> e; (e = events.poll()) != null; ) {
            out.add(e);
        }
        return out;
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        GcInfo gc = info.getGcInfo();
        long durationMs = gc.getEndTime() - gc.getStartTime();
        Map<String, Object> record = RecordWriter.record("gc");
        // The notification's time stamp is the wall clock at the event's end.
        record.put("t_s", (notification.getTimeStamp() - durationMs - originMs) / 1e3);
        record.put("gc_id", gc.getId());
        record.put("bean", info.getGcName());
        record.put("action", info.getGcAction());
        record.put("cause", info.getGcCause());
        record.put("duration_ms", (double) durationMs);
        record.put("kind", kind(info.getGcName()));
        events.add(record);
    }

    @Override
    public void close() {
        for (GarbageCollectorMXBean bean : beans) {
            try {
                ((NotificationEmitter) bean).removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // not registered: nothing to remove
            }
        }
    }
}
