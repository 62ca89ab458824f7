package allocorpool.strategy;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The Netty buffers a {@link NettyStrategy} has handed out and not yet taken back, each in a
 * slot whose number its packet carries ({@link allocorpool.model.Packet#slot}). Free slots are
 * reused, the latest freed first; the table doubles while the fill phase builds up the packets
 * held, and stops growing once that number is steady.
 */
final class ByteBufSlots {
    private static final int INITIAL_SLOTS = 1024;

    private ByteBuf[] buffers = new ByteBuf[INITIAL_SLOTS];
    private int[] freeSlots = new int[INITIAL_SLOTS];
    private int freeCount;
    /** Slots ever used: buffers[0, made) are the held buffers and nulls. */
    private int made;

    /** Holds {@code buffer} in a free slot and returns the slot's number. */
    int put(ByteBuf buffer) {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (made == buffers.length) {
                grow();
            }
            slot = made++;
        }
        buffers[slot] = buffer;
        return slot;
    }

    /** The buffer in {@code slot}, which is free from now on; throws when the slot holds none. */
    ByteBuf take(int slot) {
        ByteBuf buffer = get(slot);
        buffers[slot] = null;
        freeSlots[freeCount++] = slot;
        return buffer;
    }

    /** The buffer in {@code slot}; throws when the slot holds none. */
    ByteBuf get(int slot) {
        ByteBuf buffer = slot >= 0 && slot < made ? buffers[slot] : null;
        if (buffer == null) {
            throw new IllegalStateException("slot " + slot + " holds no buffer");
        }
        return buffer;
    }

    /**
     * The buffers held, counted slot by slot; throws when one's reference count is not 1 (0: it
     * was released while its packet was still in use; more: someone retained it).
     */
    long countHeld(String strategy) {
        long held = 0;
        for (int slot = 0; slot < made; slot++) {
            ByteBuf buffer = buffers[slot];
            if (buffer != null) {
                int references = buffer.refCnt();
                if (references != 1) {
                    throw new IllegalStateException(strategy + ": the buffer in slot " + slot + " has reference count "
                            + references + " while its packet is in use, not 1");
                }
                held++;
            }
        }
        return held;
    }

    private void grow() {
        int length = Math.multiplyExact(buffers.length, 2);
        buffers = Arrays.copyOf(buffers, length);
        freeSlots = Arrays.copyOf(freeSlots, length);
    }
}
