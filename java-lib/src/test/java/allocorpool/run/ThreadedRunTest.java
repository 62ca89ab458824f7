package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.ExpectsNettyLeaks;
import allocorpool.model.CaseParams;
import allocorpool.model.Packet;
import allocorpool.queue.JavaTickProducer;
import allocorpool.queue.TickSource;
import allocorpool.strategy.BufferStrategy;
import allocorpool.strategy.PoolCounts;
import allocorpool.strategy.Strategies;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs of several processing threads (--threads): for every strategy of the threaded chapter, at one
 * and two threads, in batch and in real time (one clock feeding the threads, here the Java stand-in),
 * a run ends ok with its header naming the threads and its counts exact over all threads (pool and,
 * in real time, ticks); a thread that fails, or a strategy that leaks, ends the run with an error
 * summary. Nothing here depends on how fast the threads run or how the scheduler shares the cores.
 */
class ThreadedRunTest {
    static final List<String> STRATEGIES = List.of("alloc", "mix", "pool", "shared-pool", "netty-pooled-heap",
            "netty-pooled-direct", "netty-recycler");
    private static final TickSourceFactory NO_TICKS = (interval, capacity, producer, consumer) -> {
        throw new AssertionError("batch runs need no tick source");
    };

    /** The Java stand-in clock, fed to the threads in turn; nothing pinned. */
    private static final TickSourceFactory JAVA_CLOCK = new TickSourceFactory() {
        @Override
        public TickSource open(long intervalNs, int capacity, int producerCpu, int consumerCpu) {
            throw new AssertionError("a threaded run opens a fan-out");
        }

        @Override
        public TickSource[] openFanOut(long intervalNs, int capacity, int consumers, int producerCpu) {
            return JavaTickProducer.startFanOut(consumers, capacity, intervalNs, Long.MAX_VALUE);
        }
    };

    @TempDir
    Path dir;

    private final PrintStream human = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    private RunConfig config(String strategy, int threads, Path out) {
        return RunFiles.config("B", strategy, "batch", 0, 0.01, false, out, "--threads", String.valueOf(threads),
                "--duration-s", "0.4", "--warmup-s", "0.1");
    }

    private int execute(RunConfig config, BiFunction<String, CaseParams, BufferStrategy> strategies) {
        return Run.execute(config, NO_TICKS, human, new BufferedReader(new StringReader("")), strategies);
    }

    @Test
    void everyStrategyRunsOnOneAndTwoThreadsWithExactCounts() throws IOException {
        for (String strategy : STRATEGIES) {
            for (int threads : new int[] {1, 2}) {
                Path file = dir.resolve(strategy + "-" + threads + ".jsonl");
                RunConfig config = config(strategy, threads, file);
                assertEquals(0, execute(config, Strategies::create), strategy + " x " + threads);
                List<Map<String, Object>> records = RunFiles.readRun(file);
                assertEquals((long) threads, records.get(0).get("threads"));
                Map<String, Object> s = records.get(records.size() - 1);
                assertEquals("ok", s.get("status"), s.toString());
                // the window is timed: one a busy machine starves measures nothing, and its books balance all the same
                assertTrue((Long) s.get("measured_packets") >= 0 && (Long) s.get("fill_packets") > 0, s.toString());
                double share = (Double) s.get("thread_share_min");
                assertTrue(share >= 0 && share <= 1, s.toString());
                CaseParams params = config.caseParams();
                assertEquals("weak", records.get(0).get("scaling"), "weak scaling is the default");
                assertLiveSets(s, config, threads);
                if (!strategy.equals("alloc")) {
                    long held = (Long) s.get("pool_in_use");
                    assertEquals((Long) s.get("pool_capacity"), (Long) s.get("pool_free") + held, s.toString());
                }
                if (strategy.equals("pool") || strategy.equals("shared-pool")) {
                    assertEquals((long) params.poolSize * threads, s.get("pool_capacity"),
                            "every thread's pool is the case's (weak scaling), shared or not");
                }
                assertThreadCpu(s, threads);
                assertEquals(Strategies.netty(strategy) && !strategy.equals("netty-recycler"),
                        s.get("netty_metrics") != null, s.toString());
            }
        }
    }

