package allocorpool.run;

import allocorpool.Options;
import allocorpool.queue.JavaTickProducer;

/** A run on the Java stand-in for the native clock, callable by name from a class loader of a test's own. */
public final class JavaClockRun {
    private JavaClockRun() {}

    /** Runs the command line {@code args} (real-time, unpinned) and returns its exit status. */
    public static int run(String[] args) {
        TickSourceFactory javaClock = (interval, capacity, producer, consumer) ->
                JavaTickProducer.start(capacity, interval, Long.MAX_VALUE);
        return Run.execute(Options.parse(args), javaClock, System.err);
    }
}
