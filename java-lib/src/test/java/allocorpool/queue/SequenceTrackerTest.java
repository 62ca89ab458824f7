package allocorpool.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SequenceTrackerTest {
    @Test
    void countsGapsBetweenTicks() {
        SequenceTracker tracker = new SequenceTracker();
        assertEquals(0, tracker.accept(0));
        assertEquals(0, tracker.accept(1));
        assertEquals(3, tracker.accept(5));
        assertEquals(2, tracker.received() - 1);
        assertEquals(3, tracker.gaps());
        assertEquals(6, tracker.covered());
    }

    @Test
    void theWindowCountsTheGapsOfTheTicksDueInIt() {
        SequenceTracker tracker = new SequenceTracker();
        tracker.accept(0);
        tracker.accept(3);  // 1 and 2 missing, before the window
        tracker.setWindowStart(6);
        assertEquals(false, tracker.lastInWindow());
        tracker.accept(9);  // 4 and 5 before the window, 6 to 8 in it: found after it opened
        assertEquals(true, tracker.lastInWindow());
        tracker.accept(11);  // 10
        assertEquals(8, tracker.gaps());
        assertEquals(4, tracker.windowGaps());
    }

    @Test
    void widensAcross32BitWrap() {
        SequenceTracker tracker = new SequenceTracker();
        tracker.accept(0);
        // Forward steps of less than half the range, the last one across the wrap.
        tracker.accept(0x7FFF_FFF0);
        tracker.accept(0xFFFF_FFF0);
        tracker.accept(0xFFFF_FFFF);
        tracker.accept(0x0000_0002);
        assertEquals(5, tracker.received());
        assertEquals((1L << 32) + 3 - 5, tracker.gaps());
        assertEquals((1L << 32) + 3, tracker.covered());
    }

    @Test
    void rejectsAJumpOfHalfTheRangeOrMore() {
        SequenceTracker tracker = new SequenceTracker();
        tracker.accept(0);
        assertThrows(IllegalStateException.class, () -> tracker.accept(0x8000_0001));
    }

    @Test
    void rejectsDuplicate() {
        SequenceTracker tracker = new SequenceTracker();
        tracker.accept(0);
        tracker.accept(1);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> tracker.accept(1));
        assertEquals("tick 1 arrived after 1: duplicated or reordered", e.getMessage());
    }

    @Test
    void rejectsReordering() {
        SequenceTracker tracker = new SequenceTracker();
        tracker.accept(0);
        tracker.accept(7);
        assertThrows(IllegalStateException.class, () -> tracker.accept(3));
    }

    @Test
    void trailingDropsAreTheUncoveredRest() {
        SequenceTracker tracker = new SequenceTracker();
        tracker.accept(0);
        tracker.accept(2);
        TickStats stats = tracker.stats(10, 8, 0);
        assertEquals(1, stats.gaps);
        assertEquals(7, stats.trailingDropped);
        assertEquals(true, stats.balanced());
    }
}
