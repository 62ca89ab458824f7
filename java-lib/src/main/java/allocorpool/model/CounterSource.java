package allocorpool.model;

/**
 * The published code's draws, reproduced exactly: every field of every packet, and the
 * store slot of every TCP packet processed, is the next value of one 31-bit counter
 * modulo its range, in the published order (length first, then the addresses, the ports
 * and the protocol; the store slot when the processor takes the packet off the FIFO).
 *
 * <p>The published Java code counted {@code (++count) & 0x7FFFFFFF}; its C++ used an
 * unsigned 32-bit counter without the mask, which agrees for the first 2^31 draws. Both
 * engines use the 31-bit form so that they make the same packets.
 *
 * <p>What this makes: between two TCP packets processed, each packet takes 6 draws, so the
 * 6th draw (the protocol's) is divisible by 16 for 1 packet in 8 while the store's draws so
 * far are even, and never while they are odd; over a run the TCP share stays near 1 in 16.
 * The store slots advance in small strides (a sweep that caches serve well), not at random.
 * With the dummy strategy the processor parses the packet just filled, which is TCP only
 * while the store's draws are even: after its first TCP packet it sees none.
 */
public final class CounterSource implements PacketSource {
    private int count;

    public CounterSource() {
        this(0);
    }

    /** A counter whose next draw is {@code count + 1} (masked): lets a test reach the wrap. */
    CounterSource(int count) {
        this.count = count;
    }

    private int next() {
        count = (count + 1) & 0x7FFFFFFF;
        return count;
    }

    @Override
    public void fill(Packet packet) {
        int length = MIN_LENGTH + next() % LENGTHS;
        int source = next() % ADDRESSES;
        int destination = next() % ADDRESSES;
        int sourcePort = next() % PORTS;
        int destinationPort = next() % PORTS;
        boolean tcp = next() % TCP_ONE_IN == 0;
        PacketSource.write(packet.buffer(), length, source, destination, sourcePort, destinationPort, tcp);
    }

    @Override
    public int storeIndex(Packet packet, int storedCount) {
        return next() % storedCount;
    }
}
