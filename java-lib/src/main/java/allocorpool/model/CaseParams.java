package allocorpool.model;

/**
 * The sizes of one test case (A, B or C) from the article's table, scaled.
 *
 * <p>Case A follows the article's table (10,000 / 10,000); the published code used
 * 1,000 / 1,000 for INTERNAL_QUEUE_SIZE / STORED_COUNT. {@code scale} (0 &lt; scale &lt;= 1)
 * multiplies every count (rounded, at least 1) so that a small run keeps the shape of a
 * full one; MAX_CAPTURING_DELAY_MS is a time and is not scaled.
 */
public final class CaseParams {
    public static final int MAX_CAPTURING_DELAY_MS = 100;
    static final int POOL_SIZE = 1_000_000;
    static final int MIX_POOL_SIZE = 200_000;

    public final String name;
    public final double scale;
    public final int poolSize;
    public final int mixPoolSize;
    public final int internalQueueSize;
    public final int storedCount;

    private CaseParams(String name, double scale, int internalQueueSize, int storedCount) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale " + scale + " is outside (0, 1]");
        }
        this.name = name;
        this.scale = scale;
        this.poolSize = scaled(POOL_SIZE, scale);
        this.mixPoolSize = scaled(MIX_POOL_SIZE, scale);
        this.internalQueueSize = scaled(internalQueueSize, scale);
        this.storedCount = scaled(storedCount, scale);
    }

    /** The case named "A", "B" or "C" at the given scale. */
    public static CaseParams of(String name, double scale) {
        switch (name) {
            case "A":
                return new CaseParams(name, scale, 10_000, 10_000);
            case "B":
                return new CaseParams(name, scale, 100_000, 100_000);
            case "C":
                return new CaseParams(name, scale, 495_000, 495_000);
            default:
                throw new IllegalArgumentException("no case " + name);
        }
    }

    private static int scaled(int count, double scale) {
        return (int) Math.max(1, Math.round(count * scale));
    }
}
