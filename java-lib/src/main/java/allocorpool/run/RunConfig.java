package allocorpool.run;

import allocorpool.model.CaseParams;

/** One run as the command line asked for it (see allocorpool.Options for the checks). */
public final class RunConfig {
    public final String caseName;
    public final String strategy;
    public final String mode;
    /** Real-time tick interval; 0 in batch mode. */
    public final long intervalNs;
    public final double durationS;
    public final double warmupS;
    public final double scale;
    public final int producerCpu;
    public final int consumerCpu;
    public final boolean liveObjects;
    public final long seed;
    /** "counter" or "random" (see allocorpool.model.PacketSource). */
    public final String source;
    /** Absolute overrides of the case's sizes; 0 keeps the case's. */
    public final int internalQueueSize;
    public final int storedCount;
    public final int poolSize;
    /** Real-time: the input queue's capacity in time (MAX_CAPTURING_DELAY_MS unless given). */
    public final double captureDelayMs;
    /** End the timed phase when the heap is {@link #HEAP_FULL} used (Epsilon never frees). */
    public final boolean stopWhenHeapFull;
    /** After this run, more probes in the same JVM, one per line of standard input (see Run). */
    public final boolean probesFromStdin;
    public final String out;
    /**
     * 0 runs the model on the main thread (the study's engine); N &gt; 0 runs N processing threads,
     * each on its own share of the case, in real time each fed by the one clock (see ThreadedRun).
     */
    public final int threads;
    /**
     * With --threads: "weak", each thread a live set of the case's size (the live set grows with N), or
     * "strong", the case's live set split between the threads (see CaseParams#share).
     */
    public final String scaling;
    /** With --threads N: one producer thread acquires and fills every packet, N workers process and release them. */
    public final boolean handoff;

    public static final String WEAK = "weak";
    public static final String STRONG = "strong";

    /** The share of the heap in use at which --stop-when-heap-full ends the timed phase. */
    public static final double HEAP_FULL = 0.9;

    public RunConfig(String caseName, String strategy, String mode, long intervalNs, double durationS,
            double warmupS, double scale, int producerCpu, int consumerCpu, boolean liveObjects, long seed,
            String source, int internalQueueSize, int storedCount, int poolSize, double captureDelayMs,
            boolean stopWhenHeapFull, boolean probesFromStdin, String out) {
        this(caseName, strategy, mode, intervalNs, durationS, warmupS, scale, producerCpu, consumerCpu, liveObjects,
                seed, source, internalQueueSize, storedCount, poolSize, captureDelayMs, stopWhenHeapFull,
                probesFromStdin, out, 0);
    }

    /** As below, weak scaling without hand-off. */
    public RunConfig(String caseName, String strategy, String mode, long intervalNs, double durationS,
            double warmupS, double scale, int producerCpu, int consumerCpu, boolean liveObjects, long seed,
            String source, int internalQueueSize, int storedCount, int poolSize, double captureDelayMs,
            boolean stopWhenHeapFull, boolean probesFromStdin, String out, int threads) {
        this(caseName, strategy, mode, intervalNs, durationS, warmupS, scale, producerCpu, consumerCpu, liveObjects,
                seed, source, internalQueueSize, storedCount, poolSize, captureDelayMs, stopWhenHeapFull,
                probesFromStdin, out, threads, WEAK, false);
    }

    /**
     * As above, run by {@code threads} processing threads (0: the main thread alone), each with a live set
     * as {@code scaling} says, fed by one producer thread when {@code handoff}.
     */
    public RunConfig(String caseName, String strategy, String mode, long intervalNs, double durationS,
            double warmupS, double scale, int producerCpu, int consumerCpu, boolean liveObjects, long seed,
            String source, int internalQueueSize, int storedCount, int poolSize, double captureDelayMs,
            boolean stopWhenHeapFull, boolean probesFromStdin, String out, int threads, String scaling,
            boolean handoff) {
        if (!scaling.equals(WEAK) && !scaling.equals(STRONG)) {
            throw new IllegalArgumentException("scaling '" + scaling + "': valid are " + WEAK + ", " + STRONG);
        }
        this.threads = threads;
        this.scaling = scaling;
        this.handoff = handoff;
        this.caseName = caseName;
        this.strategy = strategy;
        this.mode = mode;
        this.intervalNs = intervalNs;
        this.durationS = durationS;
        this.warmupS = warmupS;
        this.scale = scale;
        this.producerCpu = producerCpu;
        this.consumerCpu = consumerCpu;
        this.liveObjects = liveObjects;
        this.seed = seed;
        this.source = source;
        this.internalQueueSize = internalQueueSize;
        this.storedCount = storedCount;
        this.poolSize = poolSize;
        this.captureDelayMs = captureDelayMs;
        this.stopWhenHeapFull = stopWhenHeapFull;
        this.probesFromStdin = probesFromStdin;
        this.out = out;
    }

    public boolean realtime() {
        return mode.equals("realtime");
    }

    /** The case's sizes at the scale, with the overrides. */
    public CaseParams caseParams() {
        return CaseParams.of(caseName, scale).overridden(internalQueueSize, storedCount, poolSize);
    }

    /**
     * Thread {@code index}'s sizes of the case's {@code params}: the case's own under weak scaling, its share
     * under strong (CaseParams#share).
     */
    public CaseParams threadShare(CaseParams params, int index) {
        return scaling.equals(STRONG) ? params.share(index, processingThreads()) : params;
    }

    /** The packets of a pool every thread shares: each thread's share's pool (the case's under strong scaling). */
    public int sharedPoolSize(CaseParams params) {
        long size = 0;
        for (int i = 0; i < processingThreads(); i++) {
            size += threadShare(params, i).poolSize;
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }

    /** The processing threads of the run: 1 when the main thread runs the model alone. */
    public int processingThreads() {
        return Math.max(1, threads);
    }

    /**
     * Ticks in the capture delay (100 ms unless --capture-delay-ms) at the interval, at least one; 0 in
     * batch mode. With several threads, each consumer's queue: the capture delay of its own ticks (one in N).
     */
    public int inputQueueSize() {
        return realtime() ? (int) Math.max(1, Math.min(Integer.MAX_VALUE / 8,
                captureDelayMs * 1e6 / ((double) intervalNs * processingThreads()))) : 0;
    }
}
