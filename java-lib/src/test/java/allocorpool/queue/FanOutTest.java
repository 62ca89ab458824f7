package allocorpool.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * One clock feeding several consumers (FanOut), on the Java stand-in and on the native clock: each
 * consumer, on its own thread, sees its own ticks numbered 0, 1, 2, ... (the reader fails on a
 * duplicate or a reordering), its books balance exactly with the clock's counts for its queue, and the
 * clock deals the ticks in turn, so that no queue was offered more than one tick more than another.
 * A consumer that stalls loses ticks of its own queue only. Nothing here depends on speed.
 */
class FanOutTest {
    private static final long TIMEOUT_NS = 120_000_000_000L;

    /**
     * Each source consumed on a thread of its own until {@code ticks} of its sequence numbers are
     * accounted for; consumer 0 parks {@code stallNs} every {@code stallEvery} ticks (0: never). Once all
     * are there, each finishes its source (the first stops the clock); returns every consumer's counts.
     */
    private static TickStats[] consumeAll(TickSource[] sources, long ticks, long stallEvery, long stallNs)
            throws InterruptedException {
        int n = sources.length;
        TickStats[] stats = new TickStats[n];
        CyclicBarrier allThere = new CyclicBarrier(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[n];
        for (int k = 0; k < n; k++) {
            int index = k;
            threads[k] = new Thread(() -> {
                TickSource source = sources[index];
                try {
                    long deadline = System.nanoTime() + TIMEOUT_NS;
                    long nextStall = stallEvery;
                    while (source.received() + source.lost() < ticks && System.nanoTime() - deadline < 0) {
                        if (source.poll() && index == 0 && stallEvery > 0 && source.received() >= nextStall) {
                            nextStall += stallEvery;
                            LockSupport.parkNanos(stallNs);
                        }
                    }
                    allThere.await();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    stats[index] = source.finish();
                }
            }, "consumer-" + k);
            threads[k].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a consumer failed", failure.get());
        }
        long fewest = Long.MAX_VALUE;
        long most = 0;
        for (TickStats s : stats) {
            assertTrue(s.emitted >= ticks, () -> "a queue was offered fewer ticks than its consumer took: " + s);
            assertEquals(s.dropped, s.gaps + s.trailingDropped, () -> "gaps do not match drops: " + s);
            assertEquals(s.emitted, s.received + s.dropped + s.undelivered, () -> "ticks unaccounted: " + s);
            assertEquals(0, s.undelivered, () -> "published ticks left unread: " + s);
            fewest = Math.min(fewest, s.emitted);
            most = Math.max(most, s.emitted);
        }
        long spread = most - fewest;
        assertTrue(spread <= 1, () -> "ticks not dealt in turn: queues offered " + spread + " apart");
        return stats;
    }

    @Test
    void twoConsumersOfTheJavaClockEachSeeTheirOwnTicksWithExactBooks() throws InterruptedException {
        TickStats[] stats = consumeAll(JavaTickProducer.startFanOut(2, 1 << 16, 1_000, Long.MAX_VALUE), 100_000, 0, 0);
        assertTrue(stats[0].received > 0 && stats[1].received > 0);
    }

    @Test
    void aStalledConsumerLosesItsOwnTicksOnly() throws InterruptedException {
        // 1,000 slots a queue, flat out: a 5 ms stall of consumer 0 every 100,000 ticks must lose its ticks
        TickStats[] stats = consumeAll(JavaTickProducer.startFanOut(3, 1_000, 0, Long.MAX_VALUE), 2_000_000,
                100_000, 5_000_000);
        assertTrue(stats[0].dropped > 0, () -> "expected drops: " + stats[0]);
    }

    @Test
    void oneConsumerOfAFanOutIsALoneQueue() throws InterruptedException {
        TickStats[] stats = consumeAll(JavaTickProducer.startFanOut(1, 4_096, 0, Long.MAX_VALUE), 1_000_000, 0, 0);
        assertEquals(1, stats.length);
    }

    @Test
    void theNativeFanOutDealsTicksInTurnWithExactBooks() throws InterruptedException {
        NativeClock.load();
        TickStats[] stats = consumeAll(TickSources.nativeFanOut(0, 1 << 16, 2, -1), 10_000_000, 0, 0);
        assertTrue(stats[0].received > 0 && stats[1].received > 0);
        TickStats[] stalled = consumeAll(TickSources.nativeFanOut(100, 10_000, 2, -1), 2_000_000, 200_000,
                5_000_000);
        assertTrue(stalled[0].gaps > 0, () -> "a 5 ms stall on a 2 ms queue must lose ticks: " + stalled[0]);
    }

    @Test
    void aConsumersTickIsTheClocksTickInTurn() {
        // consumer k's tick j is the clock's tick 2j + k: consumer 1's first tick fell due one interval
        // after consumer 0's, so read between two readings of consumer 0's it is one interval less late
        long intervalNs = 1_000_000;
        TickSource[] sources = JavaTickProducer.startFanOut(2, 1 << 16, intervalNs, 2);  // a tick each
        for (TickSource source : sources) {
            while (!source.poll()) {
                Thread.onSpinWait();
            }
        }
        long first = sources[0].latenessNs();
        long second = sources[1].latenessNs();
        long third = sources[0].latenessNs();
        assertTrue(first - intervalNs <= second && second <= third - intervalNs, () -> "consumer 1's tick 0 was "
                + second + " ns late, consumer 0's " + first + " and then " + third + " ns");
        for (TickSource source : sources) {
            source.finish();
        }
    }
}
