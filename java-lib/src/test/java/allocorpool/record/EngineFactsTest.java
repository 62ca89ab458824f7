package allocorpool.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.EngineFacts;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The contracts the Java engine shares with the C++ engine and the Python study are engine-facts.json's: its
 * failure codes and the fields of its records (the runs' records are checked against their types in every
 * run test, RunFiles.readRun).
 */
class EngineFactsTest {
    @Test
    void theFailureCodesAreTheSharedOnes() throws IOException {
        Set<String> codes = new TreeSet<>();
        for (Failure failure : Failure.values()) {
            codes.add(failure.code());
        }
        assertEquals(EngineFacts.load().javaFailureCodes(), codes);
    }

    @Test
    void aFailureIsReadFromWhatWasThrownAndItsCauses() {
        assertEquals(Failure.FILL_TIMEOUT, Failure.of(new RunFailureException(Failure.FILL_TIMEOUT, "slow")));
        assertEquals(Failure.POOL_EXHAUSTED, Failure.of(new IllegalStateException("a processing thread failed",
                new RunFailureException(Failure.POOL_EXHAUSTED, "pool exhausted"))));
        assertEquals(Failure.OUT_OF_MEMORY, Failure.of(new RuntimeException(new OutOfMemoryError("Java heap space"))));
        // the text plays no part: a message that reads like a known failure is still the engine's error
        assertEquals(Failure.ENGINE_ERROR, Failure.of(new IllegalStateException("the fill phase did not finish")));
    }

    @Test
    void theRecordFieldsAreTheSharedOnes() throws IOException {
        EngineFacts facts = EngineFacts.load();
        Map<String, List<String>> written = Map.of("header", RecordSchema.HEADER, "periodic", RecordSchema.PERIODIC,
                "gc", RecordSchema.GC, "summary", RecordSchema.SUMMARY, "header.params", RecordSchema.PARAMS);
        for (Map.Entry<String, List<String>> type : written.entrySet()) {
            assertEquals(facts.javaFields(type.getKey()).keySet(), new LinkedHashSet<>(type.getValue()),
                    type.getKey());
        }
    }

    @Test
    void aValueIsOfItsTypeOrNotAndNullOnlyWhereAllowed() {
        assertTrue(EngineFacts.isOfType(3L, "int") && EngineFacts.isOfType(3L, "number"));
        assertFalse(EngineFacts.isOfType(3.5, "int"));
        assertTrue(EngineFacts.isOfType(null, "string|null"));
        assertFalse(EngineFacts.isOfType(null, "string"));
        assertTrue(EngineFacts.isOfType(new HashMap<>(), "object") && EngineFacts.isOfType(List.of(), "list"));
        assertFalse(EngineFacts.isOfType("true", "bool"));
    }
}
