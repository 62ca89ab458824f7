package allocorpool.queue;

/**
 * The clock a real-time run's ticks fall due by, which its loop and reporter read: System.nanoTime
 * ({@link #SYSTEM}) for the engine's sources; a test's source gives one its script moves. The
 * engine loads no other, so the loop's call stays monomorphic and the JIT inlines it.
 */
@FunctionalInterface
public interface NanoClock {
    NanoClock SYSTEM = System::nanoTime;

    /** Now, in ns (System.nanoTime's time base for {@link #SYSTEM}). */
    long nanoTime();
}
