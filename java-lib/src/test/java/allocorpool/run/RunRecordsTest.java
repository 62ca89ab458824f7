package allocorpool.run;

import static allocorpool.run.RunFiles.config;
import static allocorpool.run.RunFiles.periodic;
import static allocorpool.run.RunFiles.readRun;
import static allocorpool.run.RunFiles.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.measure.GcKind;
import allocorpool.model.CaseParams;
import allocorpool.record.Failure;
import allocorpool.model.PacketLoop;
import allocorpool.model.PacketSource;
import allocorpool.strategy.Strategies;
import allocorpool.queue.JavaTickProducer;
import allocorpool.queue.NanoClock;
import allocorpool.queue.TickSource;
import allocorpool.queue.TickStats;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs in-process, read back from their files: the records follow docs/records.md
 * (one header, periodic and gc records, one summary last, every field present), and a
 * failing run still ends with a summary. Real-time runs on a scripted clock, whose figures follow
 * from their scripts, are in {@link RealtimeAccountingTest}.
 */
class RunRecordsTest {
    private static final TickSourceFactory NO_TICKS = (interval, capacity, producer, consumer) -> {
        throw new AssertionError("batch runs need no tick source");
    };

    @TempDir
    Path dir;

    private final ByteArrayOutputStream humanBytes = new ByteArrayOutputStream();
    private final PrintStream human = new PrintStream(humanBytes, true, StandardCharsets.UTF_8);

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Map<String, Object> record, String field) {
        return (Map<String, Object>) record.get(field);
    }

    /** The header of batchRunFollowsTheSchema's run (case A, pool, scale 0.01, 2 s), started after before. */
    private static void assertBatchHeader(Map<String, Object> header, long before) {
        assertEquals(1L, header.get("schema"));
        assertEquals("java", header.get("engine"));
        assertEquals("A", header.get("case"));
        assertEquals("pool", header.get("strategy"));
        assertEquals("batch", header.get("mode"));
        assertEquals("counter", header.get("source"));
        assertNull(header.get("interval_ns"));
        assertNull(header.get("producer_cpu"));
        assertEquals(2.0, header.get("duration_s"));
        assertEquals(0.01, header.get("scale"));
        assertTrue(((String) header.get("started_utc")).endsWith("Z"));
        assertTrue(!((List<?>) header.get("gc_beans")).isEmpty());
        assertNotNull(header.get("collector"));
        long origin = (Long) header.get("clock_origin_nanotime");
        assertTrue(origin >= before && origin <= System.nanoTime(), "System.nanoTime at t_s = 0");
        Map<String, Object> params = object(header, "params");
        assertEquals(10_000L, params.get("pool_size"));
        assertEquals(10L, params.get("internal_queue_size"));
        assertEquals(10L, params.get("stored_count"));
        assertEquals(0L, params.get("input_queue_size"));
        assertEquals(1024L, params.get("packet_bytes"));
        assertEquals(Map.of("internal_queue_size", 1_000L, "stored_count", 1_000L), object(params, "case_table"));
    }

    /**
     * The window opens, and the run ends, at the first look at the clock once the warm-up, and the
     * duration, are over: how much later depends on the machine, never earlier. The periods follow one
     * another from the timed phase's start to its end (1 s of warm-up, 2 s in all).
     */
    private static void assertPeriodsTileTheRun(Map<String, Object> summary, List<Map<String, Object>> periods) {
        double timedStart = (Double) summary.get("timed_start_s");
        double windowStart = (Double) summary.get("window_start_s");
        double end = (Double) summary.get("t_s");
        assertTrue(timedStart >= (Double) summary.get("fill_s") && timedStart > 0, summary.toString());
        assertTrue(windowStart >= timedStart + 1 - 1e-9, "the window opens after 1 s of warm-up: " + summary);
        assertTrue(end >= timedStart + 2 - 1e-9, "the run lasts 2 s: " + summary);
        double first = (Double) periods.get(0).get("t_s");
        assertEquals(timedStart, first - (Double) periods.get(0).get("period_s"), 1e-6,
                "periods start with the timed phase");
        assertEquals(windowStart, first, 1e-6, "the warm-up's period ends where the window opens");
        assertEquals(first, (Double) periods.get(1).get("t_s") - (Double) periods.get(1).get("period_s"), 1e-6);
        assertEquals(end, (Double) periods.get(1).get("t_s"), 1e-6, "the last period ends with the run");
        assertEquals(end - windowStart, (Double) summary.get("measured_s"), 1e-6);
    }

    @Test
    void batchRunFollowsTheSchema() throws IOException {
        Path file = dir.resolve("batch.jsonl");
        long before = System.nanoTime();
        assertEquals(0, Run.execute(config("A", "pool", "batch", 0, 0.01, true, file), NO_TICKS, human));
        List<Map<String, Object>> records = readRun(file);

        assertBatchHeader(records.get(0), before);

        List<Map<String, Object>> periods = periodic(records);
        assertEquals(2, periods.size(), "one periodic record a second");
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
        long fill = (Long) summary.get("fill_packets");
        assertTrue(fill > 0 && measured > 0 && measured < packets, summary.toString());
        assertEquals(sum(records, "packets", false), packets, "the totals count the timed phase's packets, not the fill's");
        assertEquals(packets, periods.get(1).get("packets_total"));
        assertEquals(sum(records, "packets", true), measured, "warm-up periods are left out");
        assertPeriodsTileTheRun(summary, periods);
        assertTrue((Double) summary.get("store_fill_at_window") >= 0.99, summary.toString());
        assertEquals(0.9, (Double) summary.get("fifo_fill_at_window"), 1e-12, "9 of 10 between two packets");
        assertEquals(0L, summary.get("lost"));
        assertNull(summary.get("producer_emitted"));
        assertNull(summary.get("measured_ticks_due"));
        assertTrue((Double) summary.get("ns_per_packet") > 0);
        assertTrue((Double) summary.get("alloc_bytes_per_packet") > 0, "parsing allocates");
        double cpu = (Double) summary.get("measured_cpu_s");
        double window = (Double) summary.get("measured_s");
        int cpus = Runtime.getRuntime().availableProcessors();
        assertTrue(cpu > 0 && cpu < cpus * window + 0.05,
                "a batch loop spends CPU time (how much of a core it gets is the machine's business), "
                        + "and no process outruns its cores: " + summary);
        assertTrue((Long) summary.get("peak_rss_bytes") > 0);
        assertTrue((Long) summary.get("live_objects") > 10_000, "the pool's packets are live");
        assertEquals((Long) summary.get("pool_capacity"),
                (Long) summary.get("pool_free") + (Long) summary.get("pool_in_use"));
        String text = humanBytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("ns/packet"), text);
    }

    /**
     * With no warm-up seconds the window opens as the timed phase starts: only the fill
     * phase can have filled the store by then (case C at 1 %: 4,950 slots, some 370,000
     * packets), with either source.
     */
    @Test
    void theFillPhaseFillsTheStoreBeforeTheWindowOpens() throws IOException {
        for (String source : new String[] {"counter", "random"}) {
            Path file = dir.resolve("fill-" + source + ".jsonl");
            assertEquals(0, Run.execute(config("C", "pool", "batch", 0, 0.01, false, file, "--warmup-s", "0",
                    "--duration-s", "0.5", "--source", source), NO_TICKS, human));
            List<Map<String, Object>> records = readRun(file);
            Map<String, Object> summary = records.get(records.size() - 1);
            assertEquals("ok", summary.get("status"), summary.toString());
            assertTrue((Double) summary.get("store_fill_at_window") >= 0.99, source + ": " + summary);
            assertEquals(4949.0 / 4950, (Double) summary.get("fifo_fill_at_window"), 1e-12);
            long fill = (Long) summary.get("fill_packets");
            assertTrue(fill > 4950, source + ": " + summary);
            assertEquals(summary.get("timed_start_s"), summary.get("window_start_s"));
            assertEquals(summary.get("packets"), summary.get("measured_packets"), "no warm-up: the window is the timed phase");
        }
    }

    /** dummy's store holds its one packet whatever the slots: the fill waits for the FIFO only. */
    @Test
    void dummyFillsTheFifoOnly() throws IOException {
        Path file = dir.resolve("dummy.jsonl");
        assertEquals(0, Run.execute(config("B", "dummy", "batch", 0, 0.01, false, file, "--warmup-s", "0",
                "--duration-s", "0.5"), NO_TICKS, human));
        Map<String, Object> summary = readRun(file).get(readRun(file).size() - 1);
        assertEquals(999L, summary.get("fill_packets"), "the FIFO holds 999 of 1,000 after 999 packets");
        assertEquals(0.0, summary.get("store_fill_at_window"), "nothing processed yet when the window opens");
    }

    @Test
    void aStoreThatStopsGrowingCountsAsFilled() {
        // The counter source's store indexes reach only 15 of case A's 20 slots at scale 0.02.
        CaseParams params = CaseParams.of("A", 0.02);
        PacketLoop loop = new PacketLoop(Strategies.create("pool", params), PacketSource.create("counter", 1), params);
        FillPhase fill = new FillPhase(loop, params, true);
        fill.run(loop, System.nanoTime() + 60_000_000_000L, "60 s (test)");
        assertTrue(fill.done());
        assertEquals(15, loop.processor().stored());
        assertTrue(fill.packets() >= (long) FillPhase.STALL_PER_SLOT * params.storedCount, "" + fill.packets());
    }

    @Test
    void aFillThatDoesNotFinishInTimeIsAnError() {
        CaseParams params = CaseParams.of("C", 0.01);
        PacketLoop loop = new PacketLoop(Strategies.create("pool", params), PacketSource.create("counter", 1), params);
        FillPhase fill = new FillPhase(loop, params, true);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> fill.run(loop, System.nanoTime() + 1_000_000, "1 ms (test)"));
        assertTrue(e.getMessage().startsWith("the fill phase did not finish within 1 ms (test): after "),
                e.getMessage());
        assertTrue(e.getMessage().contains("the store") && e.getMessage().contains("of 4950 slots"), e.getMessage());
        assertEquals(Failure.FILL_TIMEOUT, Failure.of(e), "the summary's failure code");
        assertTrue(fill.packets() > 0 && !fill.done());
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
        assertNull(records.get(0).get("series_probe"), "a run of its own");
        Map<String, Object> summary = records.get(records.size() - 1);
        assertEquals("ok", summary.get("status"));
        // How many ticks the consumer took, and lost, depends on the machine; the books do not.
        long packets = (Long) summary.get("packets");
        assertTrue(packets > 0 && packets >= (Long) summary.get("measured_packets"), summary.toString());
        long lost = (Long) summary.get("lost");
        assertTrue(lost >= sum(records, "lost", false), "the drain at the end may find more gaps");
        long emitted = (Long) summary.get("producer_emitted");
        assertTrue(emitted >= packets + lost);
        assertEquals((Long) summary.get("producer_dropped"), lost + (Long) summary.get("trailing_dropped"),
                "every dropped tick is a gap or a trailing drop");
        long measuredNs = Math.round((Double) summary.get("measured_s") * 1e9);
        long due = (Long) summary.get("measured_ticks_due");
        assertTrue(Math.abs(due - measuredNs / 20_000) <= 1, "ticks due in the window: " + summary);
        assertTrue(emitted >= due, "the clock emitted every tick due in the window: " + summary);
        assertNull(summary.get("live_objects"));
        String text = humanBytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.matches(
                "(?s)\\s+\\d+\\.\\ds  processed \\d+  lost \\d+  \\(total lost \\d+\\)  max late \\d+\\.\\d{3} ms\\R.*"),
                text);
    }

    private static final TickSourceFactory JAVA_CLOCK = (interval, capacity, producer, consumer) ->
            JavaTickProducer.start(capacity, interval, Long.MAX_VALUE);

    /**
     * A series fills the model once: its second probe, asked for on standard input, runs at its own
     * interval on the model the first left full, to its own file, on the series' clock.
     */
    @Test
    void aSeriesFillsOnceAndGivesEachProbeItsFile() throws IOException {
        Path first = dir.resolve("series-0.jsonl");
        Path second = dir.resolve("series-1.jsonl");
        BufferedReader lines = new BufferedReader(new StringReader(
                "--interval-ns 40000 --duration-s 0.5 --warmup-s 0.2 --out " + second + "\n"));
        assertEquals(0, Run.execute(config("B", "native-mix", "realtime", 20_000, 0.01, false, first,
                "--probes-from-stdin"), JAVA_CLOCK, human, lines));
        List<Map<String, Object>> a = readRun(first);
        List<Map<String, Object>> b = readRun(second);
        assertEquals(0L, a.get(0).get("series_probe"));
        assertEquals(1L, b.get(0).get("series_probe"));
        assertEquals(40_000L, b.get(0).get("interval_ns"));
        assertEquals(a.get(0).get("clock_origin_nanotime"), b.get(0).get("clock_origin_nanotime"), "one clock");
        Map<String, Object> sa = a.get(a.size() - 1);
        Map<String, Object> sb = b.get(b.size() - 1);
        assertEquals("ok", sa.get("status"), sa.toString());
        assertEquals("ok", sb.get("status"), sb.toString());
        assertTrue((Long) sa.get("fill_packets") > 0, "the first probe fills: " + sa);
        assertEquals(0L, sb.get("fill_packets"), "the second does not: " + sb);
        assertTrue((Double) sb.get("store_fill_at_window") >= 0.99, "it starts on a full store: " + sb);
        assertTrue((Double) sb.get("timed_start_s") >= (Double) sa.get("t_s"), "after the first, on its clock");
        long measuredNs = Math.round((Double) sb.get("measured_s") * 1e9);
        assertTrue(Math.abs((Long) sb.get("measured_ticks_due") - measuredNs / 40_000) <= 1, "at its own interval");
    }

    /** A line that is not a probe ends the series with status 2, naming what a line may set; the probes before stand. */
    @Test
    void aSeriesLineThatIsNotAProbeEndsItWithStatus2() throws IOException {
        Path first = dir.resolve("series-bad.jsonl");
        BufferedReader lines = new BufferedReader(new StringReader("--case A --out x.jsonl\n"));
        assertEquals(2, Run.execute(config("A", "pool", "realtime", 20_000, 0.01, false, first,
                "--probes-from-stdin"), JAVA_CLOCK, human, lines));
        List<Map<String, Object>> a = readRun(first);
        assertEquals("ok", a.get(a.size() - 1).get("status"));
        String text = humanBytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("unknown option '--case'; valid options: --interval-ns, --duration-s, --warmup-s,"
                + " --out"), text);
    }

    @Test
    void tickCountsThatDoNotBalanceAreAnError() throws IOException {
        Path file = dir.resolve("unbalanced.jsonl");
        TickSource miscounted = new LosslessSource() {
            private long polls;

            @Override
            public boolean poll() {
                polls++;
                return true;
            }

            @Override
            public long received() {
                return polls;
            }


            @Override
            public TickStats finish() {
                // Five ticks the producer says it emitted and nobody received, dropped or kept.
                return new TickStats(polls + 5, 0, 0, polls, 0, 5);
            }
        };
        assertEquals(1, Run.execute(config("A", "mix", "realtime", 1000, 0.01, false, file),
                (interval, capacity, producer, consumer) -> miscounted, human));
        Map<String, Object> summary = readRun(file).get(readRun(file).size() - 1);
        assertEquals("error", summary.get("status"));
        String error = (String) summary.get("error");
        assertTrue(error.contains("tick counts do not balance: gaps 0 + trailing_dropped 5 vs producer_dropped 0"),
                error);
        assertEquals(5L, summary.get("trailing_dropped"), "the counts are in the summary");
        assertEquals("tick_imbalance", summary.get("failure"));
    }
    @Test
    void aFailingSourceEndsInAnErrorSummaryAndIsFinished() throws IOException {
        Path file = dir.resolve("broken.jsonl");
        AtomicInteger finished = new AtomicInteger();
        TickSource broken = new LosslessSource() {
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
        assertEquals("engine_error", summary.get("failure"));
    }

    @Test
    void anExhaustedPoolEndsInAnErrorSummary() throws IOException {
        Path file = dir.resolve("exhausted.jsonl");
        // Case C at this scale: a pool of 1 packet, but the FIFO and the store want 2. The
        // command line refuses it (see OptionsTest); the engine still fails cleanly.
        RunConfig tooSmall = new RunConfig("C", "pool", "batch", 0, 2, 1, 1e-6, -1, -1, false, 1, "counter", 0, 0, 0,
                100, false, false, file.toString());
        assertEquals(1, Run.execute(tooSmall, NO_TICKS, human));
        List<Map<String, Object>> records = readRun(file);
        Map<String, Object> summary = records.get(records.size() - 1);
        assertEquals("error", summary.get("status"));
        assertTrue(((String) summary.get("error")).contains("exhausted"), summary.toString());
        assertEquals("pool_exhausted", summary.get("failure"));
    }

    /**
     * Epsilon never frees: with --stop-when-heap-full the timed phase ends when the heap is 90 %
     * used, and says so; a run whose heap fills before its window opens is an error saying it does
     * not fit. The heap holds about half a second of case A, so the short warm-up fits on any
     * machine and the 19 s one never does. A child JVM, as the study runs it.
     */
    @Test
    void aHeapThatNeverFreesEndsTheRunEarlyOrRefusesIt() throws Exception {
        Path fits = dir.resolve("fits.jsonl");
        assertEquals(0, epsilon(fits, "--warmup-s", "0.05"));
        Map<String, Object> summary = readRun(fits).get(readRun(fits).size() - 1);
        assertEquals("ok", summary.get("status"), summary.toString());
        assertEquals("heap full", summary.get("ended_early"));
        assertTrue((Double) summary.get("measured_s") < 20 && (Long) summary.get("measured_packets") > 0, summary.toString());
        Path tooLong = dir.resolve("too-long.jsonl");
        assertEquals(1, epsilon(tooLong, "--warmup-s", "19"));
        Map<String, Object> failed = readRun(tooLong).get(readRun(tooLong).size() - 1);
        assertEquals("error", failed.get("status"));
        assertTrue(((String) failed.get("error")).contains("does not fit in the heap"), failed.toString());
        assertEquals("heap_full", failed.get("failure"));
        assertNull(summary.get("failure"), "a run that ended well has no failure");
    }

    private static int epsilon(Path out, String... more) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC", "-Xms768m", "-Xmx768m",
                "-cp", System.getProperty("java.class.path"), "allocorpool.Main",
                "--case", "A", "--strategy", "alloc", "--scale", "0.1", "--duration-s", "20",
                "--stop-when-heap-full", "--out", out.toString()));
        command.addAll(List.of(more));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the run ends");
        return process.exitValue();
    }

    /** A stand-in source that loses nothing and whose ticks are all due now and in the window. */
    private abstract static class LosslessSource implements TickSource {
        @Override
        public long lost() {
            return 0;
        }

        @Override
        public NanoClock clock() {
            return NanoClock.SYSTEM;
        }

        @Override
        public void setWindowStart(long startNanos) {}

        @Override
        public long lostInWindow() {
            return 0;
        }

        @Override
        public boolean lastInWindow() {
            return true;
        }

        @Override
        public long latenessNs() {
            return 0;
        }
    }
}
