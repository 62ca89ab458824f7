package allocorpool.strategy;

import allocorpool.model.Packet;

/**
 * Heap packets for the pool and mix strategies: each one is a new byte array; the
 * factory counts the packets it made and not yet dropped, which is the pool's capacity.
 */
final class HeapPackets implements PacketFactory {
    private long owned;

    @Override
    public Packet create() {
        owned++;
        return Packet.onHeap();
    }

    @Override
    public void destroy(Packet packet) {
        owned--;
    }

    @Override
    public long capacity() {
        return owned;
    }

    @Override
    public long spare() {
        return 0;
    }
}
