package allocorpool.queue;

/** Where real-time runs get their ticks. */
public final class TickSources {
    private TickSources() {}

    /**
     * Starts the native clock ticking every {@code intervalNs} into a queue of
     * {@code capacity} slots per array, its thread pinned to {@code producerCpu}, and pins
     * the calling (consuming) thread to {@code consumerCpu}; -1 leaves a thread unpinned.
     */
    public static TickSource nativeClock(long intervalNs, int capacity, int producerCpu, int consumerCpu) {
        NativeClock.load();
        if (consumerCpu >= 0) {
            int error = NativeClock.pinCurrentThread(consumerCpu);
            if (error != 0) {
                throw new IllegalArgumentException("cannot pin the consumer to CPU " + consumerCpu
                        + " (errno " + error + "); valid CPUs are 0.." + (Runtime.getRuntime().availableProcessors() - 1)
                        + ", or -1 for no pinning");
            }
        }
        DualArrayQueue queue = DualArrayQueue.allocate(capacity);
        return new QueueTickSource(queue, new NativeTickProducer(queue, intervalNs, producerCpu), intervalNs,
                NanoClock.SYSTEM);
    }
}
