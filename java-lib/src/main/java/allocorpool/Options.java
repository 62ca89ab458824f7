package allocorpool;

import allocorpool.model.CaseParams;
import allocorpool.model.PacketSource;
import allocorpool.run.RunConfig;
import allocorpool.strategy.HandoffBuffers;
import allocorpool.strategy.Strategies;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line, as a table of options: each entry has its name, what its value
 * looks like, its help text and how it checks and stores the value. Every mistake is a
 * {@link UsageException} naming the option and what it accepts.
 */
public final class Options {
    /** A command-line mistake; Main prints it and exits with status 2. */
    public static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    private static final List<String> CASES = List.of("A", "B", "C");
    private static final List<String> MODES = List.of("batch", "realtime");
    private static final long MIN_INTERVAL_NS = 10;
    private static final long MAX_INTERVAL_NS = 1_000_000;
    private static final double MAX_DURATION_S = 86_400;
    private static final int MAX_CPU = 1023;
    private static final double MAX_CAPTURE_DELAY_MS = 10_000;
    private static final int MAX_THREADS = 256;

    /** What the command line set so far, with the defaults. */
    private static final class Values {
        String caseName;
        String strategy;
        String mode = "batch";
        long intervalNs;
        double durationS = 30;
        double warmupS = 5;
        double scale = 1;
        int producerCpu = 0;
        int consumerCpu = 1;
        boolean liveObjects;
        long seed = 1;
        String source = "counter";
        int internalQueueSize;
        int storedCount;
        int poolSize;
        double captureDelayMs = CaseParams.MAX_CAPTURING_DELAY_MS;
        boolean captureDelayGiven;
        boolean stopWhenHeapFull;
        boolean probesFromStdin;
        String out = "-";
        int threads;
        String scaling;
        boolean handoff;

        /** A real-time run's values, for the next probe of its series. */
        static Values of(RunConfig c) {
            Values v = new Values();
            v.caseName = c.caseName;
            v.strategy = c.strategy;
            v.mode = c.mode;
            v.intervalNs = c.intervalNs;
            v.durationS = c.durationS;
            v.warmupS = c.warmupS;
            v.scale = c.scale;
            v.producerCpu = c.producerCpu;
            v.consumerCpu = c.consumerCpu;
            v.liveObjects = c.liveObjects;
            v.seed = c.seed;
            v.source = c.source;
            v.internalQueueSize = c.internalQueueSize;
            v.storedCount = c.storedCount;
            v.poolSize = c.poolSize;
            v.captureDelayMs = c.captureDelayMs;
            v.captureDelayGiven = true;
            v.stopWhenHeapFull = c.stopWhenHeapFull;
            v.probesFromStdin = c.probesFromStdin;
            v.out = c.out;
            return v;
        }
    }

    private interface Setter {
        void set(Values values, String value);
    }

    private static final class Option {
        final String name;
        final String arg;
        final String help;
        final Setter setter;

        Option(String name, String arg, String help, Setter setter) {
            this.name = name;
            this.arg = arg;
            this.help = help;
            this.setter = setter;
        }
    }

    private static final Map<String, Option> TABLE = new LinkedHashMap<>();
    /** What a line of --probes-from-stdin may set: the rest is the series' own. */
    private static final List<String> PROBE_OPTIONS = List.of("--interval-ns", "--duration-s", "--warmup-s", "--out");

