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
    public final String out;

    public RunConfig(String caseName, String strategy, String mode, long intervalNs, double durationS,
            double warmupS, double scale, int producerCpu, int consumerCpu, boolean liveObjects, long seed,
            String out) {
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
        this.out = out;
    }

    public boolean realtime() {
        return mode.equals("realtime");
    }

    /** Ticks in MAX_CAPTURING_DELAY_MS (100 ms) at the interval; 0 in batch mode. */
    public int inputQueueSize() {
        return realtime() ? (int) (CaseParams.MAX_CAPTURING_DELAY_MS * 1_000_000L / intervalNs) : 0;
    }
}
