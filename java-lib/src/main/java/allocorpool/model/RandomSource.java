package allocorpool.model;

/**
 * Independent pseudo-random draws: what the article describes (random fields, random
 * replacement in the store), made so that the CPU can overlap them. Each draw is a
 * stateless hash of the seed, the packet's number and the field, with no dependency chain
 * from one draw to the next (a generator's state would be one):
 *
 * <pre>
 *   mix64(z)          = splitmix64's finalizer
 *   draw(seed, p, f)  = mix64(mix64(seed) + (8p + f) * 0x9E3779B97F4A7C15)      (mod 2^64)
 *   below(d, bound)   = ((d &gt;&gt;&gt; 32) * bound) &gt;&gt;&gt; 32
 * </pre>
 *
 * where p counts every packet the run makes (0 first) and f is the field: 0 length, 1 and 2
 * the addresses, 3 and 4 the ports, 5 the protocol (TCP iff below(d, 16) == 0), 6 the store
 * slot when packet p is processed as TCP. The packet carries p from fill to processing
 * ({@link Packet#number()}). The C++ engine computes the same numbers.
 */
public final class RandomSource implements PacketSource {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final int FIELDS = 8;
    private static final int LENGTH = 0;
    private static final int SOURCE = 1;
    private static final int DESTINATION = 2;
    private static final int SOURCE_PORT = 3;
    private static final int DESTINATION_PORT = 4;
    private static final int PROTOCOL = 5;
    private static final int STORE_INDEX = 6;

    private final long seedHash;
    private long packets;

    public RandomSource(long seed) {
        this.seedHash = mix64(seed);
    }

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The draw for field {@code field} of packet number {@code packet}. */
    long draw(long packet, int field) {
        return mix64(seedHash + (packet * FIELDS + field) * GOLDEN_GAMMA);
    }

    /** A draw scaled to [0, bound), for 0 &lt; bound &lt; 2^31. */
    static int below(long draw, int bound) {
        return (int) (((draw >>> 32) * bound) >>> 32);
    }

    @Override
    public void fill(Packet packet) {
        long p = packets++;
        packet.setNumber(p);
        PacketSource.write(packet.buffer(),
                MIN_LENGTH + below(draw(p, LENGTH), LENGTHS),
                below(draw(p, SOURCE), ADDRESSES),
                below(draw(p, DESTINATION), ADDRESSES),
                below(draw(p, SOURCE_PORT), PORTS),
                below(draw(p, DESTINATION_PORT), PORTS),
                below(draw(p, PROTOCOL), TCP_ONE_IN) == 0);
    }

    @Override
    public int storeIndex(Packet packet, int storedCount) {
        return below(draw(packet.number(), STORE_INDEX), storedCount);
    }
}
