package allocorpool.model;

/**
 * The sizes of one test case (A, B or C), scaled, and possibly overridden.
 *
 * <p>Case A is 1,000 / 1,000 (INTERNAL_QUEUE_SIZE / STORED_COUNT): the article's table says
 * 10,000 / 10,000, but its published code ran every case-A figure the article prints at
 * 1,000 / 1,000 (its printed run header and its live-object counts say so), and the study
 * compares like with like. B is 100,000 / 100,000 and C 495,000 / 495,000; POOL_SIZE is
 * 1,000,000 and MIX_POOL_SIZE 200,000 in every case.
 *
 * <p>{@code scale} (0 &lt; scale &lt;= 1) multiplies every count (rounded, at least 1) so that
 * a small run keeps the shape of a full one; MAX_CAPTURING_DELAY_MS is a time and is not
 * scaled. {@link #overridden} then replaces the internal queue size, the stored count or
 * the pool size with absolute counts (the table's 10,000 / 10,000 for A, the "ten million
 * buffers" what-if). {@link #tableInternalQueueSize} and {@link #tableStoredCount} keep
 * the case's own sizes, unscaled and not overridden.
 */
public final class CaseParams {
    public static final int MAX_CAPTURING_DELAY_MS = 100;
    /** The largest count an override may ask for. */
    public static final int MAX_COUNT = 10_000_000;
    static final int POOL_SIZE = 1_000_000;
    static final int MIX_POOL_SIZE = 200_000;

    public final String name;
    public final double scale;
    public final int poolSize;
    public final int mixPoolSize;
    public final int internalQueueSize;
    public final int storedCount;
    public final int tableInternalQueueSize;
    public final int tableStoredCount;

    private CaseParams(String name, double scale, int poolSize, int mixPoolSize, int internalQueueSize,
            int storedCount, int tableInternalQueueSize, int tableStoredCount) {
        this.name = name;
        this.scale = scale;
        this.poolSize = poolSize;
        this.mixPoolSize = mixPoolSize;
        this.internalQueueSize = internalQueueSize;
        this.storedCount = storedCount;
        this.tableInternalQueueSize = tableInternalQueueSize;
        this.tableStoredCount = tableStoredCount;
    }

    /** The case named "A", "B" or "C" at the given scale. */
    public static CaseParams of(String name, double scale) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale " + scale + " is outside (0, 1]");
        }
        int queue;
        int stored;
        switch (name) {
            case "A":
                queue = 1_000;
                stored = 1_000;
                break;
            case "B":
                queue = 100_000;
                stored = 100_000;
                break;
            case "C":
                queue = 495_000;
                stored = 495_000;
                break;
            default:
                throw new IllegalArgumentException("no case " + name);
        }
        return new CaseParams(name, scale, scaled(POOL_SIZE, scale), scaled(MIX_POOL_SIZE, scale),
                scaled(queue, scale), scaled(stored, scale), queue, stored);
    }

    /**
     * These sizes with the internal queue size, the stored count and the pool size replaced
     * by absolute counts in 1..{@value #MAX_COUNT}; 0 keeps a size as it is.
     */
    public CaseParams overridden(int internalQueueSize, int storedCount, int poolSize) {
        return new CaseParams(name, scale, override(poolSize, this.poolSize, "pool size"), mixPoolSize,
                override(internalQueueSize, this.internalQueueSize, "internal queue size"),
                override(storedCount, this.storedCount, "stored count"), tableInternalQueueSize, tableStoredCount);
    }

    /**
     * Thread {@code index}'s share of these sizes when {@code threads} threads split the case: each
     * count divided as evenly as whole packets allow (the shares add up to the count); the table's
     * sizes stay the case's. Each share holds at least one packet in the FIFO and the store.
     */
    public CaseParams share(int index, int threads) {
        if (threads < 1 || index < 0 || index >= threads) {
            throw new IllegalArgumentException("share " + index + " of " + threads + " threads");
        }
        if (internalQueueSize < threads || storedCount < threads) {
            throw new IllegalArgumentException(threads + " threads need at least " + threads
                    + " packets in the internal queue and the store (" + internalQueueSize + " and " + storedCount + ")");
        }
        return new CaseParams(name, scale, shareOf(poolSize, index, threads), shareOf(mixPoolSize, index, threads),
                shareOf(internalQueueSize, index, threads), shareOf(storedCount, index, threads),
                tableInternalQueueSize, tableStoredCount);
    }

    private static int shareOf(int count, int index, int threads) {
        return count / threads + (index < count % threads ? 1 : 0);
    }

    /** Packets a fixed pool must hold: a full FIFO, the one being made, and a full store. */
    public long packetsHeldAtMost() {
        return (long) internalQueueSize + storedCount;
    }

    private static int override(int given, int current, String what) {
        if (given == 0) {
            return current;
        }
        if (given < 1 || given > MAX_COUNT) {
            throw new IllegalArgumentException(what + " " + given + " is outside 1.." + MAX_COUNT);
        }
        return given;
    }

    private static int scaled(int count, double scale) {
        return (int) Math.max(1, Math.round(count * scale));
    }
}
