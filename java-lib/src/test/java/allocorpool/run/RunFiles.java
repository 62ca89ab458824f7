package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.Options;
import allocorpool.record.JsonLines;
import allocorpool.record.RecordSchema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The run tests' command lines, and their run files read back. */
final class RunFiles {
    private RunFiles() {}

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
            if (i > 0 && i < records.size() - 1) {
                assertTrue(r.get("type").equals("periodic") || r.get("type").equals("gc"), r.toString());
            }
        }
        return records;
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
