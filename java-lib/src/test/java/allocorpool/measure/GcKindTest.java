package allocorpool.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Bean names of every collector on JDK 11 to 25, and the rule for names not in the table. */
class GcKindTest {
    @Test
    void knownBeans() {
        for (String pause : new String[] {"ParNew", "G1 Young Generation", "G1 Old Generation", "PS Scavenge",
            "PS MarkSweep", "Copy", "MarkSweepCompact", "ZGC Pauses", "ZGC Minor Pauses", "ZGC Major Pauses",
            "Shenandoah Pauses"}) {
            assertEquals(GcKind.PAUSE, GcKind.of(pause), pause);
        }
        for (String cycle : new String[] {"ConcurrentMarkSweep", "G1 Concurrent GC", "ZGC", "ZGC Cycles",
            "ZGC Minor Cycles", "ZGC Major Cycles", "Shenandoah Cycles"}) {
            assertEquals(GcKind.CYCLE, GcKind.of(cycle), cycle);
        }
    }

    @Test
    void unknownBeans() {
        assertEquals(GcKind.CYCLE, GcKind.of("Future Cycles"));
        assertEquals(GcKind.CYCLE, GcKind.of("Some Concurrent Thing"));
        assertEquals(GcKind.PAUSE, GcKind.of("Epsilon Heap"));
    }

    @Test
    void histogramTotalLine() {
        ClassHistogram h = ClassHistogram.parse(" num     #instances         #bytes  class name (module)\n"
                + "-------------------------------------------------------\n"
                + "   1:          1000         102400  [B (java.base@17)\n"
                + "Total          3039        4113408\n");
        assertEquals(3039, h.objects);
        assertEquals(4113408, h.bytes);
    }
}
