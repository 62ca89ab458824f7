package allocorpool.queue;

/** The producer thread behind a {@link QueueTickSource}: the native clock or a Java stand-in. */
interface TickProducer {
    /** Asks the producer to stop ticking and publish what it holds; returns at once. */
    void stop();

    /** How long ago tick {@code tick} (widened sequence number) was due on this producer's schedule, in ns. */
    long latenessNs(long tick);

    /**
     * Waits for the producer to end; returns {@code {emitted, written, dropped, undelivered}} (a clock
     * feeding several queues: four for each queue in turn, see {@link FanOut}).
     */
    long[] join();
}
