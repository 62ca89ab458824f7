package allocorpool.queue;

/**
 * A real-time source of ticks, as the packet processor sees it: one tick is one packet to
 * make. Ticks the consumer was too slow to take are lost and show up as gaps.
 */
public interface TickSource extends AutoCloseable {
    /** Takes the next tick if one is available now; never blocks. */
    boolean poll();

    /** Ticks taken so far. */
    long received();

    /** Ticks lost so far (gaps in the sequence seen by the consumer). */
    long lost();

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
