package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.EngineFacts;
import allocorpool.Options;
import allocorpool.record.JsonLines;
import allocorpool.record.RecordSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The run tests' command lines, and their run files read back. */
final class RunFiles {
    private static final EngineFacts FACTS = load();

    private RunFiles() {}

    private static EngineFacts load() {
        try {
            return EngineFacts.load();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A 2-s run with 1 s of warm-up, unpinned, as the command line would ask for it. */
    static RunConfig config(String caseName, String strategy, String mode, long intervalNs, double scale,
            boolean live, Path out, String... more) {
        List<String> args = new ArrayList<>(List.of("--case", caseName, "--strategy", strategy, "--mode", mode,
                "--duration-s", "2", "--warmup-s", "1", "--scale", String.valueOf(scale), "--producer-cpu", "-1",
                "--consumer-cpu", "-1", "--out", out.toString()));
        if (intervalNs > 0) {
            args.addAll(List.of("--interval-ns", String.valueOf(intervalNs)));
        }
        if (live) {
            args.add("--live-objects");
        }
        args.addAll(List.of(more));
        return Options.parse(args.toArray(new String[0]));
    }

    /** Checks the shape every run file has and returns its records. */
    static List<Map<String, Object>> readRun(Path file) throws IOException {
        List<Map<String, Object>> records = JsonLines.read(file);
        assertTrue(records.size() >= 2, "a header and a summary at least");
        assertEquals("header", records.get(0).get("type"));
        assertEquals("summary", records.get(records.size() - 1).get("type"));
        for (int i = 0; i < records.size(); i++) {
            Map<String, Object> r = records.get(i);
            RecordSchema.check(r);
            assertTyped(r);
            if (i > 0 && i < records.size() - 1) {
                assertTrue(r.get("type").equals("periodic") || r.get("type").equals("gc"), r.toString());
            }
        }
        return records;
    }

    /** Each field of a run record has the type engine-facts.json gives it, and no field it lacks is written. */
    static void assertTyped(Map<String, Object> record) throws IOException {
        String type = (String) record.get("type");
        Map<String, String> types = FACTS.javaFields(type);
        assertEquals(types.keySet(), record.keySet(), type);
        for (Map.Entry<String, String> field : types.entrySet()) {
            Object value = record.get(field.getKey());
            assertTrue(EngineFacts.isOfType(value, field.getValue()),
                    type + "." + field.getKey() + " = " + value + " is not " + field.getValue());
        }
        if (type.equals("header")) {
            Map<String, String> params = FACTS.javaFields("header.params");
            @SuppressWarnings("unchecked")
            Map<String, Object> written = (Map<String, Object>) record.get("params");
            assertEquals(params.keySet(), written.keySet());
            params.forEach((name, kind) -> assertTrue(EngineFacts.isOfType(written.get(name), kind),
                    "params." + name + " = " + written.get(name) + " is not " + kind));
        }
    }

    /** A field summed over the periodic records, the warm-up's left out when {@code measuredOnly}. */
    static long sum(List<Map<String, Object>> records, String field, boolean measuredOnly) {
        long total = 0;
        for (Map<String, Object> r : records) {
            if (r.get("type").equals("periodic") && (!measuredOnly || r.get("warmup").equals(false))) {
                total += (Long) r.get(field);
            }
        }
        return total;
    }

    static List<Map<String, Object>> periodic(List<Map<String, Object>> records) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> r : records) {
            if (r.get("type").equals("periodic")) {
                out.add(r);
            }
        }
        return out;
    }
}
