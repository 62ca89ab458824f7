package allocorpool.queue;

import allocorpool.record.RecordWriter;
import allocorpool.record.RunContext;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The C++ to Java half of the queue benchmark (native-queue's queue_bench does C++ to C++):
 * the native clock writing into direct buffers that this JVM reads with acquire/release.
 * It measures the producer's cost per tick when it runs flat out, and the shortest interval
 * at which a reader that does nothing else loses no tick, by bisection over probes, under
 * two rules for the queue's size:
 *
 * <ul>
 *   <li>{@code fixed}: 1,000,000 slots per array whatever the interval, the queue the
 *       original measured C++ to Java with (20 ns on a 2014 Xeon, the target printed beside
 *       ours);
 *   <li>{@code delay_100ms}: each array holds 100 ms of ticks at the probed interval
 *       (MAX_CAPTURING_DELAY_MS, as the engine's real-time runs size it; 5,000,000 slots at
 *       20 ns), which makes a short interval easier.
 * </ul>
 *
 * <p>A probe is loss-free only if the clock kept its rate, nothing was dropped, and the
 * reader kept up: by the probe's end it had taken at least the ticks due minus one array's
 * capacity (a reader slower than the clock loses nothing while the queue absorbs its
 * backlog, and would pass a short probe). Probes under the fixed rule last 10 s by default
 * (--fixed-probe-s), long enough to fill the original's queue at the intervals it measured;
 * the others 2 s (--probe-s). The tests' profile shortens both.
 *
 * <p>usage: {@code QueueBenchmark [--out FILE] [--probe-s S] [--fixed-probe-s S] [--min-ns N]
 * [--max-ns N] [--producer-cpu N] [--consumer-cpu N]}
 */
public final class QueueBenchmark {
    static final String PAIR = "cpp-java";
    static final long TARGET_NS = 20;
    private static final long MAX_CAPTURING_DELAY_MS = 100;
    private static final double MIN_PROBE_S = 0.05;
    private static final double MAX_PROBE_S = 600;
    private static final String USAGE = "usage: QueueBenchmark [--out FILE|-] [--probe-s 0.05..600] "
            + "[--fixed-probe-s 0.05..600] "
            + "[--min-ns 1..1000000] [--max-ns 1..1000000] [--producer-cpu -1|0..] [--consumer-cpu -1|0..]";

    /** How a probe's queue is sized: the record's {@code capacity_rule}. */
    enum CapacityRule {
        /** The original's C++ to Java queue: 1,000,000 slots per array. */
        FIXED("fixed") {
            @Override
            int queueSize(long intervalNs) {
                return 1_000_000;
            }
        },
        /** The flat-out probe that measures write_ns: a queue the reader empties as fast as it fills. */
        FLAT_OUT("flat_out") {
            @Override
            int queueSize(long intervalNs) {
                return 1 << 16;
            }
        },
        /** MAX_CAPTURING_DELAY_MS of ticks per array at the probed interval. */
        DELAY_100MS("delay_100ms") {
            @Override
            int queueSize(long intervalNs) {
                return DualArrayQueue.capacityFor(MAX_CAPTURING_DELAY_MS, intervalNs);
            }
        };

        final String recordName;

        CapacityRule(String recordName) {
            this.recordName = recordName;
        }

        abstract int queueSize(long intervalNs);

        /** The slots per array when they do not depend on the interval, else null. */
        Integer fixedQueueSize() {
            return this == DELAY_100MS ? null : queueSize(0);
        }
    }

    private final RecordWriter records;
    private final double probeS;
    private final double fixedProbeS;
    private final int producerCpu;

    private QueueBenchmark(RecordWriter records, double probeS, double fixedProbeS, int producerCpu) {
        this.records = records;
        this.probeS = probeS;
        this.fixedProbeS = fixedProbeS;
        this.producerCpu = producerCpu;
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("--out", "-");
        options.put("--probe-s", "2");
        options.put("--fixed-probe-s", "10");
        options.put("--min-ns", "2");
        options.put("--max-ns", "1000");
        options.put("--producer-cpu", "0");
        options.put("--consumer-cpu", "1");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help")) {
                System.out.println(USAGE);
                return;
            }
            if (!options.containsKey(args[i]) || i + 1 == args.length) {
                usageError("'" + args[i] + "' is not an option with a value; options: " + String.join(", ", options.keySet()));
            }
            options.put(args[i], args[++i]);
        }
        double probeS = number(options, "--probe-s", MIN_PROBE_S, MAX_PROBE_S);
        double fixedProbeS = number(options, "--fixed-probe-s", MIN_PROBE_S, MAX_PROBE_S);
        long minNs = (long) number(options, "--min-ns", 1, 1_000_000);
        long maxNs = (long) number(options, "--max-ns", 1, 1_000_000);
        int producerCpu = (int) number(options, "--producer-cpu", -1, 4095);
        int consumerCpu = (int) number(options, "--consumer-cpu", -1, 4095);
        if (minNs > maxNs) {
            usageError("--min-ns must not exceed --max-ns");
        }
        if (producerCpu >= 0 && producerCpu == consumerCpu) {
            usageError("--producer-cpu and --consumer-cpu must differ: the reader would starve the clock");
        }
        NativeClock.load();
        if (consumerCpu >= 0 && NativeClock.pinCurrentThread(consumerCpu) != 0) {
            usageError("--consumer-cpu: cannot pin to CPU " + consumerCpu + "; this machine has CPUs 0.."
                    + (Runtime.getRuntime().availableProcessors() - 1));
        }
        try (RecordWriter records = RecordWriter.open(options.get("--out"))) {
            records.write(header(probeS, fixedProbeS, minNs, maxNs, producerCpu, consumerCpu));
            QueueBenchmark bench = new QueueBenchmark(records, probeS, fixedProbeS, producerCpu);
            Probe flatOut = bench.probe(0, CapacityRule.FLAT_OUT);
            double writeNs = flatOut.stats.emitted == 0 ? 0 : flatOut.seconds * 1e9 / flatOut.stats.emitted;
            for (CapacityRule rule : new CapacityRule[] {CapacityRule.FIXED, CapacityRule.DELAY_100MS}) {
                bench.search(rule, minNs, maxNs, writeNs);
            }
        }
    }

    /** The shortest loss-free interval in [minNs, maxNs] under one capacity rule, by bisection; one result record. */
    private void search(CapacityRule rule, long minNs, long maxNs, double writeNs) throws IOException {
        // Invariant: knownGood loses nothing; knownBad and below are taken as lossy.
        Long good = null;
        if (probe(maxNs, rule).ok()) {
            long knownBad = minNs - 1;
            long knownGood = maxNs;
            while (knownGood - knownBad > 1) {
                long middle = knownBad + (knownGood - knownBad) / 2;
                if (probe(middle, rule).ok()) {
                    knownGood = middle;
                } else {
                    knownBad = middle;
                }
            }
            good = knownGood;
        }
        boolean met = good != null && good <= TARGET_NS;
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("type", "result");
        result.put("pair", PAIR);
        result.put("capacity_rule", rule.recordName);
        result.put("queue_size", rule.fixedQueueSize());
        result.put("probe_s", probeSeconds(rule));
        result.put("write_ns", writeNs);
        result.put("good_interval_ns", good);
        result.put("target_ns", TARGET_NS);
        result.put("met_target", met);
        records.write(result);
        System.err.printf("queue_bench %s, capacity %s: write %.2f ns/tick, shortest loss-free interval %s"
                + " (target %d ns: %s)%n", PAIR, rule.recordName, writeNs,
                good == null ? "none up to " + maxNs + " ns" : good + " ns", TARGET_NS, met ? "met" : "not met");
    }

    /** One run of the clock for the rule's probe length with this thread reading flat out. */
    private Probe probe(long intervalNs, CapacityRule rule) throws IOException {
        int queueSize = rule.queueSize(intervalNs);
        TickSource source = TickSources.nativeClock(intervalNs, queueSize, producerCpu, -1);
        long start = System.nanoTime();
        long end = start + (long) (probeSeconds(rule) * 1e9);
        long now;
        long taken;
        try {
            do {
                // Drain in bursts: reading the clock once per tick would be the bottleneck.
                for (int i = 0; i < 1024 && source.poll(); i++) {
                    // the tick itself is all the work
                }
                now = System.nanoTime();
            } while (now - end < 0);
            taken = source.received();
        } finally {
            source.finish();
        }
        Probe probe = new Probe(intervalNs, rule, queueSize, (now - start) / 1e9, taken, source.finish());
        records.write(probe.record());
        if (!probe.stats.balanced()) {
            throw new IllegalStateException("accounting broken at " + intervalNs + " ns: " + probe.stats);
        }
        return probe;
    }

    /** One probe's counts and its verdict. */
    static final class Probe {
        final long intervalNs;
        final CapacityRule rule;
        final int queueSize;
        final double seconds;
        /** Ticks the reader had taken when the probe's time was up (before the final drain). */
        final long takenInTime;
        final TickStats stats;

        Probe(long intervalNs, CapacityRule rule, int queueSize, double seconds, long takenInTime, TickStats stats) {
            this.intervalNs = intervalNs;
            this.rule = rule;
            this.queueSize = queueSize;
            this.seconds = seconds;
            this.takenInTime = takenInTime;
            this.stats = stats;
        }

        /** Ticks the clock made due in the probe (null when flat out). */
        Long ticksDue() {
            return intervalNs == 0 ? null : (long) Math.floor(seconds * 1e9 / intervalNs);
        }

        /** The reader was at most one array's capacity behind the clock at the end. */
        boolean keptUp() {
            return intervalNs == 0 || takenInTime >= ticksDue() - queueSize;
        }

        /**
         * No loss, the reader kept up, and the clock kept its rate: a producer slower than
         * the interval would not have tested it (5 % slack for a preemption at either end).
         */
        boolean ok() {
            boolean keptRate = intervalNs == 0 || stats.emitted >= 0.95 * seconds * 1e9 / intervalNs;
            return stats.balanced() && stats.dropped == 0 && stats.undelivered == 0 && keptRate && keptUp();
        }

        Map<String, Object> record() {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("type", "probe");
            r.put("pair", PAIR);
            r.put("capacity_rule", rule.recordName);
            r.put("queue_size", queueSize);
            r.put("interval_ns", intervalNs);
            r.put("duration_s", seconds);
            r.put("ticks_due", ticksDue());
            r.put("emitted", stats.emitted);
            r.put("received", stats.received);
            r.put("taken_in_time", takenInTime);
            r.put("dropped", stats.dropped);
            r.put("lost", stats.gaps + stats.trailingDropped);
            r.put("kept_up", keptUp());
            r.put("ok", ok());
            return r;
        }
    }

    private double probeSeconds(CapacityRule rule) {
        return rule == CapacityRule.FIXED ? fixedProbeS : probeS;
    }

    private static Map<String, Object> header(double probeS, double fixedProbeS, long minNs, long maxNs, int producerCpu, int consumerCpu) {
        Map<String, Object> r = RunContext.header("queue-bench");
        for (String field : List.of("case", "strategy", "mode", "interval_ns", "scale", "seed", "source",
                "clock_origin_nanotime", "series_probe", "threads", "scaling", "handoff")) {
            r.put(field, null);
        }
        r.put("duration_s", probeS);
        r.put("warmup_s", 0);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("probe_s", probeS);
        params.put("fixed_probe_s", fixedProbeS);
        params.put("min_ns", minNs);
        params.put("max_ns", maxNs);
        params.put("max_capturing_delay_ms", MAX_CAPTURING_DELAY_MS);
        params.put("fixed_queue_size", CapacityRule.FIXED.fixedQueueSize());
        params.put("flat_out_queue_size", CapacityRule.FLAT_OUT.fixedQueueSize());
        r.put("params", params);
        r.put("producer_cpu", producerCpu >= 0 ? producerCpu : null);
        r.put("consumer_cpu", consumerCpu >= 0 ? consumerCpu : null);
        List<String> beans = new ArrayList<>();
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            beans.add(bean.getName());
        }
        r.put("collector", System.getProperty("allocorpool.collector"));
        r.put("gc_beans", beans);
        return r;
    }

    private static double number(Map<String, String> options, String name, double min, double max) {
        String text = options.get(name);
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            value = Double.NaN;
        }
        if (!(value >= min && value <= max)) {
            usageError(name + ": '" + text + "' is not a number in " + min + ".." + max);
        }
        return value;
    }

    private static void usageError(String message) {
        System.err.println("QueueBenchmark: " + message);
        System.err.println(USAGE);
        System.exit(2);
    }
}
