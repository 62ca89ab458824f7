package allocorpool.strategy;

import allocorpool.model.Packet;
import io.netty.util.Recycler;
import java.nio.ByteBuffer;

/**
 * netty-recycler: the packet objects, each with its own heap array, from Netty's {@link Recycler}:
 * a per-thread stack of recycled objects, which takes back an object released on another thread
 * through a queue of that thread's (the hand-off run's case). Recycler keeps at most its per-thread
 * capacity ({@code io.netty.recycler.maxCapacityPerThread}, 4,096 by default) and drops the rest to
 * the collector, so that with a live set past it the strategy is partly allocation.
 *
 * <p>Accounting is exact, as the other Netty strategies': the packet's live mark catches a double
 * release, and {@link #counts} gives the packets acquired (capacity), released (free) and not yet
 * released (in use), which Run checks against the packets the processor holds.
 */
public final class RecyclerStrategy implements BufferStrategy {
    /** One Recycler for the process, as Netty keeps one per recycled class. */
    private static final Recycler<Packet> RECYCLER = new Recycler<Packet>() {
        @Override
        protected Packet newObject(Handle<Packet> handle) {
            Packet packet = new Packet(ByteBuffer.wrap(new byte[Packet.BYTES]), -1);
            packet.setHandle(handle);
            return packet;
        }
    };

    private long acquired;
    private long released;

    @Override
    public Packet acquire() {
        acquired++;
        return take();
    }

    @Override
    public void release(Packet packet) {
        recycle(packet);
        released++;
    }

    /** Gives the packet back to the Recycler from any thread; throws on a double release. */
    static void recycle(Packet packet) {
        if (!packet.isLive()) {
            throw new IllegalStateException("netty-recycler: double release (the packet is already free)");
        }
        packet.setLive(false);
        packet.reset();
        @SuppressWarnings("unchecked")
        Recycler.Handle<Packet> handle = (Recycler.Handle<Packet>) packet.handle();
        handle.recycle(packet);
    }

    /** A packet from the Recycler, marked live (from any thread). */
    static Packet take() {
        Packet packet = RECYCLER.get();
        if (packet.isLive()) {
            throw new IllegalStateException("netty-recycler: the Recycler handed out a packet still in use");
        }
        packet.setLive(true);
        return packet;
    }

    @Override
    public PoolCounts counts() {
        return new PoolCounts(acquired, released, acquired - released);
    }
}
