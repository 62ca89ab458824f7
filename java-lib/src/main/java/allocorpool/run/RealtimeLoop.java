package allocorpool.run;

import allocorpool.measure.LatencyMeter;
import allocorpool.model.PacketLoop;
import allocorpool.queue.NanoClock;
import allocorpool.queue.TickSource;
import java.io.IOException;

/**
 * Real-time mode: one packet per tick of the source, spinning on {@link TickSource#poll}
 * when none is waiting. Ticks that came while the thread was busy (or stopped by the GC)
 * for longer than the input queue holds are lost; the source counts them as gaps. One packet
 * in {@link LatencyMeter#SAMPLE_EVERY} has its lateness metered once it is made. The time is
 * read on the source's clock.
 */
final class RealtimeLoop {
    static final int POLLS_PER_CHECK = 1024;

    static final int SAMPLE_MASK = LatencyMeter.SAMPLE_EVERY - 1;

    static {
        if ((LatencyMeter.SAMPLE_EVERY & SAMPLE_MASK) != 0) {
            throw new AssertionError("LatencyMeter.SAMPLE_EVERY must be a power of two");
        }
    }

    private RealtimeLoop() {}

    static void run(PacketLoop loop, TickSource source, PeriodReporter reporter, LatencyMeter latency)
            throws IOException {
        NanoClock clock = source.clock();
        long packets = 0;
        int polls = 0;
        while (true) {
            if (source.poll()) {
                loop.step();
                if ((++packets & SAMPLE_MASK) == 0) {
                    latency.record(source.latenessNs(), source.lastInWindow());
                }
            }
            if (++polls == POLLS_PER_CHECK) {
                polls = 0;
                if (!reporter.check(clock.nanoTime(), packets, source.lost())) {
                    return;
                }
            }
        }
    }
}
