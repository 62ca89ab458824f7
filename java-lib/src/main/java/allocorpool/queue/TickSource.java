package allocorpool.queue;

/**
 * A real-time source of ticks, as the packet processor sees it: one tick is one packet to
 * make. Ticks the consumer was too slow to take are lost and show up as gaps.
 */
public interface TickSource extends TickWindow, AutoCloseable {
    /** Takes the next tick if one is available now; never blocks. */
    boolean poll();

    /** Ticks lost so far (gaps in the sequence seen by the consumer). */
    long lost();

    /** Whether the last tick taken was due in the measured window. */
    boolean lastInWindow();

    /**
     * How late the last tick taken is now, in ns: the time since it was due on the producer's
     * schedule (its metered latency once its packet is made). Call only after a tick was taken.
     */
    long latenessNs();

    /**
     * Stops the producer, drains what it published, joins it and returns the final counts.
     * Idempotent: later calls return the same counts.
     */
    TickStats finish();

    @Override
    default void close() {
        finish();
    }
}
