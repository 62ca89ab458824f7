package allocorpool.strategy;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.model.Packet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pool of heap packets shared by every processing thread: the shared-pool strategy. POOL_SIZE
 * packets are made up front; running out is an error, as with pool.
 *
 * <p>The free packets form a lock-free stack (Treiber's): each packet has a number, {@code next}
 * links a free packet to the one below it, and one atomic word holds the top's number with a stamp
 * that every change increments. A thread takes or gives back with one compare-and-set of that word,
 * retried when another thread changed it first; the stamp makes a word seen before and after another
 * thread's take and give-back differ (the ABA problem). Last in, first out, as the per-thread pools
 * are, so that the strategies differ in the sharing alone: with one thread it measures what the
 * atomic updates cost where nothing contends, with several what contention on one word adds.
 *
 * <p>Each thread takes and gives back through its own {@link #view}, which counts the packets it
 * holds, so that counting costs no shared write. Accounting is exact: a packet's live mark catches
 * a double release, and {@link View#counts} (read once the threads have stopped) checks the free
 * packets plus those the views hold against the packets made.
 */
public final class SharedPool {
    private static final int EMPTY = -1;

    private final Packet[] packets;
    private final int[] next;
    /** The stamp (high 32 bits) and the top free packet's number (low 32 bits, EMPTY when none is free). */
    private final AtomicLong top = new AtomicLong();
    private final List<View> views = new ArrayList<>();

    public SharedPool(int capacity) {
        packets = new Packet[capacity];
        next = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            packets[i] = new Packet(ByteBuffer.wrap(new byte[Packet.BYTES]), i);
            next[i] = i - 1;
        }
        top.set(word(0, capacity - 1));
    }

    private static long word(long stamp, int index) {
        return (stamp << 32) | (index & 0xFFFFFFFFL);
    }

    private Packet pop() {
        while (true) {
            long seen = top.get();
            int index = (int) seen;
            if (index == EMPTY) {
                return null;
            }
            if (top.compareAndSet(seen, word((seen >>> 32) + 1, next[index]))) {
                return packets[index];
            }
        }
    }

    private void push(Packet packet) {
        int index = packet.slot();
        while (true) {
            long seen = top.get();
            next[index] = (int) seen;
            if (top.compareAndSet(seen, word((seen >>> 32) + 1, index))) {
                return;
            }
        }
    }

    /** A new thread's door to the pool. Views are made before the threads start. */
    public synchronized View view() {
        View view = new View();
        views.add(view);
        return view;
    }

    /** The pool's counts over every view: packets made, free and held. Exact once the threads stopped. */
    synchronized PoolCounts counts() {
        long free = 0;
        for (int i = (int) top.get(); i != EMPTY; i = next[i]) {
            free++;
        }
        long inUse = 0;
        for (View view : views) {
            inUse += view.inUse;
        }
        return new PoolCounts(packets.length, free, inUse);
    }

    /** One thread's strategy over the shared pool. */
    public final class View implements BufferStrategy {
        private long inUse;

        private View() {}

        @Override
        public Packet acquire() {
            Packet packet = pop();
            if (packet == null) {
                throw new RunFailureException(Failure.POOL_EXHAUSTED, "shared-pool exhausted: all " + packets.length
                        + " packets are in use (the pool must hold at least internal_queue_size + stored_count"
                        + " packets)");
            }
            packet.setLive(true);
            inUse++;
            return packet;
        }

        @Override
        public void release(Packet packet) {
            if (!packet.isLive()) {
                throw new RunFailureException(Failure.POOL_ACCOUNTING,
                        "shared-pool: double release (the packet is already free)");
            }
            packet.setLive(false);
            packet.reset();
            inUse--;
            push(packet);
        }

        /** The whole pool's counts (see {@link SharedPool#counts}): the same from every view. */
        @Override
        public PoolCounts counts() {
            return SharedPool.this.counts();
        }
    }
}
