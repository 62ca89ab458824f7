package allocorpool.run;

/**
 * The run's clock: t_s = 0 is the moment the header record is written, so the pool's
 * preallocation and the fill phase have t_s &gt; 0. It is read on two time bases at once:
 * System.nanoTime for the loops (the header keeps its origin as
 * {@code clock_origin_nanotime}, so that a GC log decorated with {@code timenanos} lines up
 * exactly) and the wall clock for GC notifications, whose time stamps are wall-clock ms.
 */
final class RunClock {
    final long originNanos;
    final long originWallMs;

    private RunClock(long originNanos, long originWallMs) {
        this.originNanos = originNanos;
        this.originWallMs = originWallMs;
    }

    static RunClock start() {
        long wall = System.currentTimeMillis();
        return new RunClock(System.nanoTime(), wall);
    }

    /** t_s of a System.nanoTime reading. */
    double seconds(long nanoTime) {
        return (nanoTime - originNanos) / 1e9;
    }

    /** t_s of a wall-clock time in ms. */
    double secondsOfWallMs(long wallMs) {
        return (wallMs - originWallMs) / 1000.0;
    }
}
