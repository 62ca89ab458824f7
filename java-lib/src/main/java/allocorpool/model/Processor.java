package allocorpool.model;

import allocorpool.strategy.BufferStrategy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The packet processor: an internal FIFO that keeps INTERNAL_QUEUE_SIZE packets alive,
 * then parsing of the oldest one, and a store of STORED_COUNT TCP packets (a stand-in
 * for a TCP stream reconstructor) whose replaced slot the {@link PacketSource} draws.
 *
 * <p>Parsing allocates an {@link IpHeader} (with its two {@link Ipv4Address}es), an
 * {@link IpPacket} and a read-only view of the buffer. Non-TCP packets are freed right
 * after parsing; a TCP packet replaces a slot of the store and the packet it replaces is
 * freed.
 *
 * <p>A full FIFO holds INTERNAL_QUEUE_SIZE - 1 packets between two packets: the packet that
 * makes it INTERNAL_QUEUE_SIZE pushes the oldest out.
 */
public final class Processor {
    private final BufferStrategy strategy;
    private final PacketSource source;
    private final int queueSize;
    private final ArrayDeque<Packet> fifo;
    private final Packet[] store;
    private int stored;

    public Processor(BufferStrategy strategy, PacketSource source, CaseParams params) {
        this.strategy = strategy;
        this.source = source;
        this.queueSize = params.internalQueueSize;
        this.fifo = new ArrayDeque<>(params.internalQueueSize);
        this.store = new Packet[params.storedCount];
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
        if (buffer.getInt() != PacketSource.IP) {
            strategy.release(packet);
            return;
        }
        IpHeader header = new IpHeader(buffer);
        packet.setIpPacket(new IpPacket(header, buffer.asReadOnlyBuffer()));
        if (header.protocol == PacketSource.TCP) {
            int index = source.storeIndex(packet, store.length);
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

    /**
     * Releases every packet held (the FIFO's and the store's) to the strategy, once the run has counted
     * them: a run ends with nothing of its strategy's in use (Netty's leak detector sees no leak).
     */
    public void releaseAll() {
        while (!fifo.isEmpty()) {
            strategy.release(fifo.removeFirst());
        }
        for (int i = 0; i < store.length; i++) {
            if (store[i] != null) {
                strategy.release(store[i]);
                store[i] = null;
                stored--;
            }
        }
    }

    /** Packets held right now: in the FIFO plus in the store. */
    public int held() {
        return fifo.size() + stored;
    }

    /** Packets in the FIFO right now. */
    public int queued() {
        return fifo.size();
    }

    /** Occupied slots of the store right now. */
    public int stored() {
        return stored;
    }

    /** The packet in store slot {@code index}, or null. */
    Packet storedAt(int index) {
        return store[index];
    }
}
