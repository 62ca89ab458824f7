package allocorpool.strategy;

import allocorpool.model.Packet;
import java.nio.ByteBuffer;

/**
 * Off-heap packet memory: one direct buffer of {@code slots * 1024} bytes whose slots are
 * handed out by number from a stack of free slot numbers, so that no direct buffer is
 * ever allocated or freed while the test runs (allocateDirect is slow and its memory is
 * freed through a Cleaner).
 *
 * <p>{@link #create} wraps a free slot in a new {@link Packet} over a new slice of the
 * buffer: the Java objects are allocated, the packet memory is not.
 */
final class NativeSlab implements PacketFactory {
    private final ByteBuffer memory;
    private final ByteBuffer cursor;
    private final int[] freeSlots;
    private final boolean[] isFree;
    private int freeCount;

    NativeSlab(int slots) {
        this.memory = ByteBuffer.allocateDirect(Math.multiplyExact(slots, Packet.BYTES));
        this.cursor = memory.duplicate();
        this.freeSlots = new int[slots];
        this.isFree = new boolean[slots];
        // Slot 0 on top: the first packets are the lowest addresses.
        for (int i = 0; i < slots; i++) {
            freeSlots[i] = slots - 1 - i;
            isFree[i] = true;
        }
        this.freeCount = slots;
    }

    @Override
    public Packet create() {
        if (freeCount == 0) {
            throw new IllegalStateException("native buffer exhausted: all " + freeSlots.length
                    + " slots of " + Packet.BYTES + " bytes are in use");
        }
        int slot = freeSlots[--freeCount];
        isFree[slot] = false;
        return new Packet(slice(slot), slot);
    }

    @Override
    public void destroy(Packet packet) {
        int slot = packet.slot();
        if (slot < 0 || slot >= isFree.length || isFree[slot]) {
            throw new IllegalStateException("slot " + slot + " given back twice or not from this buffer");
        }
        isFree[slot] = true;
        freeSlots[freeCount++] = slot;
    }

    @Override
    public long capacity() {
        return freeSlots.length;
    }

    @Override
    public long spare() {
        return freeCount;
    }

    /** A new buffer over one slot (ByteBuffer.slice(index, length) is JDK 13+). */
    private ByteBuffer slice(int slot) {
        int offset = slot * Packet.BYTES;
        cursor.limit(offset + Packet.BYTES).position(offset);
        return cursor.slice();
    }
}
