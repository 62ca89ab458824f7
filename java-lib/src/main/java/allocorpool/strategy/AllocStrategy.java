package allocorpool.strategy;

import allocorpool.model.Packet;

/**
 * Plain allocation: a new heap packet (and its 1024-byte array) for every acquire;
 * a released packet is left to the garbage collector.
 */
public final class AllocStrategy implements BufferStrategy {
    @Override
    public Packet acquire() {
        return Packet.onHeap();
    }

    @Override
    public void release(Packet packet) {
        // The garbage collector reclaims it.
    }

    @Override
    public PoolCounts counts() {
        return null;
    }
}
