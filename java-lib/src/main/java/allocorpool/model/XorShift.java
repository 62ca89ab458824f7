package allocorpool.model;

/**
 * A cheap, allocation-free pseudo-random generator (Marsaglia's xorshift64, shifts 13/7/17)
 * for the data source and the store's replacement index.
 *
 * <p>The original drew its numbers from an incrementing counter to keep the source
 * cheap; a counter makes every field a fixed function of the packet number (for
 * instance the TCP packets come exactly every 16th draw). xorshift costs about as little
 * and gives the "random IP-related information" the article describes.
 */
public final class XorShift {
    private long state;

    public XorShift(long seed) {
        // splitmix64 of the seed: any seed, 0 included, gives a good non-zero state.
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        state = z == 0 ? 0x9E3779B97F4A7C15L : z;
    }

    public long nextLong() {
        long x = state;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        state = x;
        return x;
    }

    /** Uniform in [0, bound) for 0 < bound: the high 32 bits scaled by multiplication. */
    public int nextInt(int bound) {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }
}
