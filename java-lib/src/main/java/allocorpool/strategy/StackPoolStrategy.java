package allocorpool.strategy;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.model.Packet;

/**
 * A pool as a stack of free packets, the original's single pooling class for every
 * pooled strategy; only its size, its packet factory and whether it may grow differ:
 *
 * <ul>
 *   <li>pool: POOL_SIZE heap packets made up front; running out is an error;
 *   <li>mix: MIX_POOL_SIZE heap packets; when empty it allocates, and a released packet
 *       that does not fit back is dropped to the garbage collector;
 *   <li>native-pool / native-mix: the same over slots of a {@link NativeSlab}; a dropped
 *       packet gives its slot back;
 *   <li>native-alloc: a pool of no packets over a slab: every acquire makes a new Packet
 *       around a free slot, every release gives the slot back.
 * </ul>
 *
 * <p>Accounting is exact: each packet carries a live mark (a release of a packet that is
 * not live throws) and {@link #counts} checks free + in use against the factory's
 * capacity.
 */
public final class StackPoolStrategy implements BufferStrategy {
    private final String name;
    private final PacketFactory factory;
    private final boolean growable;
    private final Packet[] stack;
    private int size;
    private long inUse;

    StackPoolStrategy(String name, PacketFactory factory, int poolSize, boolean growable) {
        this.name = name;
        this.factory = factory;
        this.growable = growable;
        this.stack = new Packet[poolSize];
        for (int i = 0; i < poolSize; i++) {
            stack[i] = factory.create();
        }
        this.size = poolSize;
    }

    @Override
    public Packet acquire() {
        Packet packet;
        if (size > 0) {
            packet = stack[--size];
            stack[size] = null;
        } else if (growable) {
            packet = factory.create();
        } else {
            throw new RunFailureException(Failure.POOL_EXHAUSTED, name + " exhausted: all " + stack.length
                    + " packets are in use (the pool must hold at least internal_queue_size"
                    + " + stored_count packets)");
        }
        packet.setLive(true);
        inUse++;
        return packet;
    }

    @Override
    public void release(Packet packet) {
        if (!packet.isLive()) {
            throw new RunFailureException(Failure.POOL_ACCOUNTING,
                    name + ": double release (the packet is already free)");
        }
        packet.setLive(false);
        inUse--;
        if (size < stack.length) {
            packet.reset();
            stack[size++] = packet;
        } else {
            factory.destroy(packet);
        }
    }

    @Override
    public PoolCounts counts() {
        return new PoolCounts(factory.capacity(), size + factory.spare(), inUse);
    }
}
