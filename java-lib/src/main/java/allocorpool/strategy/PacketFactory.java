package allocorpool.strategy;

import allocorpool.model.Packet;

/**
 * What a {@link StackPoolStrategy} makes its packets from: heap arrays or the slots of a
 * {@link NativeSlab}. It owns the capacity side of the pool's accounting.
 */
interface PacketFactory {
    /** A new packet; throws {@link IllegalStateException} when nothing is left to make it from. */
    Packet create();

    /** Gives back what a packet was made from (nothing for heap packets). */
    void destroy(Packet packet);

    /** Packets (heap) or slots (native) this factory accounts for. */
    long capacity();

    /** Of {@link #capacity}, what no packet holds (always 0 for heap packets). */
    long spare();
}
