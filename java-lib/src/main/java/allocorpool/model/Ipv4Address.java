package allocorpool.model;

/**
 * A parsed IPv4 address: one of the small temporary objects that parsing a packet
 * allocates (two per packet), as a real protocol decoder would.
 */
public final class Ipv4Address {
    public final int address;

    public Ipv4Address(int address) {
        this.address = address;
    }
}
