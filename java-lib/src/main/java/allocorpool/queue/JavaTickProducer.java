package allocorpool.queue;

import java.util.concurrent.locks.LockSupport;

/**
 * A Java stand-in for the native clock: the same producer protocol on the same buffers,
 * with an optional stall pattern, so that loss accounting can be tested without JNI and
 * with losses that certainly happen.
 */
public final class JavaTickProducer implements TickProducer {
    private static final long FINISH_TIMEOUT_NS = 2_000_000_000L;

    private final DualArrayQueue queue;
    private final long intervalNs;
    private final long ticks;
    private final Thread thread;
    private volatile boolean stopRequested;
    private volatile long start;
    private long emitted;
    private long written;
    private long dropped;
    private long undelivered;
    private int array;
    private int w;

    private JavaTickProducer(DualArrayQueue queue, long intervalNs, long ticks) {
        this.queue = queue;
        this.intervalNs = intervalNs;
        this.ticks = ticks;
        this.thread = new Thread(this::run, "java-tick-producer");
        this.thread.setDaemon(true);
    }

    /**
     * Starts a producer of at most {@code ticks} ticks (it also ends on {@link #stop}) one
     * every {@code intervalNs} (0: flat out), and returns the source that reads them.
     */
    public static TickSource start(int queueSize, long intervalNs, long ticks) {
        DualArrayQueue queue = DualArrayQueue.allocate(queueSize);
        JavaTickProducer producer = new JavaTickProducer(queue, intervalNs, ticks);
        producer.thread.start();
        return new QueueTickSource(queue, producer, intervalNs, NanoClock.SYSTEM);
    }

    private void run() {
        long start = System.nanoTime();
        this.start = start;
        for (long i = 0; i < ticks && !stopRequested; i++) {
            if (intervalNs > 0) {
                long due = start + i * intervalNs;
                while (System.nanoTime() - due < 0) {
                    Thread.onSpinWait();
                }
            }
            offer((int) i);
        }
        finish();
    }

    private void offer(int sequence) {
        emitted++;
        if (w < queue.size) {
            queue.putSlot(array, w++, sequence);
            written++;
        } else {
            dropped++;
        }
        publishIfFree();
    }

    private void publishIfFree() {
        if (w > 0 && queue.readLimitAcquire() == 0) {
            queue.readLimitRelease(w);
            array ^= 1;
            w = 0;
        }
    }

    private void finish() {
        long deadline = System.nanoTime() + FINISH_TIMEOUT_NS;
        while (w > 0 && System.nanoTime() - deadline < 0) {
            publishIfFree();
            if (w > 0) {
                LockSupport.parkNanos(1000);
            }
        }
        undelivered = w;
        queue.doneRelease();
    }

    @Override
    public void stop() {
        stopRequested = true;
    }

    @Override
    public long latenessNs(long tick) {
        return intervalNs == 0 ? 0 : System.nanoTime() - (start + tick * intervalNs);
    }

    @Override
    public long[] join() {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the tick producer", e);
        }
        return new long[] {emitted, written, dropped, undelivered};
    }
}
