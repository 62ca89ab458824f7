package allocorpool.strategy;

import allocorpool.model.Packet;
import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.Arrays;
import java.util.List;

/**
 * The buffers of a hand-off run (--handoff): one producer thread acquires every packet, N workers
 * release them, so that every release is on another thread than its packet's acquire. The strategies
 * that can do that:
 *
 * <ul>
 *   <li>alloc: a new heap packet per acquire, left to the collector;
 *   <li>shared-pool: the lock-free {@link SharedPool}, the producer's view taking, the workers' giving back;
 *   <li>netty-pooled-heap, netty-pooled-direct: a buffer from the process's {@link PooledByteBufAllocator}
 *       on the producer (its thread cache), released by its reference count on a worker, which gives
 *       the memory back to the arena it came from (Netty's thread caches keep only their own thread's);
 *   <li>netty-recycler: packet objects from Netty's Recycler, recycled across threads through the
 *       producer's queue for each worker.
 * </ul>
 *
 * <p>Accounting is exact across threads and costs no shared write: the producer's door counts its
 * acquires, each worker's door its releases; every release checks the packet's live mark (a double
 * release throws) and a Netty buffer's release must free it (a retained buffer throws as a leak).
 * {@link #counts} (read once the threads stopped) checks acquired = released + held.
 */
public final class HandoffBuffers {
    public static final List<String> NAMES = List.of(
            "alloc", "shared-pool", "netty-pooled-heap", "netty-pooled-direct", "netty-recycler");

    /** One thread's side of the memory: how a packet is made and how it is given back. */
    private interface Memory {
        Packet acquire();

        void release(Packet packet);
    }

    private final String name;
    private final Producer producer;
    private final Worker[] workers;

    private HandoffBuffers(String name, Memory producerSide, Memory[] workerSides) {
        this.name = name;
        this.producer = new Producer(producerSide);
        this.workers = new Worker[workerSides.length];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(workerSides[i]);
        }
    }

    /**
     * The buffers named {@code name} for one producer and {@code workers} workers; the shared pool holds
     * {@code poolSize} packets. Throws naming the valid names for any other.
     */
    public static HandoffBuffers create(String name, int poolSize, int workers) {
        Memory[] sides = new Memory[workers];
        switch (name) {
            case "alloc":
                Arrays.fill(sides, new AllocMemory());
                return new HandoffBuffers(name, new AllocMemory(), sides);
            case "shared-pool":
                SharedPool pool = new SharedPool(poolSize);
                for (int i = 0; i < workers; i++) {
                    sides[i] = new ViewMemory(pool.view());
                }
                return new HandoffBuffers(name, new ViewMemory(pool.view()), sides);
            case "netty-pooled-heap":
            case "netty-pooled-direct":
                NettyMemory netty = new NettyMemory(name, NettyStrategy.pooled(), name.endsWith("direct"));
                Arrays.fill(sides, netty);
                return new HandoffBuffers(name, netty, sides);
            case "netty-recycler":
                Arrays.fill(sides, new RecyclerMemory());
                return new HandoffBuffers(name, new RecyclerMemory(), sides);
            default:
                throw new IllegalArgumentException("no hand-off strategy " + name + "; valid: " + String.join(", ", NAMES));
        }
    }

    /** The producer's door: acquire only. */
    public BufferStrategy producer() {
        return producer;
    }

    /** Worker {@code index}'s door: release only. */
    public BufferStrategy worker(int index) {
        return workers[index];
    }

    /**
     * Packets acquired (capacity), released (free) and {@code held} by the workers now (in use), checked:
     * throws when acquired != released + held. Read once every thread stopped.
     */
    public PoolCounts counts(long held) {
        long released = 0;
        for (Worker worker : workers) {
            released += worker.released;
        }
        PoolCounts counts = new PoolCounts(producer.acquired, released, held);
        if (!counts.balanced()) {
            throw new RunFailureException(Failure.POOL_ACCOUNTING, name + ": hand-off accounting is off: " + counts
                    + " (acquired must be released + held)");
        }
        return counts;
    }

    private static final class Producer implements BufferStrategy {
        private final Memory memory;
        long acquired;

        Producer(Memory memory) {
            this.memory = memory;
        }

        @Override
        public Packet acquire() {
            Packet packet = memory.acquire();
            acquired++;
            return packet;
        }

        @Override
        public void release(Packet packet) {
            throw new IllegalStateException("the hand-off producer does not release packets");
        }

        @Override
        public PoolCounts counts() {
            return null;
        }
    }

    private static final class Worker implements BufferStrategy {
        private final Memory memory;
        long released;

        Worker(Memory memory) {
            this.memory = memory;
        }

        @Override
        public Packet acquire() {
            throw new IllegalStateException("a hand-off worker does not acquire packets");
        }

        @Override
        public void release(Packet packet) {
            memory.release(packet);
            released++;
        }

        @Override
        public PoolCounts counts() {
            return null;
        }
    }

    private static void markFree(String name, Packet packet) {
        if (!packet.isLive()) {
            throw new IllegalStateException(name + ": double release (the packet is already free)");
        }
        packet.setLive(false);
    }

    private static final class AllocMemory implements Memory {
        @Override
        public Packet acquire() {
            Packet packet = Packet.onHeap();
            packet.setLive(true);
            return packet;
        }

        @Override
        public void release(Packet packet) {
            markFree("alloc", packet);
        }
    }

    private static final class ViewMemory implements Memory {
        private final SharedPool.View view;

        ViewMemory(SharedPool.View view) {
            this.view = view;
        }

        @Override
        public Packet acquire() {
            return view.acquire();
        }

        @Override
        public void release(Packet packet) {
            view.release(packet);
        }
    }

    private static final class NettyMemory implements Memory {
        private final String name;
        private final PooledByteBufAllocator allocator;
        private final boolean direct;

        NettyMemory(String name, PooledByteBufAllocator allocator, boolean direct) {
            this.name = name;
            this.allocator = allocator;
            this.direct = direct;
        }

        @Override
        public Packet acquire() {
            ByteBuf buffer = direct ? allocator.directBuffer(Packet.BYTES, Packet.BYTES)
                    : allocator.heapBuffer(Packet.BYTES, Packet.BYTES);
            Packet packet = new Packet(buffer.nioBuffer(0, Packet.BYTES), -1);
            packet.setHandle(buffer);
            packet.setLive(true);
            return packet;
        }

        @Override
        public void release(Packet packet) {
            markFree(name, packet);
            ByteBuf buffer = (ByteBuf) packet.handle();
            packet.setHandle(null);
            if (!buffer.release()) {
                throw new IllegalStateException(name + ": leak: the buffer is still referenced after its release"
                        + " (reference count " + buffer.refCnt() + ")");
            }
        }
    }

    private static final class RecyclerMemory implements Memory {
        @Override
        public Packet acquire() {
            return RecyclerStrategy.take();
        }

        @Override
        public void release(Packet packet) {
            RecyclerStrategy.recycle(packet);
        }
    }
}
