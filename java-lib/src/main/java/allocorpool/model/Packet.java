package allocorpool.model;

import java.nio.ByteBuffer;

/**
 * A captured packet: a 1024-byte buffer (a wrapped heap array, a slice of one large direct
 * buffer for the native strategies, a view of a Netty buffer for the netty ones) plus what
 * parsing it produced.
 *
 * <p>{@link #reset} forgets the parse results when the packet is freed, so a pooled packet
 * does not keep its old temporaries alive. {@link #live} is the strategies' mark of a
 * packet handed out and not yet released: releasing a packet that is not live is a
 * double release.
 */
public final class Packet {
    public static final int BYTES = 1024;

    private final ByteBuffer buffer;
    private final int slot;
    private IpPacket ipPacket;
    private boolean live;
    private long number;
    /** What its strategy keeps with a packet that may be released on another thread (see {@link #handle}). */
    private Object handle;

    /** A heap packet: its own byte array. */
    public static Packet onHeap() {
        return new Packet(ByteBuffer.wrap(new byte[BYTES]), -1);
    }

    /** A packet over {@code buffer}, which is in slot number {@code slot} of its strategy's table. */
    public Packet(ByteBuffer buffer, int slot) {
        this.buffer = buffer;
        this.slot = slot;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    /** The slot of this packet's memory in its strategy's table (a slab's, or the Netty buffers'); -1 for none. */
    public int slot() {
        return slot;
    }

    public IpPacket ipPacket() {
        return ipPacket;
    }

    void setIpPacket(IpPacket ipPacket) {
        this.ipPacket = ipPacket;
    }

    /** The packet's number in the run, set by the {@code random} source (see {@link RandomSource}). */
    public long number() {
        return number;
    }

    void setNumber(long number) {
        this.number = number;
    }

    /**
     * The strategy's handle on the packet's memory where no table of the strategy's can find it: the Netty
     * buffer of a hand-off run's packet, or the Recycler's handle of a recycled packet; null for the rest.
     */
    public Object handle() {
        return handle;
    }

    public void setHandle(Object handle) {
        this.handle = handle;
    }

    public boolean isLive() {
        return live;
    }

    public void setLive(boolean live) {
        this.live = live;
    }

    /** Drops the parse results: called when the packet is freed. */
    public void reset() {
        ipPacket = null;
    }
}