    /**
     * Each thread's live set (its FIFO full, less the packet being made, and at most its store) is the
     * case's under weak scaling and its share under strong, and the pool holds them all: the threads'
     * packets held add up to the pool's in use.
     */
    static void assertLiveSets(Map<String, Object> s, RunConfig config, int threads) {
        @SuppressWarnings("unchecked")
        List<Long> held = (List<Long>) (List<?>) s.get("thread_held");
        assertEquals(threads, held.size(), s.toString());
        long sum = 0;
        for (int i = 0; i < threads; i++) {
            CaseParams share = config.threadShare(config.caseParams(), i);
            long fifo = share.internalQueueSize - 1;
            assertTrue(held.get(i) >= fifo && held.get(i) <= fifo + share.storedCount, i + ": " + s);
            sum += held.get(i);
        }
        if (s.get("pool_in_use") != null) {
            assertEquals(sum, (long) (Long) s.get("pool_in_use"), s.toString());
        }
    }

    /** The summary's thread CPU: one figure per thread of the run, none negative. */
    static void assertThreadCpu(Map<String, Object> s, int threads) {
        @SuppressWarnings("unchecked")
        List<Object> cpu = (List<Object>) s.get("thread_cpu_s");
        assertEquals(threads, cpu.size(), s.toString());
        for (Object seconds : cpu) {
            assertTrue(seconds == null || ((Number) seconds).doubleValue() >= 0, s.toString());
        }
    }

    /**
     * Weak scaling gives each of two threads the case's live set, strong half of it: what thread_held says (each
     * thread's within its sizes' bounds, and every strong thread's below every weak thread's).
     */
    @Test
    void weakScalingKeepsEachThreadsLiveSetStrongSplitsIt() throws IOException {
        CaseParams params = CaseParams.of("B", 0.01);
        Map<String, List<Long>> held = new java.util.HashMap<>();
        for (String scaling : List.of("weak", "strong")) {
            Path file = dir.resolve("scaling-" + scaling + ".jsonl");
            RunConfig config = RunFiles.config("B", "pool", "batch", 0, 0.01, false, file, "--threads", "2",
                    "--duration-s", "0.4", "--warmup-s", "0.1", "--scaling", scaling);
            assertEquals(0, execute(config, Strategies::create), scaling);
            List<Map<String, Object>> records = RunFiles.readRun(file);
            assertEquals(scaling, records.get(0).get("scaling"));
            Map<String, Object> s = records.get(records.size() - 1);
            assertLiveSets(s, config, 2);
            @SuppressWarnings("unchecked")
            List<Long> each = (List<Long>) (List<?>) s.get("thread_held");
            held.put(scaling, each);
            assertEquals(scaling.equals("weak") ? 2L * params.poolSize : params.poolSize, s.get("pool_capacity"));
        }
        long weakest = held.get("weak").stream().mapToLong(Long::longValue).min().getAsLong();
        long strongest = held.get("strong").stream().mapToLong(Long::longValue).max().getAsLong();
        assertTrue(strongest < weakest && weakest >= params.internalQueueSize - 1, held.toString());
    }

    @Test
    void everyStrategyRunsInRealTimeOnOneAndTwoConsumersWithExactBooks() throws IOException {
        for (String strategy : STRATEGIES) {
            for (int threads : new int[] {1, 2}) {
                Path file = dir.resolve(strategy + "-realtime-" + threads + ".jsonl");
                RunConfig config = RunFiles.config("B", strategy, "realtime", 20_000, 0.01, false, file, "--threads",
                        String.valueOf(threads), "--duration-s", "0.4", "--warmup-s", "0.1");
                int status = Run.execute(config, JAVA_CLOCK, human, new BufferedReader(new StringReader("")),
                        Strategies::create);
                assertEquals(0, status, strategy + " x " + threads);
                List<Map<String, Object>> records = RunFiles.readRun(file);
                Map<String, Object> header = records.get(0);
                assertEquals((long) threads, header.get("threads"));
                @SuppressWarnings("unchecked")
                Map<String, Object> params = (Map<String, Object>) header.get("params");
                assertEquals(5_000L / threads, params.get("input_queue_size"));
                Map<String, Object> s = records.get(records.size() - 1);
                assertEquals("ok", s.get("status"), s.toString());
                long measured = (Long) s.get("measured_packets");  // none where a busy machine starved the window
                assertTrue(measured >= 0 && measured <= (Long) s.get("packets"), s.toString());
                assertTrue((Long) s.get("latency_samples") > 0 || measured == 0, s.toString());
                assertEquals((Long) s.get("producer_dropped"), (Long) s.get("lost") + (Long) s.get("trailing_dropped"),
                        s.toString());
                long lostMeasured = (Long) s.get("lost_measured");
                assertTrue(lostMeasured >= 0 && lostMeasured <= (Long) s.get("producer_dropped"), s.toString());
                if (!strategy.equals("alloc")) {
                    assertEquals((Long) s.get("pool_capacity"), (Long) s.get("pool_free") + (Long) s.get("pool_in_use"),
                            s.toString());
                }
            }
        }
    }

