package allocorpool.echo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A service whose first event comes back only after the warm-up and the measured seconds
 * have passed, as on a loaded machine: the window must still hold events, because the
 * warm-up counts from the first event back, not from the clients' start.
 */
class SlowStartTest {
    /** Holds every event back until {@code releaseNs}, then echoes each one as polled. */
    static final class HeldBackService implements EchoService {
        final long releaseNs;
        final AtomicLong echoed = new AtomicLong();

        HeldBackService(long holdNs) {
            this.releaseNs = System.nanoTime() + holdNs;
        }

        @Override
        public EchoConnection connect() {
            return new EchoConnection() {
                final ArrayDeque<TopOfBook> inFlight = new ArrayDeque<>();

                @Override
                public void send(TopOfBook event) {
                    inFlight.add(event.deepCopy());
                }

                @Override
                public void flush() {}

                @Override
                public int poll(TopOfBook into, Sink sink) {
                    if (System.nanoTime() < releaseNs) {
                        return 0;
                    }
                    int count = 0;
                    for (TopOfBook event; (event = inFlight.poll()) != null; count++) {
                        echoed.incrementAndGet();
                        sink.accept(event);
                    }
                    return count;
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public long echoed() {
            return echoed.get();
        }

        @Override
        public long[] threadIds() {
            return new long[] {Thread.currentThread().getId()};
        }

        @Override
        public void close() {}
    }

    @Test
    void theWindowHoldsEventsWhenTheFirstOneComesBackLate() throws Exception {
        EchoOptions options = EchoOptions.parse("--clients", "1", "--window", "8", "--warmup-s", "0.1",
                "--duration-s", "0.2");
        long holdNs = 1_000_000_000L; // longer than warm-up and window together
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        boolean sound;
        try (RecordWriter out = RecordWriter.to(new PrintStream(stdout, true))) {
            sound = new EchoRun(options, out, () -> new HeldBackService(holdNs)).run();
        }
        List<String> lines = EchoRoundTripTest.lines(stdout);
        String summary = lines.get(lines.size() - 1);
        assertTrue(sound, summary);
        assertEquals("\"ok\"", EchoRoundTripTest.field(summary, "status"));
        assertTrue(Long.parseLong(EchoRoundTripTest.field(summary, "events")) > 0, summary);
        assertTrue(Double.parseDouble(EchoRoundTripTest.field(summary, "first_event_s")) >= 0.9, summary);
    }
}
