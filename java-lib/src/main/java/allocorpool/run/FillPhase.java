package allocorpool.run;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
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
 * <p>Some slots may be out of the source's reach: the counter source's store indexes cover
 * only 15 of 20 slots at case A x 0.02. So the store also counts as filled once the FIFO is
 * full and no new slot was occupied during the last {@value #STALL_PER_SLOT} x STORED_COUNT
 * packets (some 4 x STORED_COUNT TCP stores; random slots at 95 % occupancy of a 20-slot store
 * miss every free one that long in under 2 % of runs). The summary's store_fill_at_window
 * says how full it got.
 *
 * <p>A fill that does not finish by its deadline is an error: the run ends with status
 * "error" and says how far the fill got.
 */
final class FillPhase {
    private static final int PACKETS_PER_CHECK = 1024;
    static final int STALL_PER_SLOT = 64;

    private final Processor processor;
    private final int fifoTarget;
    private final long storeTarget;
    private final long stallPackets;
    private long lastStored;
    private long packetsSinceGrowth;
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
        this.stallPackets = (long) STALL_PER_SLOT * params.storedCount;
    }

    /** Runs the fill; throws IllegalStateException when it is not done by {@code deadline} (nanoTime). */
    void run(PacketLoop loop, long deadline, String deadlineRule) {
        startNanos = System.nanoTime();
        while (!filled()) {
            for (int i = 0; i < PACKETS_PER_CHECK && !filled(); i++) {
                loop.step();
                packets++;
                long stored = processor.stored();
                if (stored > lastStored || processor.queued() < fifoTarget) {
                    lastStored = stored;
                    packetsSinceGrowth = 0;
                } else {
                    packetsSinceGrowth++;
                }
            }
            endNanos = System.nanoTime();
            if (!filled() && endNanos - deadline > 0) {
                throw new RunFailureException(Failure.FILL_TIMEOUT, String.format(
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
        return processor.queued() >= fifoTarget
                && (processor.stored() >= storeTarget || packetsSinceGrowth >= stallPackets);
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
