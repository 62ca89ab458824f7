package allocorpool.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.queue.QueueBenchmark.CapacityRule;
import allocorpool.queue.QueueBenchmark.Probe;
import allocorpool.record.RecordSchema;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue benchmark's verdict on a probe, its capacity rules and its records. */
class QueueBenchmarkTest {
    /** A probe of 10 s at 20 ns (500,000,000 ticks due) in which nothing was dropped. */
    private static Probe lossless(CapacityRule rule, long takenInTime) {
        TickStats stats = new TickStats(500_000_000L, 0, 0, 500_000_000L, 0, 0);
        return new Probe(20, rule, rule.queueSize(20), 10.0, takenInTime, stats);
    }

    @Test
    void capacityRules() {
        assertEquals(1_000_000, CapacityRule.FIXED.queueSize(20), "the original's C++ to Java queue");
        assertEquals(1_000_000, CapacityRule.FIXED.queueSize(500));
        assertEquals(5_000_000, CapacityRule.DELAY_100MS.queueSize(20), "100 ms of ticks at 20 ns");
        assertEquals(200_000, CapacityRule.DELAY_100MS.queueSize(500));
        assertNull(CapacityRule.DELAY_100MS.fixedQueueSize());
        assertEquals(1_000_000, CapacityRule.FIXED.fixedQueueSize());
    }

    /** A reader that lost nothing but ended more than one array behind the clock did not keep up. */
    @Test
    void aProbeThatLostNothingButFellBehindIsNotLossFree() {
        Probe behind = lossless(CapacityRule.FIXED, 500_000_000L - 1_000_001);
        assertFalse(behind.keptUp());
        assertFalse(behind.ok());
        Probe justInTime = lossless(CapacityRule.FIXED, 500_000_000L - 1_000_000);
        assertTrue(justInTime.keptUp());
        assertTrue(justInTime.ok());
        // The same backlog is within one array of the 100-ms rule's 5,000,000 slots.
        assertTrue(lossless(CapacityRule.DELAY_100MS, 500_000_000L - 1_000_001).ok());
    }

    @Test
    void dropsOrASlowClockFailAProbe() {
        TickStats dropped = new TickStats(500_000_000L, 7, 0, 499_999_993L, 7, 0);
        assertFalse(new Probe(20, CapacityRule.FIXED, 1_000_000, 10.0, 499_999_993L, dropped).ok());
        TickStats slowClock = new TickStats(400_000_000L, 0, 0, 400_000_000L, 0, 0);
        assertFalse(new Probe(20, CapacityRule.FIXED, 1_000_000, 10.0, 400_000_000L, slowClock).ok(),
                "a clock at 80 % of its rate did not test the interval");
    }

    @Test
    void probeRecordSaysWhichRuleItUsed() {
        Map<String, Object> r = lossless(CapacityRule.FIXED, 499_500_000L).record();
        RecordSchema.check(r);
        assertEquals("fixed", r.get("capacity_rule"));
        assertEquals(1_000_000, r.get("queue_size"));
        assertEquals(500_000_000L, r.get("ticks_due"));
        assertEquals(499_500_000L, r.get("taken_in_time"));
        assertEquals(true, r.get("kept_up"));
        assertEquals(true, r.get("ok"));
    }
}
