package allocorpool.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import allocorpool.EngineFacts;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The cases (A as the published code ran it), the scale, and the overrides. */
class CaseParamsTest {
    @Test
    void fullScaleSizes() {
        CaseParams a = CaseParams.of("A", 1);
        assertEquals(1_000_000, a.poolSize);
        assertEquals(200_000, a.mixPoolSize);
        assertEquals(1_000, a.internalQueueSize, "the published code's case A, not the table's 10,000");
        assertEquals(1_000, a.storedCount);
        assertEquals(100_000, CaseParams.of("B", 1).storedCount);
        assertEquals(495_000, CaseParams.of("C", 1).internalQueueSize);
    }

    @Test
    void theCasesAndLimitsAreTheSharedFacts() throws IOException {
        EngineFacts facts = EngineFacts.load();
        for (String name : new String[] {"A", "B", "C"}) {
            CaseParams params = CaseParams.of(name, 1);
            assertEquals(facts.number("cases." + name + ".internal_queue_size"), params.internalQueueSize, name);
            assertEquals(facts.number("cases." + name + ".stored_count"), params.storedCount, name);
            assertEquals(facts.number("pool_size"), params.poolSize, name);
            assertEquals(facts.number("mix_pool_size"), params.mixPoolSize, name);
        }
        assertEquals(facts.number("max_capturing_delay_ms"), CaseParams.MAX_CAPTURING_DELAY_MS);
        assertEquals(facts.number("max_override_count"), CaseParams.MAX_COUNT);
    }

    @Test
    void scaleRoundsAndKeepsAtLeastOne() {
        CaseParams c = CaseParams.of("C", 0.01);
        assertEquals(10_000, c.poolSize);
        assertEquals(2_000, c.mixPoolSize);
        assertEquals(4_950, c.internalQueueSize);
        CaseParams tiny = CaseParams.of("A", 1e-9);
        assertEquals(1, tiny.poolSize);
        assertEquals(1, tiny.storedCount);
        assertThrows(IllegalArgumentException.class, () -> CaseParams.of("A", 0));
        assertThrows(IllegalArgumentException.class, () -> CaseParams.of("A", 1.5));
    }

    @Test
    void overridesAreAbsoluteAndTheTableIsKept() {
        CaseParams a = CaseParams.of("A", 0.5).overridden(10_000, 10_000, 0);
        assertEquals(10_000, a.internalQueueSize, "not scaled");
        assertEquals(10_000, a.storedCount);
        assertEquals(500_000, a.poolSize, "0 keeps the scaled pool size");
        assertEquals(1_000, a.tableInternalQueueSize, "the case's own size, unscaled");
        assertEquals(1_000, a.tableStoredCount);
        CaseParams b = CaseParams.of("B", 1).overridden(0, 0, 10_000_000);
        assertEquals(100_000, b.internalQueueSize);
        assertEquals(10_000_000, b.poolSize);
        assertEquals(200_000, b.packetsHeldAtMost());
        assertThrows(IllegalArgumentException.class, () -> CaseParams.of("A", 1).overridden(10_000_001, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> CaseParams.of("A", 1).overridden(0, -1, 0));
    }
}
