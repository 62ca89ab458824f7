package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.ExpectsNettyLeaks;
import allocorpool.Options;
import allocorpool.model.CaseParams;
import allocorpool.model.Packet;
import allocorpool.queue.JavaTickProducer;
import allocorpool.record.JsonLines;
import allocorpool.strategy.BufferStrategy;
import allocorpool.strategy.NettyStrategy;
import allocorpool.strategy.PoolCounts;
import allocorpool.strategy.Strategies;
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
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Netty strategies in whole runs, batch (every case) and real time: every buffer allocated
 * is released or still held when the run ends, and a strategy that forgets a release or makes
 * one twice fails the run with an error summary. The article's strategies load no Netty class.
 */
class NettyRunTest {
    private static final List<String> NETTY = List.of("netty-pooled-heap", "netty-pooled-direct", "netty-unpooled");
    private static final TickSourceFactory NO_TICKS = (interval, capacity, producer, consumer) -> {
        throw new AssertionError("batch runs need no tick source");
    };
    private static final TickSourceFactory JAVA_CLOCK = (interval, capacity, producer, consumer) ->
            JavaTickProducer.start(capacity, interval, Long.MAX_VALUE);

    @TempDir
    Path dir;

    private final PrintStream human = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    /** A short run at 1 % of the case, unpinned; real time when {@code intervalNs} > 0. The books balance
     * whatever the length: a fraction of a second checks what a longer run would. */
    private static RunConfig config(String caseName, String strategy, long intervalNs, Path out) {
        List<String> args = new ArrayList<>(List.of("--case", caseName, "--strategy", strategy, "--duration-s", "0.4",
                "--warmup-s", "0.1", "--scale", "0.01", "--producer-cpu", "-1", "--consumer-cpu", "-1",
                "--out", out.toString()));
        if (intervalNs > 0) {
            args.addAll(List.of("--mode", "realtime", "--interval-ns", String.valueOf(intervalNs)));
        }
        return Options.parse(args.toArray(new String[0]));
    }

    private static Map<String, Object> summary(Path file) throws IOException {
        List<Map<String, Object>> records = JsonLines.read(file);
        return records.get(records.size() - 1);
    }

    /**
     * The summary of a run that ended ok, checked: one buffer allocated per packet made, each
     * released or held, and the held ones a full FIFO plus at most a full store.
     */
    private static void assertConserved(Path file, CaseParams params) throws IOException {
        Map<String, Object> s = summary(file);
        assertEquals("ok", s.get("status"), s.toString());
        long allocated = (Long) s.get("pool_capacity");
        long released = (Long) s.get("pool_free");
        long held = (Long) s.get("pool_in_use");
        assertEquals((Long) s.get("fill_packets") + (Long) s.get("packets"), allocated, "one buffer a packet: " + s);
        assertEquals(allocated, released + held, s.toString());
        assertTrue(released > 0, s.toString());
        long fifo = params.internalQueueSize - 1;
        assertTrue(held >= fifo && held <= fifo + params.storedCount, s.toString());
        assertNettyMetrics(s);
    }