    static {
        add("--case", "A|B|C", "test case (required)",
                (v, s) -> v.caseName = oneOf("--case", s.toUpperCase(), s, CASES));
        add("--strategy", "NAME", "buffer strategy (required): " + String.join(", ", Strategies.NAMES),
                (v, s) -> v.strategy = oneOf("--strategy", s, s, Strategies.NAMES));
        add("--mode", "batch|realtime", "batch: as fast as possible; realtime: one packet per tick (default batch)",
                (v, s) -> v.mode = oneOf("--mode", s, s, MODES));
        add("--interval-ns", "N", "real-time tick interval, " + MIN_INTERVAL_NS + ".." + MAX_INTERVAL_NS
                + " (required with --mode realtime)",
                (v, s) -> v.intervalNs = integer("--interval-ns", s, MIN_INTERVAL_NS, MAX_INTERVAL_NS));
        add("--duration-s", "S", "length of the timed phase (after the fill phase) in seconds, > 0 and <= "
                + (long) MAX_DURATION_S + " (default 30)",
                (v, s) -> v.durationS = number("--duration-s", s, 0, false, MAX_DURATION_S));
        add("--warmup-s", "S", "leading seconds of the timed phase left out of the summary, >= 0 and < --duration-s"
                + " (default 5)",
                (v, s) -> v.warmupS = number("--warmup-s", s, 0, true, MAX_DURATION_S));
        add("--scale", "F", "factor on every count of the case, > 0 and <= 1 (default 1)",
                (v, s) -> v.scale = number("--scale", s, 0, false, 1));
        add("--producer-cpu", "N", "real-time: CPU of the clock thread, -1.." + MAX_CPU + ", -1 = not pinned (default 0)",
                (v, s) -> v.producerCpu = (int) integer("--producer-cpu", s, -1, MAX_CPU));
        add("--consumer-cpu", "N", "real-time: CPU of the processing thread (with --threads, the first of as many"
                + " consecutive ones), -1.." + MAX_CPU + ", -1 = not pinned (default 1)",
                (v, s) -> v.consumerCpu = (int) integer("--consumer-cpu", s, -1, MAX_CPU));
        add("--live-objects", null, "count live objects after a full GC at the end",
                (v, s) -> v.liveObjects = true);
        add("--source", "counter|random", "packet fields and store slots: counter, the published code's"
                + " draws from one counter; random, independent draws from --seed (default counter)",
                (v, s) -> v.source = oneOf("--source", s, s, PacketSource.NAMES));
        add("--seed", "N", "seed of the random source (default 1; the counter source ignores it)",
                (v, s) -> v.seed = integer("--seed", s, Long.MIN_VALUE, Long.MAX_VALUE));
        add("--internal-queue-size", "N", "INTERNAL_QUEUE_SIZE, overriding the case's, 1.." + CaseParams.MAX_COUNT,
                (v, s) -> v.internalQueueSize = (int) integer("--internal-queue-size", s, 1, CaseParams.MAX_COUNT));
        add("--stored-count", "N", "STORED_COUNT, overriding the case's, 1.." + CaseParams.MAX_COUNT,
                (v, s) -> v.storedCount = (int) integer("--stored-count", s, 1, CaseParams.MAX_COUNT));
        add("--pool-size", "N", "POOL_SIZE, overriding 1,000,000 (scaled), 1.." + CaseParams.MAX_COUNT,
                (v, s) -> v.poolSize = (int) integer("--pool-size", s, 1, CaseParams.MAX_COUNT));
        add("--capture-delay-ms", "MS", "real-time: the input queue holds MS of ticks, > 0 and <= "
                + (long) MAX_CAPTURE_DELAY_MS + " (default " + CaseParams.MAX_CAPTURING_DELAY_MS
                + ", the article's MAX_CAPTURING_DELAY_MS)",
                (v, s) -> {
                    v.captureDelayMs = number("--capture-delay-ms", s, 0, false, MAX_CAPTURE_DELAY_MS);
                    v.captureDelayGiven = true;
                });
        add("--stop-when-heap-full", null, "end the timed phase early when the heap is "
                + Math.round(RunConfig.HEAP_FULL * 100) + " % used (a collector that never frees: Epsilon)",
                (v, s) -> v.stopWhenHeapFull = true);
        add("--probes-from-stdin", null, "real-time: after this run, one more probe in the same JVM, on the"
                + " filled model, per line of standard input until it closes; a line sets "
                + String.join(", ", PROBE_OPTIONS) + " (each probe its own file of records)",
                (v, s) -> v.probesFromStdin = true);
        add("--threads", "N", "N processing threads (1.." + MAX_THREADS + "), each making and processing"
                + " its own share of the case's packets with its own FIFO and store; shared-pool gives them one"
                + " pool, every other strategy one each; in real time one clock feeds them in turn, each its own"
                + " queue, each pinned to a CPU from --consumer-cpu on (default: the main thread alone)",
                (v, s) -> v.threads = (int) integer("--threads", s, 1, MAX_THREADS));
        add("--scaling", "weak|strong", "with --threads: weak, every thread a live set of the case's size (the"
                + " default); strong, the case's live set split between the threads",
                (v, s) -> v.scaling = oneOf("--scaling", s, s, List.of(RunConfig.WEAK, RunConfig.STRONG)));
        add("--handoff", null, "with --threads N, batch: one producer thread acquires and fills every packet and hands"
                + " it to N workers in turn, which process and release it (strategies: "
                + String.join(", ", HandoffBuffers.NAMES) + ")",
                (v, s) -> v.handoff = true);
        add("--out", "FILE", "JSON Lines records to FILE, - for standard output (default -)",
                (v, s) -> v.out = s);
        add("--help", null, "print this help", (v, s) -> { });
    }

