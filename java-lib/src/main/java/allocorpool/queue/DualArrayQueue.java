package allocorpool.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The memory of the dual-array single-producer/single-consumer queue (see native-queue's
 * README): two arrays of {@code size} native-order ints in one direct buffer, and a
 * 64-byte-aligned control block whose {@code read_limit} (offset 0) and {@code done}
 * (offset 64) words sit in separate cache lines.
 *
 * <p>The shared words are only touched through a VarHandle with acquire/release, which
 * pairs with the C++ side's std::atomic_ref; the slots themselves are plain, published by
 * the release store of {@code read_limit}.
 */
public final class DualArrayQueue {
    static final int READ_LIMIT_OFFSET = 0;
    static final int DONE_OFFSET = 64;
    static final int CONTROL_BYTES = 128;
    private static final int CACHE_LINE = 64;

    private static final VarHandle INT =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    final ByteBuffer slots;
    final ByteBuffer control;
    final int size;

    private DualArrayQueue(int size) {
        if (size <= 0 || size > Integer.MAX_VALUE / 8) {
            throw new IllegalArgumentException("queue size must be in 1.." + Integer.MAX_VALUE / 8 + ", got " + size);
        }
        this.size = size;
        this.slots = ByteBuffer.allocateDirect(2 * size * Integer.BYTES).order(ByteOrder.nativeOrder());
        this.control = ByteBuffer.allocateDirect(CONTROL_BYTES + CACHE_LINE)
                .alignedSlice(CACHE_LINE)
                .order(ByteOrder.nativeOrder());
    }

    /** A queue of two arrays of {@code size} slots each, both shared words zero. */
    public static DualArrayQueue allocate(int size) {
        return new DualArrayQueue(size);
    }

    /** The capacity that holds {@code delayMs} of ticks at {@code intervalNs}: the design's MAX_CAPTURING_DELAY_MS. */
    public static int capacityFor(long delayMs, long intervalNs) {
        if (intervalNs <= 0) {
            throw new IllegalArgumentException("interval must be positive, got " + intervalNs);
        }
        long slots = delayMs * 1_000_000L / intervalNs;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE / 8, slots));
    }

    public int size() {
        return size;
    }

    int readLimitAcquire() {
        return (int) INT.getAcquire(control, READ_LIMIT_OFFSET);
    }

    void readLimitRelease(int value) {
        INT.setRelease(control, READ_LIMIT_OFFSET, value);
    }

    boolean doneAcquire() {
        return (int) INT.getAcquire(control, DONE_OFFSET) != 0;
    }

    void doneRelease() {
        INT.setRelease(control, DONE_OFFSET, 1);
    }

    int slot(int array, int index) {
        return slots.getInt((array * size + index) * Integer.BYTES);
    }

    void putSlot(int array, int index, int value) {
        slots.putInt((array * size + index) * Integer.BYTES, value);
    }
}
