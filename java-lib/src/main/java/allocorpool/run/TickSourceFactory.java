package allocorpool.run;

import allocorpool.queue.TickSource;

/**
 * How a real-time run gets its ticks: the native clock in production
 * ({@code TickSources::nativeClock}), a Java stand-in in the tests.
 */
@FunctionalInterface
public interface TickSourceFactory {
    /**
     * Starts a source of one tick per {@code intervalNs} into a queue of {@code capacity}
     * ticks, its producer on {@code producerCpu}; pins the calling thread to
     * {@code consumerCpu} (-1: no pinning).
     */
    TickSource open(long intervalNs, int capacity, int producerCpu, int consumerCpu);
}