    /**
     * Netty's allocator metrics are in every Netty buffer strategy's summary: a pooled run's arenas of its
     * kind have served some buffers from a chunk, each arena is there, and a thread cache was made. (The
     * allocator is the test JVM's, its counts those of every run so far: an engine's are its one run's.)
     */
    static void assertNettyMetrics(Map<String, Object> s) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) s.get("netty_metrics");
        assertTrue(m != null, "netty_metrics in " + s);
        assertTrue(((Number) m.get("used_heap_memory")).longValue() >= 0, m.toString());
        if ("pooled".equals(m.get("allocator"))) {
            long allocations = ((Number) m.get("allocations")).longValue();
            assertTrue(allocations > 0, m.toString());
            assertTrue(((Number) m.get("num_arenas")).longValue() >= 1, m.toString());
            assertTrue(((Number) m.get("num_thread_local_caches")).longValue() >= 1, m.toString());
            assertEquals(((Number) m.get("num_arenas")).longValue(), ((List<?>) m.get("arenas")).size(), m.toString());
        }
    }

    @Test
    void batchRunsOfEveryCaseConserveEveryBuffer() throws IOException {
        for (String strategy : NETTY) {
            for (String caseName : new String[] {"A", "B", "C"}) {
                Path file = dir.resolve(strategy + "-" + caseName + ".jsonl");
                RunConfig config = config(caseName, strategy, 0, file);
                assertEquals(0, Run.execute(config, NO_TICKS, human), strategy + " " + caseName);
                assertConserved(file, config.caseParams());
            }
        }
    }

    @Test
    void realtimeRunsConserveEveryBuffer() throws IOException {
        for (String strategy : NETTY) {
            Path file = dir.resolve(strategy + "-realtime.jsonl");
            RunConfig config = config("B", strategy, 20_000, file);
            assertEquals(0, Run.execute(config, JAVA_CLOCK, human), strategy);
            assertConserved(file, config.caseParams());
            assertTrue((Long) summary(file).get("fill_packets") > 0);  // counted, not timed: on any machine
        }
    }

    /** A strategy that gets one release in {@code every} wrong: it forgets it (a leak) or makes it twice. */
    private static final class Faulty implements BufferStrategy {
        private final BufferStrategy strategy;
        private final boolean twice;
        private final int every;
        private long releases;

        Faulty(BufferStrategy strategy, boolean twice, int every) {
            this.strategy = strategy;
            this.twice = twice;
            this.every = every;
        }

        @Override
        public Packet acquire() {
            return strategy.acquire();
        }

        @Override
        public void release(Packet packet) {
            if (++releases % every != 0) {
                strategy.release(packet);
            } else if (twice) {
                strategy.release(packet);
                strategy.release(packet);
            }
        }

        @Override
        public PoolCounts counts() {
            return strategy.counts();
        }
    }

    private String errorOfAFaultyRun(String strategy, boolean twice) throws IOException {
        Path file = dir.resolve(strategy + (twice ? "-twice" : "-leak") + ".jsonl");
        BiFunction<String, CaseParams, BufferStrategy> faulty = (name, params) ->
                new Faulty(Strategies.create(name, params), twice, 1000);
        assertEquals(1, Run.execute(config("A", strategy, 0, file), NO_TICKS, human,
                new BufferedReader(new StringReader("")), faulty), strategy);
        Map<String, Object> s = summary(file);
        assertEquals("error", s.get("status"), s.toString());
        assertNull(s.get("pool_capacity"), "no counts from a run whose counts are off");
        return (String) s.get("error");
    }

    @Test
    @ExpectsNettyLeaks
    void aForgottenReleaseFailsTheRunWithAnErrorSummary() throws IOException {
        for (String strategy : NETTY) {
            String error = errorOfAFaultyRun(strategy, false);
            assertTrue(error.contains("pool accounting is off"), error);
        }
    }

    @Test
    @ExpectsNettyLeaks
    void aDoubleReleaseFailsTheRunWithAnErrorSummary() throws IOException {
        for (String strategy : NETTY) {
            String error = errorOfAFaultyRun(strategy, true);
            assertTrue(error.contains(strategy + ": double release"), error);
        }
    }

    /**
     * The article's strategies (and the native ones) measure what they measured before Netty came:
     * a run of one loads no Netty class, nor the Netty strategy. A Netty strategy's run does (netty-recycler's
     * loads Netty's Recycler, not the buffer strategy).
     */
    @Test
    void onlyTheNettyStrategiesLoadNetty() throws Exception {
        for (String strategy : Strategies.NAMES) {
            Path file = dir.resolve(strategy + "-classes.jsonl");
            String[] args = {"--case", "A", "--strategy", strategy, "--duration-s", "0.3", "--warmup-s", "0",
                "--scale", "0.01", "--out", file.toString()};
            try (NotingLoader loader = new NotingLoader()) {
                assertEquals(0, loader.run(args), strategy);
                List<String> names = loader.names();
                assertEquals(Strategies.netty(strategy), names.stream().anyMatch(n -> n.startsWith("io.netty.")),
                        strategy);
                assertEquals(NETTY.contains(strategy), names.contains(NettyStrategy.class.getName()), strategy);
                assertTrue(names.contains(Run.class.getName()), "the loader loaded the engine itself");
            }
        }
    }
}
