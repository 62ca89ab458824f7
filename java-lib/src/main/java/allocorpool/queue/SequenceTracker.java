package allocorpool.queue;

/**
 * Counts what a consumer saw of a 32-bit tick sequence: ticks received, ticks missing in
 * between (gaps), and the widened last sequence number. A tick that does not move forward
 * (duplicate or reordered) is a broken queue, not a loss, and fails at once.
 */
public final class SequenceTracker {
    private static final long HALF_RANGE = 1L << 31;

    private long expected;
    private long received;
    private long gaps;
    private long windowFrom = Long.MAX_VALUE;
    private long windowGaps;

    /** Records one tick; returns how many ticks were missing right before it. */
    public long accept(int sequence) {
        long delta = (sequence - (int) expected) & 0xFFFF_FFFFL;
        if (delta >= HALF_RANGE) {
            throw new IllegalStateException("tick " + Integer.toUnsignedString(sequence)
                    + " arrived after " + (expected - 1) + ": duplicated or reordered");
        }
        gaps += delta;
        if (delta > 0 && expected + delta > windowFrom) {
            windowGaps += expected + delta - Math.max(expected, windowFrom);
        }
        expected += delta + 1;
        received++;
        return delta;
    }

    public long received() {
        return received;
    }

    public long gaps() {
        return gaps;
    }

    /** Starts the measured window at tick {@code firstTick} (widened): the first tick due in it. */
    public void setWindowStart(long firstTick) {
        windowFrom = firstTick;
    }

    /** Gaps among the ticks from the window's first on, wherever the consumer found them. */
    public long windowGaps() {
        return windowGaps;
    }

    /** Whether the last tick received was due in the measured window. */
    public boolean lastInWindow() {
        return expected - 1 >= windowFrom;
    }

    /** Sequence numbers accounted for: received ones and the gaps between them. */
    public long covered() {
        return expected;
    }

    /** Final counts, given the producer's own. */
    public TickStats stats(long emitted, long dropped, long undelivered) {
        long trailing = emitted - expected - undelivered;
        return new TickStats(emitted, dropped, undelivered, received, gaps, trailing);
    }
}
