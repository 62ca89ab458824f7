package allocorpool.run;

import allocorpool.model.PacketLoop;
import java.io.IOException;

/**
 * Batch mode: packets as fast as the thread can make them, the clock read once every
 * 1024 packets so that reading it costs nothing measurable.
 */
final class BatchLoop {
    static final int PACKETS_PER_CHECK = 1024;

    private BatchLoop() {}

    static void run(PacketLoop loop, PeriodReporter reporter) throws IOException {
        long packets = 0;
        do {
            loop.steps(PACKETS_PER_CHECK);
            packets += PACKETS_PER_CHECK;
        } while (reporter.check(System.nanoTime(), packets, 0));
    }
}
