package allocorpool.queue;

/**
 * Final counts of a real-time source, from both sides of the queue.
 *
 * <p>Exact accounting: {@code gaps + trailingDropped == dropped} and
 * {@code received + dropped + undelivered == emitted}.
 *
 * @param emitted ticks the producer made
 * @param dropped ticks the producer dropped for lack of room
 * @param undelivered ticks stored but never published (the consumer stopped reading)
 * @param received ticks the consumer took
 * @param gaps ticks missing between received ones, as the consumer counted them
 * @param trailingDropped drops after the last received tick, which no gap can show
 */
public final class TickStats {
    public final long emitted;
    public final long dropped;
    public final long undelivered;
    public final long received;
    public final long gaps;
    public final long trailingDropped;

    public TickStats(long emitted, long dropped, long undelivered, long received, long gaps, long trailingDropped) {
        this.emitted = emitted;
        this.dropped = dropped;
        this.undelivered = undelivered;
        this.received = received;
        this.gaps = gaps;
        this.trailingDropped = trailingDropped;
    }

    /** The counts of several consumers' sources added up (one clock feeding them all). */
    public static TickStats sum(TickStats... parts) {
        long emitted = 0;
        long dropped = 0;
        long undelivered = 0;
        long received = 0;
        long gaps = 0;
        long trailingDropped = 0;
        for (TickStats p : parts) {
            emitted += p.emitted;
            dropped += p.dropped;
            undelivered += p.undelivered;
            received += p.received;
            gaps += p.gaps;
            trailingDropped += p.trailingDropped;
        }
        return new TickStats(emitted, dropped, undelivered, received, gaps, trailingDropped);
    }

    /** True when both sides agree on every tick. */
    public boolean balanced() {
        return gaps + trailingDropped == dropped && received + dropped + undelivered == emitted;
    }

    @Override
    public String toString() {
        return "TickStats{emitted=" + emitted + ", dropped=" + dropped + ", undelivered=" + undelivered
                + ", received=" + received + ", gaps=" + gaps + ", trailingDropped=" + trailingDropped + '}';
    }
}
