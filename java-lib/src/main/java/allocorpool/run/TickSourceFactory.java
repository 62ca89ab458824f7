package allocorpool.run;

import allocorpool.queue.TickSource;
import allocorpool.queue.TickSources;

/**
 * How a real-time run gets its ticks: the native clock in production ({@link #NATIVE}), a Java
 * stand-in in the tests.
 */
@FunctionalInterface
public interface TickSourceFactory {
    /** The native clock: one consumer, or several fed in turn. */
    TickSourceFactory NATIVE = new TickSourceFactory() {
        @Override
        public TickSource open(long intervalNs, int capacity, int producerCpu, int consumerCpu) {
            return TickSources.nativeClock(intervalNs, capacity, producerCpu, consumerCpu);
        }

        @Override
        public TickSource[] openFanOut(long intervalNs, int capacity, int consumers, int producerCpu) {
            return TickSources.nativeFanOut(intervalNs, capacity, consumers, producerCpu);
        }

        @Override
        public void pinConsumer(int cpu) {
            TickSources.pinConsumer(cpu);
        }
    };

    /**
     * Starts a source of one tick per {@code intervalNs} into a queue of {@code capacity}
     * ticks, its producer on {@code producerCpu}; pins the calling thread to
     * {@code consumerCpu} (-1: no pinning).
     */
    TickSource open(long intervalNs, int capacity, int producerCpu, int consumerCpu);

    /**
     * Starts one clock ticking every {@code intervalNs} into the queues of {@code consumers}
     * consumers in turn, {@code capacity} ticks each, its thread on {@code producerCpu}; returns
     * each consumer's source (see allocorpool.queue.FanOut). A factory of one consumer has none.
     */
    default TickSource[] openFanOut(long intervalNs, int capacity, int consumers, int producerCpu) {
        throw new UnsupportedOperationException("this tick source feeds one consumer only");
    }

    /** Pins the calling consumer thread to {@code cpu} (-1: not pinned); a stand-in pins nothing. */
    default void pinConsumer(int cpu) {}
}
