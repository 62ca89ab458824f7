package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.measure.GcKind;
import allocorpool.queue.JavaTickProducer;
import allocorpool.queue.TickSource;
import allocorpool.queue.TickStats;
import allocorpool.record.JsonLines;
import allocorpool.record.RecordSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs in-process, read back from their files: the records follow docs/records.md
 * (one header, periodic and gc records, one summary last, every field present), and a
 * failing run still ends with a summary.
 */
class RunRecordsTest {
    private static final TickSourceFactory NO_TICKS = (interval, capacity, producer, consumer) -> {
        throw new AssertionError("batch runs need no tick source");
    };

    @TempDir
    Path dir;

    private final ByteArrayOutputStream humanBytes = new ByteArrayOutputStream();
    private final PrintStream human = new PrintStream(humanBytes, true, StandardCharsets.UTF_8);

    private RunConfig config(String caseName, String strategy, String mode, long intervalNs, double scale,
            boolean live, Path out) {
        return new RunConfig(caseName, strategy, mode, intervalNs, 2, 1, scale, -1, -1, live, 1, out.toString());
    }

    /** Checks the shape every run file has and returns its records. */
    private static List<Map<String, Object>> readRun(Path file) throws IOException {
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

    private static long sum(List<Map<String, Object>> records, String field, boolean measuredOnly) {
        long total = 0;
        for (Map<String, Object> r : records) {
            if (r.get("type").equals("periodic") && (!measuredOnly || r.get("warmup").equals(false))) {
                total += (Long) r.get(field);
            }
        }
        return total;
    }

    @Test
    void batchRunFollowsTheSchema() throws IOException {
        Path file = dir.resolve("batch.jsonl");
        assertEquals(0, Run.execute(config("A", "pool", "batch", 0, 0.01, true, file), NO_TICKS, human));
        List<Map<String, Object>> records = readRun(file);

        Map<String, Object> header = records.get(0);
        assertEquals(1L, header.get("schema"));
        assertEquals("java", header.get("engine"));
        assertEquals("A", header.get("case"));
        assertEquals("pool", header.get("strategy"));
        assertEquals("batch", header.get("mode"));
        assertNull(header.get("interval_ns"));
        assertNull(header.get("producer_cpu"));
        assertEquals(2.0, header.get("duration_s"));
        assertEquals(0.01, header.get("scale"));
        assertTrue(((String) header.get("started_utc")).endsWith("Z"));
        assertTrue(!((List<?>) header.get("gc_beans")).isEmpty());
        assertNotNull(header.get("collector"));
        @SuppressWarnings("unchecked")
        Map<String, Object> params = (Map<String, Object>) header.get("params");
        assertEquals(10_000L, params.get("pool_size"));
        assertEquals(100L, params.get("internal_queue_size"));
        assertEquals(0L, params.get("input_queue_size"));
        assertEquals(1024L, params.get("packet_bytes"));

        long periods = records.stream().filter(r -> r.get("type").equals("periodic")).count();
        assertEquals(2, periods, "one periodic record a second");
        for (Map<String, Object> r : records) {
            if (r.get("type").equals("gc")) {
                assertTrue(r.get("kind").equals(GcKind.PAUSE) || r.get("kind").equals(GcKind.CYCLE));
            }
        }

        Map<String, Object> summary = records.get(records.size() - 1);
        assertEquals("ok", summary.get("status"));
        assertNull(summary.get("error"));
        long packets = (Long) summary.get("packets");
        long measured = (Long) summary.get("measured_packets");
        assertTrue(measured > 0 && measured < packets, summary.toString());
        assertEquals(sum(records, "packets", false), packets);
        assertEquals(sum(records, "packets", true), measured, "warm-up periods are left out");
        assertEquals(0L, summary.get("lost"));
        assertNull(summary.get("producer_emitted"));
        assertTrue((Double) summary.get("ns_per_packet") > 0);
        assertTrue((Double) summary.get("alloc_bytes_per_packet") > 0, "parsing allocates");
        assertTrue((Long) summary.get("peak_rss_bytes") > 0);
        assertTrue((Long) summary.get("live_objects") > 10_000, "the pool's packets are live");
        assertEquals((Long) summary.get("pool_capacity"),
                (Long) summary.get("pool_free") + (Long) summary.get("pool_in_use"));
        String text = humanBytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("ns/packet"), text);
    }

    @Test
    void realtimeRunCountsTicks() throws IOException {
        Path file = dir.resolve("realtime.jsonl");
        TickSourceFactory javaClock = (interval, capacity, producer, consumer) -> {
            assertEquals(5_000, capacity, "100 ms of ticks at 20 us");
            return JavaTickProducer.start(capacity, interval, Long.MAX_VALUE);
        };
        assertEquals(0, Run.execute(config("B", "native-mix", "realtime", 20_000, 0.01, false, file),
                javaClock, human));
        List<Map<String, Object>> records = readRun(file);
        assertEquals(20_000L, records.get(0).get("interval_ns"));
        Map<String, Object> summary = records.get(records.size() - 1);
        assertEquals("ok", summary.get("status"));
        long packets = (Long) summary.get("packets");
        assertTrue(packets > 50_000, "about 50,000 ticks a second: " + packets);
        long lost = (Long) summary.get("lost");
        assertTrue(lost >= sum(records, "lost", false), "the drain at the end may find more gaps");
        assertTrue((Long) summary.get("producer_emitted") >= packets + lost);
        assertEquals((Long) summary.get("producer_dropped"), lost + (Long) summary.get("trailing_dropped"),
                "every dropped tick is a gap or a trailing drop");
        assertNull(summary.get("live_objects"));
        String text = humanBytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.matches("(?s)\\s+1\\.0s  processed \\d+  lost \\d+  \\(total lost \\d+\\)\\R.*"), text);
    }

    @Test
    void aFailingSourceEndsInAnErrorSummaryAndIsFinished() throws IOException {
        Path file = dir.resolve("broken.jsonl");
        AtomicInteger finished = new AtomicInteger();
        TickSource broken = new TickSource() {
            private int polls;

            @Override
            public boolean poll() {
                if (++polls > 5_000) {
                    throw new IllegalStateException("the clock broke");
                }
                return true;
            }

            @Override
            public long received() {
                return polls;
            }

            @Override
            public long lost() {
                return 0;
            }

            @Override
            public TickStats finish() {
                finished.incrementAndGet();
                return new TickStats(polls, 0, 0, polls, 0, 0);
            }
        };
        assertEquals(1, Run.execute(config("A", "mix", "realtime", 1000, 0.01, false, file),
                (interval, capacity, producer, consumer) -> broken, human));
        assertTrue(finished.get() >= 1, "finish() on the error path");
        Map<String, Object> summary = readRun(file).get(readRun(file).size() - 1);
        assertEquals("error", summary.get("status"));
        assertTrue(((String) summary.get("error")).contains("the clock broke"), summary.toString());
    }

    @Test
    void anExhaustedPoolEndsInAnErrorSummary() throws IOException {
        Path file = dir.resolve("exhausted.jsonl");
        // Case C at this scale: a pool of 1 packet, but the FIFO and the store want 2.
        assertEquals(1, Run.execute(config("C", "pool", "batch", 0, 1e-6, false, file), NO_TICKS, human));
        List<Map<String, Object>> records = readRun(file);
        Map<String, Object> summary = records.get(records.size() - 1);
        assertEquals("error", summary.get("status"));
        assertTrue(((String) summary.get("error")).contains("exhausted"), summary.toString());
    }
}
