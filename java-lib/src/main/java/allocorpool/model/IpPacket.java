package allocorpool.model;

import java.nio.ByteBuffer;

/**
 * The result of parsing a packet: its header and a read-only view of its buffer (one more
 * object per packet, the way decoders hand payloads on without copying them).
 */
public final class IpPacket {
    public final IpHeader header;
    public final ByteBuffer payload;

    public IpPacket(IpHeader header, ByteBuffer payload) {
        this.header = header;
        this.payload = payload;
    }
}
