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
        pinConsumer(consumerCpu);
        DualArrayQueue queue = DualArrayQueue.allocate(capacity);
        return new QueueTickSource(queue, new NativeTickProducer(queue, intervalNs, producerCpu), intervalNs,
                NanoClock.SYSTEM);
    }

    /**
     * Starts the native clock ticking every {@code intervalNs} into the queues of {@code consumers}
     * consumers in turn (see {@link FanOut}), each of {@code capacity} slots per array, its thread pinned
     * to {@code producerCpu} (-1: unpinned); returns each consumer's source. The consumers pin themselves
     * ({@link #pinConsumer}).
     */
    public static TickSource[] nativeFanOut(long intervalNs, int capacity, int consumers, int producerCpu) {
        NativeClock.load();
        DualArrayQueue[] queues = new DualArrayQueue[consumers];
        for (int k = 0; k < consumers; k++) {
            queues[k] = DualArrayQueue.allocate(capacity);
        }
        return FanOut.sources(new NativeFanOutProducer(queues, intervalNs, producerCpu), queues, intervalNs,
                NanoClock.SYSTEM);
    }

    /** Pins the calling (consuming) thread to {@code cpu}; -1 leaves it unpinned. */
    public static void pinConsumer(int cpu) {
        if (cpu < 0) {
            return;
        }
        NativeClock.load();
        int error = NativeClock.pinCurrentThread(cpu);
        if (error != 0) {
            throw new IllegalArgumentException("cannot pin the consumer to CPU " + cpu + " (errno " + error
                    + "); valid CPUs are 0.." + (Runtime.getRuntime().availableProcessors() - 1)
                    + ", or -1 for no pinning");
        }
    }
}
