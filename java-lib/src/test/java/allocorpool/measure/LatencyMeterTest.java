package allocorpool.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The meter's percentiles, its periods against its window, and the values it cannot hold. */
class LatencyMeterTest {
    private static void assertNear(long expected, Object actual) {
        long value = (Long) actual;
        assertTrue(Math.abs(value - expected) <= expected / 100 + 1, "within 1 % of " + expected + ": " + value);
    }

    @Test
    void aPeriodGivesItsPercentilesAndOnlyTicksDueInTheWindowReachTheSummary() {
        LatencyMeter meter = new LatencyMeter();
        for (long ns = 1; ns <= 100_000; ns++) {
            meter.record(ns * 1000, false);  // 1 us .. 100 ms, evenly
        }
        Map<String, Object> warmup = new HashMap<>();
        meter.endPeriod(warmup);
        assertNear(50_000_000, warmup.get("latency_p50_ns"));
        assertNear(99_000_000, warmup.get("latency_p99_ns"));
        assertNear(99_900_000, warmup.get("latency_p999_ns"));
        assertNear(100_000_000, warmup.get("latency_max_ns"));

        meter.record(30_000_000, false);  // taken in the window's time, due before it
        meter.record(2_000, true);
        meter.record(4_000, true);
        Map<String, Object> measured = new HashMap<>();
        meter.endPeriod(measured);
        assertNear(30_000_000, measured.get("latency_max_ns"));

        Map<String, Object> summary = new HashMap<>();
        meter.summarize(summary);
        assertEquals(2L, summary.get("latency_samples"), "ticks due before the window are not in it");
        assertNear(4_000, summary.get("latency_max_ns"));
        assertEquals(LatencyMeter.SAMPLE_EVERY, summary.get("latency_sample_every"));
    }

    @Test
    void anEmptyPeriodHasNoPercentilesAndValuesOutOfRangeAreClamped() {
        LatencyMeter meter = new LatencyMeter();
        Map<String, Object> empty = new HashMap<>();
        meter.endPeriod(empty);
        assertTrue(empty.containsKey("latency_p50_ns"));
        assertNull(empty.get("latency_p50_ns"));
        assertNull(empty.get("latency_max_ns"));

        meter.record(-5, true);  // a clock read a hair before the tick's due time: on time
        meter.record(Long.MAX_VALUE, true);
        Map<String, Object> clamped = new HashMap<>();
        meter.endPeriod(clamped);
        assertEquals(0L, clamped.get("latency_p50_ns"));
        assertTrue((Long) clamped.get("latency_max_ns") >= 3_600_000_000_000L, clamped.toString());
    }
}
