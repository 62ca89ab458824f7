package allocorpool.strategy;

/**
 * A snapshot of a pool's accounting. Every packet (or native slot) the pool owns is
 * either free or in use, so {@code free + inUse == capacity} always holds, and after a
 * run {@code inUse} equals the packets the processor still holds.
 *
 * <p>What is counted: pool and native-pool, the preallocated packets; mix, the packets
 * it currently owns (its pool plus those allocated when it was empty, minus those
 * dropped because they did not fit back); native-alloc and native-mix, the slots of
 * the direct buffer (a free slot is on the free-slot stack or in a pooled packet); the
 * netty strategies, the buffers allocated over the run (capacity), released (free) and held
 * (in use), so that the check says every buffer allocated was released or is still held.
 */
public final class PoolCounts {
    public final long capacity;
    public final long free;
    public final long inUse;

    public PoolCounts(long capacity, long free, long inUse) {
        this.capacity = capacity;
        this.free = free;
        this.inUse = inUse;
    }

    public boolean balanced() {
        return free + inUse == capacity;
    }

    @Override
    public String toString() {
        return "capacity " + capacity + ", free " + free + ", in use " + inUse;
    }
}
