package allocorpool.record;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The writer's self-check: a missing or unexpected field is an error naming it. */
class RecordSchemaTest {
    private static Map<String, Object> periodic() {
        Map<String, Object> r = new HashMap<>();
        for (String field : RecordSchema.PERIODIC) {
            r.put(field, null);
        }
        r.put("type", "periodic");
        return r;
    }

    @Test
    void exactFieldsPass() {
        assertDoesNotThrow(() -> RecordSchema.check(periodic()));
    }

    @Test
    void missingAndExtraFieldsAreNamed() {
        Map<String, Object> missing = periodic();
        missing.remove("lost_total");
        String m = assertThrows(IllegalStateException.class, () -> RecordSchema.check(missing)).getMessage();
        assertTrue(m.contains("lost_total"), m);
        Map<String, Object> extra = periodic();
        extra.put("allocs_per_packet", 1.0);
        String e = assertThrows(IllegalStateException.class, () -> RecordSchema.check(extra)).getMessage();
        assertTrue(e.contains("allocs_per_packet"), e);
        Map<String, Object> unknown = periodic();
        unknown.put("type", "bogus");
        assertThrows(IllegalArgumentException.class, () -> RecordSchema.check(unknown));
    }
}
