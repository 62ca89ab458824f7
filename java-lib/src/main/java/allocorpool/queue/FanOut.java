package allocorpool.queue;

import java.util.Arrays;

/**
 * One clock feeding several consumers, one queue each (real time with several processing threads):
 * the clock's tick i goes to consumer {@code i % n} as that consumer's tick {@code i / n}. Each
 * consumer's queue numbers its ticks 0, 1, 2, ... as a lone consumer's does, at n times the clock's
 * interval, so its {@link QueueTickSource} accounts for them as it would alone.
 *
 * <p>Each consumer finishes its own source, on its own thread: the first to finish stops the clock,
 * each drains its own queue, and whichever joins first joins the clock thread (which ends once every
 * queue is finished) and keeps every queue's counts for the others.
 */
public final class FanOut {
    private final TickProducer clock;
    private final int consumers;
    private long[] counts;

    private FanOut(TickProducer clock, int consumers) {
        this.clock = clock;
        this.consumers = consumers;
    }

    /**
     * The consumers' sources over {@code queues}, fed in turn by {@code clock} (whose join returns
     * four counts per queue) every {@code intervalNs}.
     */
    static TickSource[] sources(TickProducer clock, DualArrayQueue[] queues, long intervalNs, NanoClock time) {
        FanOut fanOut = new FanOut(clock, queues.length);
        TickSource[] sources = new TickSource[queues.length];
        for (int k = 0; k < queues.length; k++) {
            sources[k] = new QueueTickSource(queues[k], fanOut.new Share(k), intervalNs * queues.length, time);
        }
        return sources;
    }

    private synchronized long[] join() {
        if (counts == null) {
            counts = clock.join();
            if (counts.length != 4 * consumers) {
                throw new IllegalStateException("the clock returned " + counts.length + " counts for " + consumers
                        + " queues, not 4 each");
            }
        }
        return counts;
    }

    /** Consumer k's view of the clock. */
    private final class Share implements TickProducer {
        private final int k;

        Share(int k) {
            this.k = k;
        }

        @Override
        public void stop() {
            clock.stop();
        }

        @Override
        public long latenessNs(long tick) {
            return clock.latenessNs(tick * consumers + k);
        }

        @Override
        public long[] join() {
            return Arrays.copyOfRange(FanOut.this.join(), 4 * k, 4 * k + 4);
        }
    }
}
