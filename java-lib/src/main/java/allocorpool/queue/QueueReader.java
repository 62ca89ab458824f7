package allocorpool.queue;

/**
 * The consumer side of a {@link DualArrayQueue}: takes the batch the producer published,
 * reads it slot by slot, then hands the array back by storing 0 into {@code read_limit}.
 * Not thread-safe: one consumer thread.
 */
final class QueueReader {
    private final DualArrayQueue queue;
    private final SequenceTracker tracker = new SequenceTracker();
    private int array;
    private int limit;
    private int next;

    QueueReader(DualArrayQueue queue) {
        this.queue = queue;
    }

    /** Takes one tick if one is published; never blocks. */
    boolean poll() {
        if (next == limit) {
            if (limit != 0) {
                // Done with this array: give it back and move to the other one.
                queue.readLimitRelease(0);
                array ^= 1;
                limit = 0;
                next = 0;
            }
            int published = queue.readLimitAcquire();
            if (published == 0) {
                return false;
            }
            limit = published;
        }
        tracker.accept(queue.slot(array, next++));
        return true;
    }

    /**
     * True once the producer has set done and nothing published is left to read. Reading
     * done first (acquire) makes the producer's last publish visible to the check after it.
     */
    boolean finished() {
        return limit == 0 && queue.doneAcquire() && queue.readLimitAcquire() == 0;
    }

    SequenceTracker tracker() {
        return tracker;
    }
}
