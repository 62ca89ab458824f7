package allocorpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.run.RunConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every command-line mistake is a usage error that names the option and what it accepts. */
class OptionsTest {
    private static String error(String... args) {
        return assertThrows(Options.UsageException.class, () -> Options.parse(args)).getMessage();
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), "'" + message + "' should mention '" + part + "'");
        }
    }

    @Test
    void threadsRunSharesThatHoldTheirPacketsEachConsumerOnACpuOfItsOwn() {
        assertEquals(0, Options.parse(new String[] {"--case", "A", "--strategy", "pool"}).threads);
        assertEquals(2, Options.parse(new String[] {"--case", "B", "--strategy", "shared-pool", "--threads", "2"})
                .threads);
        assertMentions(error("--case", "A", "--strategy", "alloc", "--threads", "0"), "--threads", "1..256");
        assertEquals(2, Options.parse(new String[] {"--case", "A", "--strategy", "alloc", "--threads", "2", "--mode",
                "realtime", "--interval-ns", "1000", "--producer-cpu", "0", "--consumer-cpu", "1"}).threads);
        assertMentions(error("--case", "A", "--strategy", "alloc", "--threads", "2", "--mode", "realtime",
                "--interval-ns", "1000", "--producer-cpu", "1", "--consumer-cpu", "0"), "--consumer-cpu",
                "CPUs 0..1", "none the clock's", "or -1");
        assertMentions(error("--case", "A", "--strategy", "alloc", "--threads", "2", "--mode", "realtime",
                "--interval-ns", "1000", "--probes-from-stdin"), "--threads", "not with --probes-from-stdin");
        assertMentions(error("--case", "A", "--strategy", "alloc", "--threads", "8", "--scale", "0.001"),
                "--threads", "8 threads need at least 8 packets");
        // 2,002 held in a pool of 2,002: thread 0's share of 1,001 cannot hold its 501 + 501
        assertMentions(error("--case", "A", "--strategy", "pool", "--threads", "2", "--pool-size", "2002",
                "--internal-queue-size", "1001", "--stored-count", "1001", "--scaling", "strong"), "--pool-size",
                "thread 0 gets 1001");
        // weak scaling (the default): every thread's pool is the case's, and holds the case's live set
        RunConfig weak = Options.parse(new String[] {"--case", "A", "--strategy", "pool", "--threads", "2",
            "--pool-size", "2002", "--internal-queue-size", "1001", "--stored-count", "1001"});
        assertEquals(List.of(RunConfig.WEAK, 1001, 1001), List.of(weak.scaling,
                weak.threadShare(weak.caseParams(), 1).internalQueueSize, weak.threadShare(weak.caseParams(), 1).storedCount));
        assertMentions(error("--case", "A", "--strategy", "pool", "--scaling", "strong"), "--scaling", "only with --threads");
        assertMentions(error("--case", "A", "--strategy", "pool", "--threads", "2", "--scaling", "even"), "--scaling",
                "weak, strong");
        assertMentions(error("--case", "A", "--strategy", "pool", "--threads", "2", "--handoff"), "--handoff",
                "alloc, shared-pool, netty-pooled-heap, netty-pooled-direct, netty-recycler");
        assertMentions(error("--case", "A", "--strategy", "alloc", "--handoff"), "--handoff", "only with --threads");
        assertEquals(true, Options.parse(new String[] {"--case", "A", "--strategy", "netty-recycler", "--threads", "2",
            "--handoff"}).handoff);
        Options.parse(new String[] {"--case", "A", "--strategy", "shared-pool", "--threads", "2", "--pool-size",
            "2002", "--internal-queue-size", "1001", "--stored-count", "1001"});
    }

    @Test
    void defaults() {
        RunConfig c = Options.parse(new String[] {"--case", "b", "--strategy", "mix"});
        assertEquals("B", c.caseName);
        assertEquals("mix", c.strategy);
        assertEquals("batch", c.mode);
        assertEquals(30, c.durationS);
        assertEquals(5, c.warmupS);
        assertEquals(1, c.scale);
        assertEquals(0, c.producerCpu);
        assertEquals(1, c.consumerCpu);
        assertFalse(c.liveObjects);
        assertEquals("-", c.out);
        assertEquals(0, c.inputQueueSize());
        assertEquals("counter", c.source);
        assertEquals(100_000, c.caseParams().internalQueueSize);
        assertEquals(1_000, Options.parse(new String[] {"--case", "A", "--strategy", "pool"}).caseParams().storedCount,
                "case A as the published code ran it");
    }

    @Test
    void sourceAndSizeOverrides() {
        RunConfig c = Options.parse(new String[] {"--case", "A", "--strategy", "pool", "--source", "random",
            "--internal-queue-size", "10000", "--stored-count=10000", "--scale", "0.1"});
        assertEquals("random", c.source);
        assertEquals(10_000, c.caseParams().internalQueueSize, "absolute, not scaled");
        assertEquals(10_000, c.caseParams().storedCount);
        assertEquals(100_000, c.caseParams().poolSize, "the scaled pool");
        RunConfig tenMillion = Options.parse(new String[] {"--case", "C", "--strategy", "pool", "--pool-size",
            "10000000"});
        assertEquals(10_000_000, tenMillion.caseParams().poolSize);
    }

    @Test
    void sizesOutOfRangeAndPoolsTooSmallAreUsageErrors() {
        assertMentions(error("--case", "A", "--strategy", "pool", "--source", "xorshift"), "--source",
                "'xorshift' is not one of counter, random");
        assertMentions(error("--case", "A", "--strategy", "pool", "--internal-queue-size", "0"),
                "--internal-queue-size", "1..10000000");
        assertMentions(error("--case", "A", "--strategy", "pool", "--stored-count", "10000001"),
                "--stored-count", "1..10000000");
        assertMentions(error("--case", "A", "--strategy", "pool", "--pool-size", "many"),
                "--pool-size", "not an integer", "1..10000000");
        for (String strategy : new String[] {"pool", "native-pool", "native-alloc", "native-mix"}) {
            assertMentions(error("--case", "A", "--strategy", strategy, "--internal-queue-size", "600000",
                "--stored-count", "600000"), "--pool-size", strategy,
                    "needs pool_size >= internal_queue_size + stored_count", "1000000 < 600000 + 600000");
        }
        assertMentions(error("--case", "C", "--strategy", "pool", "--pool-size", "989999"),
                "989999 < 495000 + 495000");
        Options.parse(new String[] {"--case", "C", "--strategy", "pool", "--pool-size", "990000"});
        for (String strategy : new String[] {"mix", "netty-pooled-heap", "netty-pooled-direct", "netty-unpooled"}) {
            Options.parse(new String[] {"--case", "A", "--strategy", strategy, "--internal-queue-size", "600000",
                "--stored-count", "600000"});
        }
    }

    @Test
    void realtimeAndEqualsForm() {
        RunConfig c = Options.parse(new String[] {"--case=C", "--strategy=native-pool", "--mode", "realtime",
            "--interval-ns", "1000", "--consumer-cpu", "-1", "--live-objects", "--seed", "-9", "--scale", "0.5"});
        assertTrue(c.realtime());
        assertEquals(1000, c.intervalNs);
        assertEquals(100_000, c.inputQueueSize(), "100 ms of ticks");
        assertEquals(-1, c.consumerCpu);
        assertTrue(c.liveObjects);
        assertEquals(-9, c.seed);
        assertEquals(0.5, c.scale);
    }

    @Test
    void theInputQueuesCapacityInTime() {
        RunConfig c = Options.parse(new String[] {"--case", "A", "--strategy", "pool", "--mode", "realtime",
            "--interval-ns", "1000", "--capture-delay-ms", "10"});
        assertEquals(10, c.captureDelayMs);
        assertEquals(10_000, c.inputQueueSize(), "10 ms of ticks at 1000 ns");
        assertEquals(100, Options.parse(new String[] {"--case", "A", "--strategy", "pool"}).captureDelayMs,
                "the article's 100 ms unless told");
        assertMentions(error("--case", "A", "--strategy", "pool", "--capture-delay-ms", "10"),
                "--capture-delay-ms", "only with --mode realtime");
        assertMentions(error("--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns", "1000",
                "--capture-delay-ms", "0"), "--capture-delay-ms", "> 0 and <= 10000");
    }

    @Test
    void badValuesListWhatIsValid() {
        assertMentions(error("--case", "D", "--strategy", "pool"), "--case", "'D'", "A, B, C");
        assertMentions(error("--case", "A", "--strategy", "foo"), "--strategy: 'foo' is not one of dummy, alloc, mix,"
                + " pool, native-alloc, native-mix, native-pool, netty-pooled-heap, netty-pooled-direct, netty-unpooled");
        assertMentions(error("--case", "A", "--strategy", "pool", "--mode", "live"), "--mode", "batch, realtime");
        assertMentions(error("--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns", "5"),
                "--interval-ns", "10..1000000");
        assertMentions(error("--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns", "x"),
                "--interval-ns", "not an integer", "10..1000000");
        assertMentions(error("--case", "A", "--strategy", "pool", "--duration-s", "0"), "--duration-s", "> 0");
        assertMentions(error("--case", "A", "--strategy", "pool", "--duration-s", "NaN"), "--duration-s");
        assertMentions(error("--case", "A", "--strategy", "pool", "--warmup-s", "-1"), "--warmup-s", ">= 0");
        assertMentions(error("--case", "A", "--strategy", "pool", "--duration-s", "5", "--warmup-s", "5"),
                "--warmup-s", "less than --duration-s");
        assertMentions(error("--case", "A", "--strategy", "pool", "--scale", "1.5"), "--scale", "> 0 and <= 1");
        assertMentions(error("--case", "A", "--strategy", "pool", "--scale", "0"), "--scale", "> 0 and <= 1");
        assertMentions(error("--case", "A", "--strategy", "pool", "--producer-cpu", "-2"), "--producer-cpu", "-1..");
        assertMentions(error("--case", "A", "--strategy", "pool", "--consumer-cpu", "one"), "--consumer-cpu");
        assertMentions(error("--case", "A", "--strategy", "pool", "--seed", "1.5"), "--seed", "integer");
    }

    /** A series' next probe keeps the series' run and changes only what a probe line may set. */
    @Test
    void aProbeLineSetsTheIntervalTheTimesAndTheFileOnly() {
        RunConfig series = Options.parse(new String[] {"--case", "C", "--strategy", "pool", "--mode", "realtime",
            "--interval-ns", "1000", "--capture-delay-ms", "10", "--scale", "0.5", "--probes-from-stdin"});
        RunConfig next = Options.nextProbe(series, " --interval-ns 2000  --duration-s 8 --warmup-s 2 --out p.jsonl ");
        assertEquals(2000, next.intervalNs);
        assertEquals(8, next.durationS);
        assertEquals("p.jsonl", next.out);
        assertEquals(10, next.captureDelayMs, "the series' input queue, in time");
        assertEquals(5_000, next.inputQueueSize(), "10 ms of ticks at the probe's interval");
        assertEquals(0.5, next.scale);
        assertEquals("C", next.caseName);
        assertMentions(assertThrows(Options.UsageException.class, () -> Options.nextProbe(series,
                "--case A --out p.jsonl")).getMessage(), "unknown option '--case'",
                "--interval-ns, --duration-s, --warmup-s, --out");
        assertMentions(assertThrows(Options.UsageException.class, () -> Options.nextProbe(series,
                "--interval-ns 2000")).getMessage(), "needs --out FILE");
        assertMentions(assertThrows(Options.UsageException.class, () -> Options.nextProbe(series,
                "--interval-ns 5 --out p.jsonl")).getMessage(), "--interval-ns", "10..1000000");
        assertMentions(error("--case", "A", "--strategy", "pool", "--probes-from-stdin"), "--probes-from-stdin",
                "only with --mode realtime");
        assertMentions(error("--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns", "1000",
                "--probes-from-stdin", "--live-objects"), "--probes-from-stdin", "not with --live-objects");
    }

    /**
     * Options.Values.of copies a RunConfig field by field for a series' next probe: every field but the
     * four a probe line sets must come through, so a field added to RunConfig and not to that copy fails
     * here instead of falling back to its default in every later probe of a series.
     */
    @Test
    void aProbeLineKeepsEveryOtherFieldOfTheSeries() throws IllegalAccessException {
        RunConfig series = Options.parse(new String[] {"--case", "C", "--strategy", "native-pool", "--mode",
            "realtime", "--interval-ns", "1000", "--duration-s", "9", "--warmup-s", "3", "--scale", "0.5",
            "--producer-cpu", "1", "--consumer-cpu", "0", "--source", "random", "--seed", "7",
            "--internal-queue-size", "1000", "--stored-count", "2000", "--pool-size", "5000",
            "--capture-delay-ms", "10", "--probes-from-stdin", "--out", "first.jsonl"});
        RunConfig next = Options.nextProbe(series, "--out next.jsonl");
        java.util.Set<String> lineSets = java.util.Set.of("intervalNs", "durationS", "warmupS", "out");
        int compared = 0;
        for (java.lang.reflect.Field field : RunConfig.class.getFields()) {
            if (java.lang.reflect.Modifier.isStatic(field.getModifiers()) || lineSets.contains(field.getName())) {
                continue;
            }
            assertEquals(field.get(series), field.get(next), field.getName());
            compared++;
        }
        long statics = java.util.Arrays.stream(RunConfig.class.getFields())
                .filter(f -> java.lang.reflect.Modifier.isStatic(f.getModifiers())).count();
        assertEquals(RunConfig.class.getFields().length - statics - lineSets.size(), compared, "HEAP_FULL is static");
        assertEquals(1000, next.intervalNs, "a line that sets nothing else keeps the interval too");
    }

    @Test
    void missingAndUnknownOptions() {
        assertMentions(error("--case", "A", "--strategy", "pool", "--mode", "realtime"),
                "--interval-ns", "required with --mode realtime", "10..1000000");
        assertMentions(error("--case", "A", "--strategy", "pool", "--interval-ns", "100"),
                "--interval-ns", "only with --mode realtime");
        assertMentions(error("--strategy", "pool"), "--case", "required", "A, B, C");
        assertMentions(error("--case", "A"), "--strategy", "required", "native-pool");
        assertMentions(error("--case", "A", "--strategy"), "--strategy", "missing value");
        assertMentions(error("--case", "A", "--strategy", "pool", "--frobnicate"), "unknown option '--frobnicate'",
                "--case", "--out");
        assertMentions(error("--case", "A", "--strategy", "pool", "--live-objects=yes"), "--live-objects",
                "takes no value");
    }

    @Test
    void helpListsEveryOption() {
        assertTrue(Options.wantsHelp(new String[] {"--case", "X", "--help"}));
        String usage = Options.usage();
        for (String name : new String[] {"--case", "--strategy", "--mode", "--interval-ns", "--duration-s",
            "--warmup-s", "--scale", "--producer-cpu", "--consumer-cpu", "--live-objects", "--source", "--seed",
            "--internal-queue-size", "--stored-count", "--pool-size", "--out", "--help"}) {
            assertTrue(usage.contains(name), name);
        }
    }
}