    private Options() {}

    private static void add(String name, String arg, String help, Setter setter) {
        TABLE.put(name, new Option(name, arg, help, setter));
    }

    /** True when the arguments ask for help (then nothing else is checked). */
    public static boolean wantsHelp(String[] args) {
        return List.of(args).contains("--help");
    }

    public static String usage() {
        StringBuilder text = new StringBuilder("usage: java -jar alloc-or-pool.jar --case A|B|C --strategy NAME"
                + " [options]\n");
        for (Option o : TABLE.values()) {
            String left = o.arg == null ? o.name : o.name + " " + o.arg;
            text.append(String.format("  %-28s %s%n", left, o.help));
        }
        return text.toString();
    }

    /** Parses {@code --name value}, {@code --name=value} and flags; throws UsageException. */
    public static RunConfig parse(String[] args) {
        return check(apply(new Values(), args, TABLE.keySet()));
    }

    /**
     * The next probe of a --probes-from-stdin series: the series' run with what a line of standard
     * input sets (PROBE_OPTIONS, separated by white space); throws UsageException.
     */
    public static RunConfig nextProbe(RunConfig series, String line) {
        String[] args = line.trim().split("\\s+");
        if (!List.of(args).contains("--out")) {
            throw new UsageException("a probe line needs --out FILE; it may set " + String.join(", ", PROBE_OPTIONS));
        }
        return check(apply(Values.of(series), args, PROBE_OPTIONS));
    }

