package allocorpool.run;

import allocorpool.model.CaseParams;
import allocorpool.model.PacketLoop;
import allocorpool.model.Processor;

/**
 * Warm-up by work: before the timed phase, the model runs flat out (in both modes, before
 * the real-time clock starts) until the FIFO is full and at least 99 % of the store's
 * slots are occupied, so that the measured window sees the memory of a steady state (the
 * store fills only with the 1-in-16 TCP packets: with random slots, 99 % takes about
 * 4.6 x STORED_COUNT TCP packets, some 74 x STORED_COUNT packets). The dummy strategy
 * waits for the FIFO only (see Strategies.fillsStore).
 *
 * <p>A fill that does not finish by its deadline is an error: the run ends with status
 * "error" and says how far the fill got.
 */
final class FillPhase {
    private static final int PACKETS_PER_CHECK = 1024;

    private final Processor processor;
    private final int fifoTarget;
    private final long storeTarget;
    private final CaseParams params;
    private long packets;
    private long startNanos;
    private long endNanos;
    private boolean done;

    FillPhase(PacketLoop loop, CaseParams params, boolean waitForStore) {
        this.processor = loop.processor();
        this.params = params;
        // Between two packets a full FIFO holds internal_queue_size - 1 (see Processor).
        this.fifoTarget = params.internalQueueSize - 1;
        this.storeTarget = waitForStore ? (99L * params.storedCount + 99) / 100 : 0;
    }

    /** Runs the fill; throws IllegalStateException when it is not done by {@code deadline} (nanoTime). */
    void run(PacketLoop loop, long deadline, String deadlineRule) {
        startNanos = System.nanoTime();
        while (!filled()) {
            for (int i = 0; i < PACKETS_PER_CHECK && !filled(); i++) {
                loop.step();
                packets++;
            }
            endNanos = System.nanoTime();
            if (!filled() && endNanos - deadline > 0) {
                throw new IllegalStateException(String.format(
                        "the fill phase did not finish within %s: after %d packets the FIFO holds %d of %d"
                        + " and the store %d of %d slots (the timed phase needs %d and %d)",
                        deadlineRule, packets, processor.queued(), params.internalQueueSize, processor.stored(),
                        params.storedCount, fifoTarget, storeTarget));
            }
        }
        endNanos = System.nanoTime();
        done = true;
    }

    private boolean filled() {
        return processor.queued() >= fifoTarget && processor.stored() >= storeTarget;
    }

    boolean done() {
        return done;
    }

    /** Packets made in the fill phase (so far, if it did not finish). */
    long packets() {
        return packets;
    }

    /** Its length in seconds (so far, if it did not finish). */
    double seconds() {
        return Math.max(0, endNanos - startNanos) / 1e9;
    }
}
