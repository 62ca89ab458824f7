package allocorpool.echo;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Lesson: an allocation on its own, with nothing else to do, is cheap but not free, and
 * threads allocating at once share what limits it (the caches and memory bandwidth the new
 * objects are written through, and the collector that clears them).
 *
 * <p>Each call copies an event into a new object, which JMH consumes so that it escapes and
 * must really be allocated: the same 44 bytes of fields per object as the echo's copy
 * mode. Run on 1 and 2 threads, the average time per call and the allocation rate (JMH's
 * GC profiler) show where the rate stops growing with threads (the seed's second benchmark).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AllocateTopOfBook {
    private final TopOfBook event = Events.fill(new TopOfBook(), 0, 42, 1_000_000L);

    @Benchmark
    public TopOfBook copy() {
        return event.deepCopy();
    }
}
