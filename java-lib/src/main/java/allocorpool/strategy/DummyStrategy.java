package allocorpool.strategy;

import allocorpool.model.Packet;

/**
 * The cost of the test itself: one packet reused for everything, release does nothing.
 * What this strategy measures is the framework (filling, queueing, parsing), not memory
 * management.
 */
public final class DummyStrategy implements BufferStrategy {
    private final Packet packet = Packet.onHeap();

    @Override
    public Packet acquire() {
        return packet;
    }

    @Override
    public void release(Packet packet) {
        // The one packet stays in use everywhere.
    }

    @Override
    public PoolCounts counts() {
        return null;
    }
}
