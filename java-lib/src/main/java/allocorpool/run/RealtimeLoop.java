package allocorpool.run;

import allocorpool.model.PacketLoop;
import allocorpool.queue.TickSource;
import java.io.IOException;

/**
 * Real-time mode: one packet per tick of the source, spinning on {@link TickSource#poll}
 * when none is waiting. Ticks that came while the thread was busy (or stopped by the GC)
 * for longer than the input queue holds are lost; the source counts them as gaps.
 */
final class RealtimeLoop {
    private static final int POLLS_PER_CHECK = 1024;

    private RealtimeLoop() {}

    static void run(PacketLoop loop, TickSource source, PeriodReporter reporter) throws IOException {
        long packets = 0;
        int polls = 0;
        while (true) {
            if (source.poll()) {
                loop.step();
                packets++;
            }
            if (++polls == POLLS_PER_CHECK) {
                polls = 0;
                if (!reporter.check(System.nanoTime(), packets, source.lost())) {
                    return;
                }
            }
        }
    }
}