    @Test
    void theSharesAddUpToTheCase() {
        CaseParams params = CaseParams.of("B", 0.01);
        for (int threads = 1; threads <= 7; threads++) {
            long queue = 0;
            long stored = 0;
            long pool = 0;
            for (int i = 0; i < threads; i++) {
                CaseParams share = params.share(i, threads);
                queue += share.internalQueueSize;
                stored += share.storedCount;
                pool += share.poolSize;
                assertTrue(share.internalQueueSize >= params.internalQueueSize / threads);
            }
            assertEquals(params.internalQueueSize, queue);
            assertEquals(params.storedCount, stored);
            assertEquals(params.poolSize, pool);
        }
    }

    /** A strategy that throws on its thread's 5000th acquire: a run of two threads ends, with that error. */
    @Test
    void aFailingThreadEndsTheRunWithItsError() throws IOException {
        Path file = dir.resolve("failing.jsonl");
        AtomicInteger made = new AtomicInteger();
        BiFunction<String, CaseParams, BufferStrategy> failing = (name, params) -> {
            BufferStrategy strategy = Strategies.create(name, params);
            boolean fails = made.getAndIncrement() == 1;
            return new Wrapped(strategy) {
                private long acquires;

                @Override
                public Packet acquire() {
                    if (fails && ++acquires == 5000) {
                        throw new IllegalStateException("thread 1 gives up");
                    }
                    return super.acquire();
                }
            };
        };
        assertEquals(1, execute(config("pool", 2, file), failing));
        Map<String, Object> s = RunFiles.readRun(file).get(RunFiles.readRun(file).size() - 1);
        assertEquals("error", s.get("status"));
        assertTrue(((String) s.get("error")).contains("thread 1 gives up"), s.toString());
    }

    /** One thread's strategy forgets its 1000th release: the counts over all threads do not balance. */
    @Test
    @ExpectsNettyLeaks
    void aLeakInOneThreadFailsTheRun() throws IOException {
        for (String strategy : List.of("pool", "netty-pooled-heap")) {
            Path file = dir.resolve(strategy + "-leak.jsonl");
            AtomicInteger made = new AtomicInteger();
            BiFunction<String, CaseParams, BufferStrategy> leaky = (name, params) -> {
                BufferStrategy inner = Strategies.create(name, params);
                boolean leaks = made.getAndIncrement() == 0;
                return new Wrapped(inner) {
                    private long releases;

                    @Override
                    public void release(Packet packet) {
                        if (!leaks || ++releases != 1000) {
                            super.release(packet);
                        }
                    }
                };
            };
            assertEquals(1, execute(config(strategy, 2, file), leaky), strategy);
            List<Map<String, Object>> records = RunFiles.readRun(file);
            Map<String, Object> s = records.get(records.size() - 1);
            assertTrue(((String) s.get("error")).contains("pool accounting is off over 2 threads"), s.toString());
            assertNull(s.get("pool_capacity"));
        }
    }

    private static class Wrapped implements BufferStrategy {
        private final BufferStrategy strategy;

        Wrapped(BufferStrategy strategy) {
            this.strategy = strategy;
        }

        @Override
        public Packet acquire() {
            return strategy.acquire();
        }

        @Override
        public void release(Packet packet) {
            strategy.release(packet);
        }

        @Override
        public PoolCounts counts() {
            return strategy.counts();
        }
    }
}
