package allocorpool.strategy;

import allocorpool.model.Packet;

/**
 * Where packets come from and go back to: the one thing the strategies of the study
 * differ in. The processing thread is the only caller (no locking).
 */
public interface BufferStrategy {
    /** A packet to fill; throws {@link IllegalStateException} when a fixed pool is exhausted. */
    Packet acquire();

    /** Gives a packet back; pools throw {@link IllegalStateException} on a double release. */
    void release(Packet packet);

    /** The pool's counts, or null for strategies without one (dummy, alloc). */
    PoolCounts counts();
}
