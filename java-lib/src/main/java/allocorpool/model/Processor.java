package allocorpool.model;

import allocorpool.strategy.BufferStrategy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The packet processor: an internal FIFO that keeps INTERNAL_QUEUE_SIZE packets alive,
 * then parsing of the oldest one, and a store of STORED_COUNT TCP packets (a stand-in
 * for a TCP stream reconstructor) with random replacement.
 *
 * <p>Parsing allocates an {@link IpHeader} (with its two {@link Ipv4Address}es), an
 * {@link IpPacket} and a read-only view of the buffer. Non-TCP packets are freed right
 * after parsing; a TCP packet replaces a random slot of the store and the packet it
 * replaces is freed.
 */
public final class Processor {
    private final BufferStrategy strategy;
    private final int queueSize;
    private final ArrayDeque<Packet> fifo;
    private final Packet[] store;
    private final XorShift random;
    private int stored;

    public Processor(BufferStrategy strategy, CaseParams params, long seed) {
        this.strategy = strategy;
        this.queueSize = params.internalQueueSize;
        this.fifo = new ArrayDeque<>(params.internalQueueSize);
        this.store = new Packet[params.storedCount];
        this.random = new XorShift(seed);
    }

    /** Queues a filled packet; once the FIFO is full, processes the oldest one. */
    public void accept(Packet packet) {
        fifo.addLast(packet);
        if (fifo.size() >= queueSize) {
            process(fifo.removeFirst());
        }
    }

    private void process(Packet packet) {
        ByteBuffer buffer = packet.buffer();
        if (buffer.getInt() != DataSource.IP) {
            strategy.release(packet);
            return;
        }
        IpHeader header = new IpHeader(buffer);
        packet.setIpPacket(new IpPacket(header, buffer.asReadOnlyBuffer()));
        if (header.protocol == DataSource.TCP) {
            int index = random.nextInt(store.length);
            Packet old = store[index];
            store[index] = packet;
            if (old == null) {
                stored++;
            } else {
                strategy.release(old);
            }
        } else {
            strategy.release(packet);
        }
    }

    /** Packets held right now: in the FIFO plus in the store. */
    public int held() {
        return fifo.size() + stored;
    }
}
