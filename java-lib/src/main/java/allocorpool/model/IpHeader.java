package allocorpool.model;

import java.nio.ByteBuffer;

/**
 * The parsed IP header of a packet: read from the buffer's current position, it
 * allocates its two address objects. It lives as long as the packet keeps it.
 */
public final class IpHeader {
    public final Ipv4Address source;
    public final Ipv4Address destination;
    public final int sourcePort;
    public final int destinationPort;
    public final int protocol;

    /** Reads the fields {@link PacketSource#write} wrote after the protocol word. */
    public IpHeader(ByteBuffer buffer) {
        this.source = new Ipv4Address(buffer.getInt());
        this.destination = new Ipv4Address(buffer.getInt());
        this.sourcePort = buffer.getShort() & 0xFFFF;
        this.destinationPort = buffer.getShort() & 0xFFFF;
        this.protocol = buffer.getInt();
    }
}
