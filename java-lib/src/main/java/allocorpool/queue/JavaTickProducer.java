package allocorpool.queue;

import java.util.concurrent.locks.LockSupport;

/**
 * A Java stand-in for the native clock: the same producer protocol on the same buffers, so
 * that loss accounting can be tested without JNI. It feeds one queue, or several in turn as the
 * native fan-out does (see {@link FanOut}).
 */
public final class JavaTickProducer implements TickProducer {
    private static final long FINISH_TIMEOUT_NS = 2_000_000_000L;

    private final DualArrayQueue[] queues;
    private final long intervalNs;
    private final long ticks;
    private final Thread thread;
    private volatile boolean stopRequested;
    private volatile long start;
    // each queue's: the producer's array and next slot in it, and its counts
    private final int[] array;
    private final int[] w;
    private final long[] emitted;
    private final long[] written;
    private final long[] dropped;
    private final long[] undelivered;

    private JavaTickProducer(DualArrayQueue[] queues, long intervalNs, long ticks) {
        this.queues = queues;
        this.intervalNs = intervalNs;
        this.ticks = ticks;
        int n = queues.length;
        array = new int[n];
        w = new int[n];
        emitted = new long[n];
        written = new long[n];
        dropped = new long[n];
        undelivered = new long[n];
        this.thread = new Thread(this::run, "java-tick-producer");
        this.thread.setDaemon(true);
    }

    /**
     * Starts a producer of at most {@code ticks} ticks (it also ends on {@link #stop}) one
     * every {@code intervalNs} (0: flat out), and returns the source that reads them.
     */
    public static TickSource start(int queueSize, long intervalNs, long ticks) {
        return startFanOut(1, queueSize, intervalNs, ticks)[0];
    }

    /** As {@link #start}, the ticks fed to {@code consumers} queues in turn: each consumer's source. */
    public static TickSource[] startFanOut(int consumers, int queueSize, long intervalNs, long ticks) {
        DualArrayQueue[] queues = new DualArrayQueue[consumers];
        for (int k = 0; k < consumers; k++) {
            queues[k] = DualArrayQueue.allocate(queueSize);
        }
        JavaTickProducer producer = new JavaTickProducer(queues, intervalNs, ticks);
        producer.thread.start();
        return FanOut.sources(producer, queues, intervalNs, NanoClock.SYSTEM);
    }

    private void run() {
        long start = System.nanoTime();
        this.start = start;
        int n = queues.length;
        int k = 0;
        for (long i = 0; i < ticks && !stopRequested; i++) {
            if (intervalNs > 0) {
                long due = start + i * intervalNs;
                while (System.nanoTime() - due < 0) {
                    Thread.onSpinWait();
                }
            }
            offer(k);
            if (++k == n) {
                k = 0;
            }
        }
        finish();
    }

    /** Offers queue k its next tick. */
    private void offer(int k) {
        int sequence = (int) emitted[k]++;
        if (w[k] < queues[k].size) {
            queues[k].putSlot(array[k], w[k]++, sequence);
            written[k]++;
        } else {
            dropped[k]++;
        }
        publishIfFree(k);
    }

    private void publishIfFree(int k) {
        if (w[k] > 0 && queues[k].readLimitAcquire() == 0) {
            queues[k].readLimitRelease(w[k]);
            array[k] ^= 1;
            w[k] = 0;
        }
    }

    private void finish() {
        long deadline = System.nanoTime() + FINISH_TIMEOUT_NS;
        for (int k = 0; k < queues.length; k++) {
            while (w[k] > 0 && System.nanoTime() - deadline < 0) {
                publishIfFree(k);
                if (w[k] > 0) {
                    LockSupport.parkNanos(1000);
                }
            }
            undelivered[k] = w[k];
            queues[k].doneRelease();
        }
    }

    @Override
    public void stop() {
        stopRequested = true;
    }

    @Override
    public long latenessNs(long tick) {
        return intervalNs == 0 ? 0 : System.nanoTime() - (start + tick * intervalNs);
    }

    /** Each queue's {@code {emitted, written, dropped, undelivered}} in turn (four longs for one queue). */
    @Override
    public long[] join() {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the tick producer", e);
        }
        long[] counts = new long[4 * queues.length];
        for (int k = 0; k < queues.length; k++) {
            counts[4 * k] = emitted[k];
            counts[4 * k + 1] = written[k];
            counts[4 * k + 2] = dropped[k];
            counts[4 * k + 3] = undelivered[k];
        }
        return counts;
    }
}
