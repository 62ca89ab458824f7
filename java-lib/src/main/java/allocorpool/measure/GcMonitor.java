package allocorpool.measure;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Every GC event of the run, from a GarbageCollectionNotification listener on each
 * GarbageCollectorMXBean. The JMX service thread calls the listener; it only queues a
 * {@link GcEvent}, and the processing thread drains the queue when it writes records, so
 * the measured thread does no GC bookkeeping of its own between reports.
 *
 * <p>When an event started: GcInfo's start and end times count from HotSpot's management
 * time stamp, which is not the origin of RuntimeMXBean.getUptime() (measured here: 25 ms
 * apart on G1, over 100 ms on ZGC). The notification's own time stamp is the wall clock
 * at the end of the event, so the start is that time stamp minus the event's duration,
 * on the same clock as System.currentTimeMillis() (within a millisecond or two).
 */
public final class GcMonitor implements AutoCloseable {
    private final List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    private final ConcurrentLinkedQueue<GcEvent> events = new ConcurrentLinkedQueue<>();
    private final AtomicLong notified = new AtomicLong();
    private final NotificationListener listener = this::onNotification;
    private final long baseline;

    public GcMonitor() {
        for (GarbageCollectorMXBean bean : beans) {
            ((NotificationEmitter) bean).addNotificationListener(listener, null, null);
        }
        // After registering: a collection between the two is counted on both sides.
        this.baseline = collections();
    }

    public List<String> beanNames() {
        List<String> names = new ArrayList<>();
        for (GarbageCollectorMXBean bean : beans) {
            names.add(bean.getName());
        }
        return names;
    }

    /** The events notified since the last drain. */
    public List<GcEvent> drain() {
        List<GcEvent> out = new ArrayList<>();
        for (GcEvent e; (e = events.poll()) != null; ) {
            out.add(e);
        }
        return out;
    }

    /**
     * Waits (up to {@code timeoutMs}) until every collection the beans have counted has
     * been notified, then drains: notifications arrive asynchronously, shortly after the
     * collection.
     */
    public List<GcEvent> drainSettled(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (notified.get() < collections() - baseline && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return drain();
    }

    private long collections() {
        long sum = 0;
        for (GarbageCollectorMXBean bean : beans) {
            sum += Math.max(0, bean.getCollectionCount());
        }
        return sum;
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        GcInfo gc = info.getGcInfo();
        long duration = gc.getEndTime() - gc.getStartTime();
        events.add(new GcEvent(info.getGcName(), gc.getId(), info.getGcAction(), info.getGcCause(),
                notification.getTimeStamp() - duration, duration));
        notified.incrementAndGet();
    }

    @Override
    public void close() {
        for (GarbageCollectorMXBean bean : beans) {
            try {
                ((NotificationEmitter) bean).removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // Not registered: nothing to remove.
            }
        }
    }
}
