package allocorpool.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.locks.LockSupport;

/** Drives a source to a number of ticks, stalling now and then, and checks the books. */
final class QueueAccounting {
    private static final long TIMEOUT_NS = 120_000_000_000L;

    private QueueAccounting() {}

    /**
     * Consumes until {@code ticks} sequence numbers are accounted for (the producer must
     * outlive that: trailing drops are never seen as gaps), parking for
     * {@code stallNs} every {@code stallEvery} received ticks (0: never), then finishes the
     * source and asserts that both sides agree exactly.
     */
    static TickStats consumeAndCheck(TickSource source, long ticks, long stallEvery, long stallNs) {
        long nextStall = stallEvery;
        long deadline = System.nanoTime() + TIMEOUT_NS;
        try {
            while (source.received() + source.lost() < ticks) {
                if (System.nanoTime() - deadline > 0) {
                    fail("only " + (source.received() + source.lost()) + " of " + ticks + " ticks in "
                            + TIMEOUT_NS / 1_000_000_000L + " s");
                }
                if (source.poll() && stallEvery > 0 && source.received() >= nextStall) {
                    nextStall += stallEvery;
                    LockSupport.parkNanos(stallNs);
                }
            }
        } finally {
            source.finish();
        }
        TickStats stats = source.finish();
        assertTrue(stats.emitted >= ticks, () -> "emitted fewer ticks than consumed: " + stats);
        assertEquals(stats.dropped, stats.gaps + stats.trailingDropped, () -> "gaps do not match drops: " + stats);
        assertEquals(stats.emitted, stats.received + stats.dropped + stats.undelivered, () -> "ticks unaccounted: " + stats);
        assertEquals(0, stats.undelivered, () -> "published ticks left unread: " + stats);
        return stats;
    }
}
