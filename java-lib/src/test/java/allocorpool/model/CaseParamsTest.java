package allocorpool.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The article's table (case A as the table says, not the published code) and the scale. */
class CaseParamsTest {
    @Test
    void fullScaleIsTheArticlesTable() {
        CaseParams a = CaseParams.of("A", 1);
        assertEquals(1_000_000, a.poolSize);
        assertEquals(200_000, a.mixPoolSize);
        assertEquals(10_000, a.internalQueueSize);
        assertEquals(10_000, a.storedCount);
        assertEquals(100_000, CaseParams.of("B", 1).storedCount);
        assertEquals(495_000, CaseParams.of("C", 1).internalQueueSize);
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
}
