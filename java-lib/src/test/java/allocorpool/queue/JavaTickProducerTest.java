package allocorpool.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Loss accounting against the Java stand-in producer: exact, with and without losses. */
class JavaTickProducerTest {
    /**
     * A paced producer and a consumer that never stalls on purpose: the books balance
     * exactly. (Whether anything is dropped is a matter of speed: on a shared 2-core
     * machine the consumer can be descheduled for longer than the 65 ms the queue holds.)
     */
    @Test
    void pacedTicksBalanceExactly() {
        TickStats stats = QueueAccounting.consumeAndCheck(JavaTickProducer.start(1 << 16, 1_000, Long.MAX_VALUE), 200_000, 0, 0);
        assertTrue(stats.received > 0, stats::toString);
    }

    @Test
    void stallsLoseTicksAndTheBooksStillBalance() {
        // A 1,000-slot queue and a 2 ms stall every 50,000 ticks: the producer must drop.
        // It runs until stopped: ticks dropped at the very end would never show as gaps.
        TickStats stats = QueueAccounting.consumeAndCheck(
                JavaTickProducer.start(1_000, 0, Long.MAX_VALUE), 20_000_000, 50_000, 2_000_000);
        assertTrue(stats.dropped > 0, () -> "expected drops: " + stats);
        assertTrue(stats.gaps > 0, () -> "expected gaps: " + stats);
    }

    @Test
    void producerThatEndsByItselfIsDrainedCompletely() {
        TickSource source = JavaTickProducer.start(4_096, 0, 1_000_000);
        TickStats stats = source.finish();
        assertTrue(stats.balanced(), stats::toString);
        assertEquals(0, stats.undelivered, stats::toString);
    }
}