    private static Values apply(Values v, String[] args, java.util.Collection<String> allowed) {
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            String value = null;
            int eq = name.indexOf('=');
            if (name.startsWith("--") && eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Option o = allowed.contains(name) ? TABLE.get(name) : null;
            if (o == null) {
                throw new UsageException("unknown option '" + name + "'; valid options: " + String.join(", ", allowed));
            }
            if (o.arg == null) {
                if (value != null) {
                    throw new UsageException(name + ": takes no value");
                }
            } else if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(name + ": missing value (" + o.arg + ")");
                }
                value = args[++i];
            }
            o.setter.set(v, value);
        }
        return v;
    }

    private static RunConfig check(Values v) {
        if (v.caseName == null) {
            throw new UsageException("--case: required, one of " + String.join(", ", CASES));
        }
        if (v.strategy == null) {
            throw new UsageException("--strategy: required, one of " + String.join(", ", Strategies.NAMES));
        }
        boolean realtime = v.mode.equals("realtime");
        if (realtime && v.intervalNs == 0) {
            throw new UsageException("--interval-ns: required with --mode realtime (" + MIN_INTERVAL_NS + ".."
                    + MAX_INTERVAL_NS + ")");
        }
        if (!realtime && v.intervalNs != 0) {
            throw new UsageException("--interval-ns: only with --mode realtime");
        }
        if (!realtime && v.captureDelayGiven) {
            throw new UsageException("--capture-delay-ms: only with --mode realtime");
        }
        if (v.probesFromStdin && (!realtime || v.liveObjects || v.stopWhenHeapFull)) {
            throw new UsageException("--probes-from-stdin: only with --mode realtime, and not with --live-objects or"
                    + " --stop-when-heap-full (a probe would end with the heap of the ones before it)");
        }
        if (v.threads > 0 && v.probesFromStdin) {
            throw new UsageException("--threads: not with --probes-from-stdin (a series probes one consumer)");
        }
        if (v.threads > 0 && realtime && v.consumerCpu >= 0) {
            // one consumer per CPU from --consumer-cpu on, none of them the clock's
            int last = v.consumerCpu + v.threads - 1;
            if (last > MAX_CPU || (v.producerCpu >= v.consumerCpu && v.producerCpu <= last)) {
                throw new UsageException("--consumer-cpu: " + v.threads + " consumer threads need CPUs "
                        + v.consumerCpu + ".." + last + ", none the clock's (--producer-cpu " + v.producerCpu
                        + "); valid: a first CPU that leaves " + v.threads + " CPUs of 0.." + MAX_CPU
                        + " to the consumers apart from the clock's, or -1 (not pinned)");
            }
        }
        if (v.threads == 0 && (v.scaling != null || v.handoff)) {
            throw new UsageException((v.handoff ? "--handoff" : "--scaling") + ": only with --threads N");
        }
        if (v.handoff && (realtime || !HandoffBuffers.NAMES.contains(v.strategy))) {
            throw new UsageException("--handoff: batch only, with a --strategy of " + String.join(", ",
                    HandoffBuffers.NAMES) + " (got --mode " + v.mode + ", --strategy " + v.strategy + ")");
        }
        if (v.warmupS >= v.durationS) {
            throw new UsageException("--warmup-s: " + v.warmupS + " must be less than --duration-s (" + v.durationS
                    + ")");
        }
        RunConfig config = new RunConfig(v.caseName, v.strategy, v.mode, v.intervalNs, v.durationS, v.warmupS,
                v.scale, v.producerCpu, v.consumerCpu, v.liveObjects, v.seed, v.source, v.internalQueueSize,
                v.storedCount, v.poolSize, v.captureDelayMs, v.stopWhenHeapFull, v.probesFromStdin, v.out, v.threads,
                v.scaling == null ? RunConfig.WEAK : v.scaling, v.handoff);
        CaseParams params = config.caseParams();
        checkThreads(config, params);
        if (Strategies.BOUNDED_BY_POOL_SIZE.contains(v.strategy) && params.poolSize < params.packetsHeldAtMost()) {
            throw new UsageException("--pool-size: " + v.strategy + " needs pool_size >= internal_queue_size"
                    + " + stored_count, but " + params.poolSize + " < " + params.internalQueueSize + " + "
                    + params.storedCount + " (case " + v.caseName + ", scale " + fmt(v.scale)
                    + "); give a larger --pool-size or smaller --internal-queue-size / --stored-count");
        }
        return config;
    }

    /**
     * Every thread's share holds a packet in its FIFO and its store, and a pool of its own (every
     * bounded strategy but shared-pool) holds its share's packets.
     */
    private static void checkThreads(RunConfig config, CaseParams params) {
        int threads = config.threads;
        if (threads == 0) {
            return;
        }
        if (params.internalQueueSize < threads || params.storedCount < threads) {
            throw new UsageException("--threads: " + threads + " threads need at least " + threads + " packets in the"
                    + " internal queue and the store, but case " + config.caseName + " at scale " + fmt(config.scale)
                    + " has " + params.internalQueueSize + " and " + params.storedCount + "; give fewer threads or a"
                    + " larger --scale");
        }
        if (!Strategies.BOUNDED_BY_POOL_SIZE.contains(config.strategy) || config.strategy.equals(Strategies.SHARED)) {
            return;
        }
        for (int i = 0; i < threads; i++) {
            CaseParams share = config.threadShare(params, i);
            if (share.poolSize < share.packetsHeldAtMost()) {
                throw new UsageException("--pool-size: " + config.strategy + " with " + threads + " threads needs each"
                        + " thread's pool to hold its share, but thread " + i + " gets " + share.poolSize + " < "
                        + share.internalQueueSize + " + " + share.storedCount + "; give a larger --pool-size");
            }
        }
    }

    private static String oneOf(String option, String value, String given, List<String> valid) {
        if (!valid.contains(value)) {
            throw new UsageException(option + ": '" + given + "' is not one of " + String.join(", ", valid));
        }
        return value;
    }

    private static long integer(String option, String value, long min, long max) {
        long n;
        try {
            n = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": '" + value + "' is not an integer (" + range(min, max) + ")");
        }
        if (n < min || n > max) {
            throw new UsageException(option + ": '" + value + "' is out of range " + range(min, max));
        }
        return n;
    }

    private static String range(long min, long max) {
        return min == Long.MIN_VALUE ? "any 64-bit integer" : min + ".." + max;
    }

    /** A finite number in (min, max], or [min, max] when minIncluded. */
    private static double number(String option, String value, double min, boolean minIncluded, double max) {
        String range = (minIncluded ? ">= " : "> ") + fmt(min) + " and <= " + fmt(max);
        double x;
        try {
            x = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": '" + value + "' is not a number (" + range + ")");
        }
        if (!Double.isFinite(x) || x < min || (x == min && !minIncluded) || x > max) {
            throw new UsageException(option + ": '" + value + "' is out of range (" + range + ")");
        }
        return x;
    }

    private static String fmt(double x) {
        return x == Math.rint(x) ? String.valueOf((long) x) : String.valueOf(x);
    }
}
