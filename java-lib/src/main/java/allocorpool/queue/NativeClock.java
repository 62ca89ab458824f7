package allocorpool.queue;

import java.io.File;
import java.nio.ByteBuffer;

/**
 * The thin JNI layer over native-queue's clock thread (libnativequeue.so).
 *
 * <p>The native side writes one sequence number every interval into the slots of a
 * {@link DualArrayQueue}'s direct buffers; everything else (reading, gap counting) is Java.
 *
 * <p>Loading: the system property {@code allocorpool.nativequeue.lib} names the library
 * file to load; without it the library is looked up on {@code java.library.path}.
 */
public final class NativeClock {
    public static final String LIBRARY_PROPERTY = "allocorpool.nativequeue.lib";
    private static final String LIBRARY_NAME = "nativequeue";

    private static volatile boolean loaded;

    private NativeClock() {}

    /** Loads the library once; throws with the paths that were tried when it is missing. */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        String explicit = System.getProperty(LIBRARY_PROPERTY);
        try {
            if (explicit != null && !explicit.isEmpty()) {
                File file = new File(explicit);
                if (!file.isFile()) {
                    throw new UnsatisfiedLinkError(LIBRARY_PROPERTY + "=" + explicit + ": no such file");
                }
                System.load(file.getAbsolutePath());
            } else {
                System.loadLibrary(LIBRARY_NAME);
            }
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalStateException("cannot load the native queue library ("
                    + System.mapLibraryName(LIBRARY_NAME) + "): " + e.getMessage()
                    + "; build it with `make native` and pass -D" + LIBRARY_PROPERTY
                    + "=<path> or -Djava.library.path=<dir> (java.library.path="
                    + System.getProperty("java.library.path") + ")", e);
        }
        loaded = true;
    }

    /**
     * Starts the clock thread.
     *
     * @param slots direct buffer of {@code 2 * size} native-order ints: array 0 then array 1
     * @param control direct buffer of at least 128 bytes, 64-byte aligned: the int
     *     {@code read_limit} at offset 0, the int {@code done} flag at offset 64
     * @param size slots per array
     * @param intervalNs tick interval; 0 means as fast as possible
     * @param producerCpu CPU to pin the clock thread to, or -1 for none
     * @return an opaque handle for {@link #stop} and {@link #join}
     * @throws IllegalArgumentException on a bad buffer, size or CPU
     */
    static native long start(ByteBuffer slots, ByteBuffer control, int size, long intervalNs, int producerCpu);

    /** Asks the clock to stop ticking and publish what it holds; returns at once. */
    static native void stop(long handle);

    /**
     * Waits for the clock thread and frees the handle. The thread ends only after it has
     * published its last batch and set {@code done}, so the consumer must keep reading
     * until it sees {@code done} before calling this.
     *
     * @return {@code {emitted, written, dropped, undelivered}}: ticks produced, ticks
     *     stored in a slot, ticks dropped for lack of room, and ticks stored but never
     *     published because the consumer stopped reading (0 in a clean run)
     */
    static native long[] join(long handle);

    /**
     * How long ago tick {@code tick} (its widened sequence number) was due, in ns, on the clock
     * thread's own schedule; 0 when the clock is not paced (interval 0).
     */
    static native long latenessNs(long handle, long tick);

    /**
     * Starts one clock thread feeding several consumers' queues in turn: tick i goes to queue
     * {@code i % n} as that queue's tick {@code i / n}, so each queue's ticks number 0, 1, 2, ... as a
     * lone queue's do.
     *
     * @param slots each queue's slots, as for {@link #start}
     * @param controls each queue's control block, as for {@link #start}
     * @return an opaque handle for {@link #stopFanOut} and {@link #joinFanOut}
     */
    static native long startFanOut(ByteBuffer[] slots, ByteBuffer[] controls, int size, long intervalNs,
            int producerCpu);

    /** As {@link #stop}, for a fan-out. */
    static native void stopFanOut(long handle);

    /**
     * As {@link #join}, for a fan-out: every queue's {@code {emitted, written, dropped, undelivered}}
     * in turn, 4 x n longs. Every consumer must have read its queue until done first.
     */
    static native long[] joinFanOut(long handle);

    /** As {@link #latenessNs}, of the clock's own tick (tick j of queue k is the clock's tick j * n + k). */
    static native long fanOutLatenessNs(long handle, long tick);

    /** Pins the calling thread to one CPU; returns 0 or the errno of sched_setaffinity. */
    public static native int pinCurrentThread(int cpu);

    /** The TSC frequency the clock calibrated, in ticks per ns (0 where there is no TSC). */
    public static native double tscTicksPerNs();
}
