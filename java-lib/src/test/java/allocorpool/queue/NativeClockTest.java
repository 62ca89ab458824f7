package allocorpool.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The native clock through JNI into the Java reader: 10^8 ticks, exact books. */
class NativeClockTest {
    @BeforeAll
    static void load() {
        NativeClock.load();
    }

    @Test
    void hundredMillionTicksFlatOutWithoutDuplicatesOrReordering() {
        TickSource source = TickSources.nativeClock(0, 1 << 20, -1, -1);
        TickStats stats = QueueAccounting.consumeAndCheck(source, 100_000_000L, 0, 0);
        assertTrue(stats.received > 0, stats::toString);
    }

    @Test
    void stalledConsumerLosesTicksCountedExactly() {
        TickSource source = TickSources.nativeClock(100, 10_000, -1, -1);
        TickStats stats = QueueAccounting.consumeAndCheck(source, 5_000_000L, 100_000, 5_000_000);
        assertTrue(stats.gaps > 0, () -> "a 5 ms stall on a 1 ms queue must lose ticks: " + stats);
    }

    /**
     * Lateness is read on the clock's own schedule: a tick held for 20 ms without being made
     * is at least 20 ms late, and later ticks taken at once are much less late than that.
     */
    @Test
    void latenessOfATickGrowsWhileItWaits() {
        try (TickSource source = TickSources.nativeClock(10_000, 100_000, -1, -1)) {
            while (!source.poll()) {
                Thread.onSpinWait();
            }
            long first = source.latenessNs();
            LockSupport.parkNanos(20_000_000);
            long waited = source.latenessNs();
            assertTrue(waited - first >= 20_000_000, () -> "20 ms later: " + first + " -> " + waited);
            long ticks = 0;
            long last = Long.MAX_VALUE;
            while (ticks < 10_000) {  // 100 ms of ticks: the 2,000 queued in the wait first, then fresh ones
                if (source.poll()) {
                    ticks++;
                    last = source.latenessNs();
                }
            }
            long caughtUp = last;
            assertTrue(caughtUp >= 0 && caughtUp < 10_000_000, () -> "a tick taken when caught up: " + caughtUp);
        }
    }

    @Test
    void rejectsHeapBuffers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NativeClock.start(ByteBuffer.allocate(64), ByteBuffer.allocate(128), 8, 0, -1));
        assertTrue(e.getMessage().contains("direct"), e.getMessage());
    }

    @Test
    void rejectsCpuThatDoesNotExist() {
        assertThrows(IllegalArgumentException.class, () -> TickSources.nativeClock(1000, 1000, 4096, -1));
    }

    @Test
    void calibratedTscIsPlausible() {
        double ticksPerNs = NativeClock.tscTicksPerNs();
        assertTrue(ticksPerNs > 0.1 && ticksPerNs < 10, () -> "ticks/ns " + ticksPerNs);
    }

    @Test
    void pinsAThreadToCpuZero() throws InterruptedException {
        // A thread of its own, so the test runner's thread stays free to move.
        int[] result = {-1};
        Thread thread = new Thread(() -> result[0] = NativeClock.pinCurrentThread(0));
        thread.start();
        thread.join();
        assertEquals(0, result[0]);
    }
}
