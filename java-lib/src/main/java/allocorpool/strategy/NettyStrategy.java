package allocorpool.strategy;

import allocorpool.model.Packet;
import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * The buffers servers use, from Netty (netty-buffer):
 *
 * <ul>
 *   <li>netty-pooled-heap, netty-pooled-direct: each packet's bytes from
 *       {@link PooledByteBufAllocator} (size-classed runs of large chunks in arenas, with a
 *       per-thread cache), on the heap or in direct memory;
 *   <li>netty-unpooled: from {@link UnpooledByteBufAllocator}, a new heap array each time.
 * </ul>
 *
 * <p>One allocator of each kind serves the process, as {@code ByteBufAllocator.DEFAULT} serves a
 * server. Each acquire allocates a {@link ByteBuf} and makes a new {@link Packet} over an NIO
 * view of its bytes ({@link ByteBuf#nioBuffer}): the model fills and parses a
 * {@link java.nio.ByteBuffer} as with every other strategy, and the packet object and its view
 * are allocated per packet, as native-alloc's are. Release gives the buffer back through its
 * reference count.
 *
 * <p>Accounting is exact, buffer by buffer. The packet carries the slot of its buffer in a
 * {@link ByteBufSlots} table. Releasing a packet twice throws (its live mark); a release that
 * does not free the buffer (someone retained it) throws as a leak. {@link #counts} gives the
 * buffers allocated, released and held; Run checks that allocated = released + held and that
 * the processor holds exactly the held ones, so a packet dropped without release fails the run.
 *
 * <p>Settings, each left to a {@code -D} given on the command line: Netty's leak detector is off
 * ({@code io.netty.leakDetection.level}), since the count above covers every buffer and its
 * sampled trackers add weak references and stack traces that are not the allocator's cost. The
 * processing thread stands for one of Netty's event-loop threads, which always have an allocator
 * cache and recycle Netty's buffer objects through a thread-local batch; a plain thread has
 * neither by default, so the pooled allocator is made with a cache for every thread and
 * {@code io.netty.recycler.batchFastThreadLocalOnly} is false. Everything else is Netty's
 * default (arenas, page and chunk sizes, cache sizes), with at least one arena of each kind so
 * that a small heap never falls back to unpooled buffers.
 */
public final class NettyStrategy implements BufferStrategy {
    static final String LEAK_LEVEL = "io.netty.leakDetection.level";
    static final String RECYCLER_BATCH = "io.netty.recycler.batchFastThreadLocalOnly";

    static {
        // Read when Netty's classes initialise: set before the first of them is touched.
        defaultProperty(LEAK_LEVEL, "disabled");
        defaultProperty(RECYCLER_BATCH, "false");
    }

    private final String name;
    private final ByteBufAllocator allocator;
    private final boolean direct;
    private final ByteBufSlots slots = new ByteBufSlots();
    private long allocated;
    private long released;

    private NettyStrategy(String name, ByteBufAllocator allocator, boolean direct) {
        this.name = name;
        this.allocator = allocator;
        this.direct = direct;
    }

    /** The strategy named netty-pooled-heap, netty-pooled-direct or netty-unpooled. */
    static NettyStrategy create(String name) {
        switch (name) {
            case "netty-pooled-heap":
                return new NettyStrategy(name, Allocators.POOLED, false);
            case "netty-pooled-direct":
                return new NettyStrategy(name, Allocators.POOLED, true);
            case "netty-unpooled":
                return new NettyStrategy(name, Allocators.UNPOOLED, false);
            default:
                throw new IllegalArgumentException("no Netty strategy " + name);
        }
    }

    @Override
    public Packet acquire() {
        ByteBuf buffer = direct ? allocator.directBuffer(Packet.BYTES, Packet.BYTES)
                : allocator.heapBuffer(Packet.BYTES, Packet.BYTES);
        allocated++;
        Packet packet = new Packet(buffer.nioBuffer(0, Packet.BYTES), slots.put(buffer));
        packet.setLive(true);
        return packet;
    }

    @Override
    public void release(Packet packet) {
        if (!packet.isLive()) {
            throw new RunFailureException(Failure.POOL_ACCOUNTING, name + ": double release (the packet is already free)");
        }
        packet.setLive(false);
        ByteBuf buffer = slots.take(packet.slot());
        if (!buffer.release()) {
            throw new RunFailureException(Failure.POOL_ACCOUNTING, name + ": leak: the buffer is still referenced after its release"
                    + " (reference count " + buffer.refCnt() + ")");
        }
        released++;
    }

    /**
     * The buffers allocated (capacity), released (free) and held now (in use), the last counted
     * afresh slot by slot; throws when a held buffer's reference count is not 1.
     */
    @Override
    public PoolCounts counts() {
        return new PoolCounts(allocated, released, slots.countHeld(name));
    }

    /** The Netty buffer under a packet this strategy handed out and has not taken back. */
    ByteBuf buffer(Packet packet) {
        return slots.get(packet.slot());
    }

    /** The process's pooled allocator (the one {@code netty-pooled-*} strategies and hand-off runs use). */
    static PooledByteBufAllocator pooled() {
        return Allocators.POOLED;
    }

    /** The process's unpooled allocator. */
    static UnpooledByteBufAllocator unpooled() {
        return Allocators.UNPOOLED;
    }

    private static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** The process's allocators, made when the first Netty strategy is. */
    private static final class Allocators {
        static final PooledByteBufAllocator POOLED = new PooledByteBufAllocator(false,
                Math.max(1, PooledByteBufAllocator.defaultNumHeapArena()),
                Math.max(1, PooledByteBufAllocator.defaultNumDirectArena()),
                PooledByteBufAllocator.defaultPageSize(), PooledByteBufAllocator.defaultMaxOrder(),
                PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
                true);
        static final UnpooledByteBufAllocator UNPOOLED = new UnpooledByteBufAllocator(false);
    }
}
