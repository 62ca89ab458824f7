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

    /** A reading of the last tick's lateness, between two reads of System.nanoTime. */
    private static final class Reading {
        final long tick;
        final long before;
        final long latenessNs;
        final long after;

        private Reading(long tick, long before, long latenessNs, long after) {
            this.tick = tick;
            this.before = before;
            this.latenessNs = latenessNs;
            this.after = after;
        }

        static Reading of(TickSource source) {
            long tick = source.received() + source.lost() - 1;
            long before = System.nanoTime();
            long lateness = source.latenessNs();
            return new Reading(tick, before, lateness, System.nanoTime());
        }

        /**
         * Asserts that this reading is {@code earlier}'s lateness plus the time between the two
         * readings, less the intervals between their ticks: the time since the tick fell due on
         * the clock's schedule (within the TSC's calibration, 0.1 %, and 10 us).
         */
        void assertFollows(Reading earlier, long intervalNs) {
            long expected = earlier.latenessNs - (tick - earlier.tick) * intervalNs;
            long slack = (after - earlier.before) / 1000 + 10_000;
            long low = expected + (before - earlier.after) - slack;
            long high = expected + (after - earlier.before) + slack;
            assertTrue(latenessNs >= low && latenessNs <= high,
                    () -> "tick " + tick + " " + latenessNs + " ns late, outside [" + low + ", " + high
                            + "] from tick " + earlier.tick + " " + earlier.latenessNs + " ns late");
        }
    }

    /**
     * Lateness is read on the clock's own schedule: a tick held for 20 ms without being made is
     * 20 ms later than it was, and a tick taken later is as late as the time since it fell due,
     * however the threads were scheduled meanwhile.
     */
    @Test
    void latenessOfATickIsTheTimeSinceItFellDue() {
        long intervalNs = 10_000;
        try (TickSource source = TickSources.nativeClock(intervalNs, 100_000, -1, -1)) {
            while (!source.poll()) {
                Thread.onSpinWait();
            }
            Reading first = Reading.of(source);
            long wakeUp = first.after + 20_000_000;
            while (System.nanoTime() - wakeUp < 0) {
                LockSupport.parkNanos(wakeUp - System.nanoTime());
            }
            Reading waited = Reading.of(source);
            waited.assertFollows(first, intervalNs);
            long ticks = 0;
            while (ticks < 10_000) {  // 100 ms of ticks
                if (source.poll()) {
                    ticks++;
                }
            }
            Reading later = Reading.of(source);
            later.assertFollows(first, intervalNs);
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
