package allocorpool.strategy;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.model.Packet;
import java.nio.ByteBuffer;

/**
 * Off-heap packet memory: {@code slots * 1024} bytes of direct buffers whose slots are
 * handed out by number from a stack of free slot numbers, so that no direct buffer is
 * ever allocated or freed while the test runs (allocateDirect is slow and its memory is
 * freed through a Cleaner).
 *
 * <p>A direct buffer holds at most 2 GiB (its capacity is an int), so the slab is cut into
 * chunks of {@link #CHUNK_SLOTS} slots (1 GiB): slot s lives in chunk {@code s / CHUNK_SLOTS}.
 * Up to a million slots that is one buffer, as before; ten million are ten buffers.
 *
 * <p>{@link #create} wraps a free slot in a new {@link Packet} over a new slice of the
 * buffer: the Java objects are allocated, the packet memory is not.
 */
final class NativeSlab implements PacketFactory {
    /** Slots per direct buffer: 2^20 slots of 1 KiB, 1 GiB. */
    static final int CHUNK_SLOTS = 1 << 20;

    private final int chunkShift;
    private final int chunkMask;
    private final ByteBuffer[] cursors;
    private final int[] freeSlots;
    private final boolean[] isFree;
    private int freeCount;

    NativeSlab(int slots) {
        this(slots, CHUNK_SLOTS);
    }

    /** A slab of chunks of {@code chunkSlots} slots (a power of two; tests use small ones). */
    NativeSlab(int slots, int chunkSlots) {
        if (slots <= 0 || Integer.bitCount(chunkSlots) != 1 || chunkSlots > Integer.MAX_VALUE / Packet.BYTES) {
            throw new IllegalArgumentException("slots " + slots + " > 0 and chunk slots " + chunkSlots
                    + ", a power of two up to " + Integer.MAX_VALUE / Packet.BYTES);
        }
        this.chunkShift = Integer.numberOfTrailingZeros(chunkSlots);
        this.chunkMask = chunkSlots - 1;
        this.cursors = new ByteBuffer[(slots + chunkSlots - 1) >>> chunkShift];
        for (int c = 0; c < cursors.length; c++) {
            int inChunk = Math.min(chunkSlots, slots - (c << chunkShift));
            cursors[c] = ByteBuffer.allocateDirect(inChunk * Packet.BYTES);
        }
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
            throw new RunFailureException(Failure.POOL_EXHAUSTED, "native buffer exhausted: all " + freeSlots.length
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
            throw new RunFailureException(Failure.POOL_ACCOUNTING,
                    "slot " + slot + " given back twice or not from this buffer");
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

    /** How many direct buffers hold the slots. */
    int chunks() {
        return cursors.length;
    }

    /** A new buffer over one slot (ByteBuffer.slice(index, length) is JDK 13+). */
    private ByteBuffer slice(int slot) {
        ByteBuffer cursor = cursors[slot >>> chunkShift];
        int offset = (slot & chunkMask) * Packet.BYTES;
        cursor.limit(offset + Packet.BYTES).position(offset);
        return cursor.slice();
    }
}
