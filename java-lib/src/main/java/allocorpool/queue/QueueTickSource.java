package allocorpool.queue;

/** A {@link TickSource} reading a {@link DualArrayQueue} that a {@link TickProducer} fills. */
final class QueueTickSource implements TickSource {
    /** How long finish() drains before it gives up on a producer that never says done. */
    private static final long DRAIN_TIMEOUT_NS = 10_000_000_000L;

    private final QueueReader reader;
    private final TickProducer producer;
    private final long intervalNs;
    private final NanoClock clock;
    private TickStats stats;

    QueueTickSource(DualArrayQueue queue, TickProducer producer, long intervalNs, NanoClock clock) {
        this.reader = new QueueReader(queue);
        this.producer = producer;
        this.intervalNs = intervalNs;
        this.clock = clock;
    }

    @Override
    public NanoClock clock() {
        return clock;
    }

    @Override
    public boolean poll() {
        return reader.poll();
    }

    @Override
    public long received() {
        return reader.tracker().received();
    }

    @Override
    public long lost() {
        return reader.tracker().gaps();
    }

    @Override
    public void setWindowStart(long startNanos) {
        // Tick k is due k intervals after tick 0. Flat out (interval 0) every tick is due at
        // once: the window starts at the next one taken.
        long sinceTick0 = producer.latenessNs(0) - (clock.nanoTime() - startNanos);
        long first = intervalNs == 0 ? reader.tracker().covered() : Math.max(0, -Math.floorDiv(-sinceTick0, intervalNs));
        reader.tracker().setWindowStart(first);
    }

    @Override
    public long lostInWindow() {
        return reader.tracker().windowGaps();
    }

    @Override
    public boolean lastInWindow() {
        return reader.tracker().lastInWindow();
    }

    @Override
    public long latenessNs() {
        return producer.latenessNs(reader.tracker().covered() - 1);
    }

    @Override
    public TickStats finish() {
        if (stats != null) {
            return stats;
        }
        producer.stop();
        long deadline = System.nanoTime() + DRAIN_TIMEOUT_NS;
        while (!reader.finished()) {
            if (!reader.poll() && System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the tick producer did not finish within "
                        + DRAIN_TIMEOUT_NS / 1_000_000_000L + " s of stop");
            }
        }
        long[] counts = producer.join();
        stats = reader.tracker().stats(counts[0], counts[2], counts[3]);
        return stats;
    }
}
