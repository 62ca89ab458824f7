package allocorpool.queue;

/**
 * What a run's reporter reads of its ticks: the clock they fall due by, how many came, where the
 * measured window starts and how many of its ticks were lost. One consumer's {@link TickSource}, or
 * several consumers' sources seen together.
 */
public interface TickWindow {
    /** Ticks taken so far. */
    long received();

    /** The clock its ticks fall due by; the real-time loop reads the time on it. */
    NanoClock clock();

    /**
     * Starts the measured window at {@code startNanos} (on {@link #clock}): the ticks due from then
     * on are its ticks, whenever the consumer takes them or finds them missing. Call it once a
     * tick was taken (the producer's schedule starts with its first) and before the window.
     */
    void setWindowStart(long startNanos);

    /** Ticks lost among those due in the measured window (none before it opens). */
    long lostInWindow();
}
