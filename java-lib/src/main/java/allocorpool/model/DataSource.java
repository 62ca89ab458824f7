package allocorpool.model;

import java.nio.ByteBuffer;

/**
 * The packet generator: fills an acquired packet with IP-like fields. Apart from the
 * packets the strategy gives it, it allocates nothing.
 *
 * <p>Layout, as in the original: protocol word (IP), source and destination address
 * (from {@value #ADDRESSES}), source and destination port (from {@value #PORTS}),
 * transport protocol (TCP for 1 packet in {@value #TCP_ONE_IN}, else UDP) and a length of
 * 50..113. The rest of the 1024 bytes is left as it is.
 */
public final class DataSource {
    public static final int IP = 0x0800;
    public static final int TCP = 6;
    public static final int UDP = 17;
    public static final int ADDRESSES = 1024;
    public static final int PORTS = 1024;
    public static final int TCP_ONE_IN = 16;
    public static final int MIN_LENGTH = 50;
    public static final int LENGTHS = 64;

    private final XorShift random;

    public DataSource(long seed) {
        this.random = new XorShift(seed);
    }

    public void fill(Packet packet) {
        ByteBuffer buffer = packet.buffer();
        buffer.clear();
        buffer.putInt(IP);
        buffer.putInt(random.nextInt(ADDRESSES));
        buffer.putInt(random.nextInt(ADDRESSES));
        buffer.putShort((short) random.nextInt(PORTS));
        buffer.putShort((short) random.nextInt(PORTS));
        buffer.putInt(random.nextInt(TCP_ONE_IN) == 0 ? TCP : UDP);
        buffer.putInt(MIN_LENGTH + random.nextInt(LENGTHS));
        buffer.flip();
    }
}
