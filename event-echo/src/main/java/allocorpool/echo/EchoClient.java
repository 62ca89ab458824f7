package allocorpool.echo;

import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * One client: keeps up to {@code window} events in flight on its connection, checks that
 * each one comes back intact and in order, and records its round trip (send to receive, in
 * ns) in an HdrHistogram recorder the harness reads without stopping the client.
 *
 * <p>Counts are published with ordered stores once per loop turn, so the harness can read
 * them at any time without costing the client a fence per event.
 */
final class EchoClient implements Runnable, EchoConnection.Sink {
    /** Round trips above a minute are recorded as a minute. */
    static final long HIGHEST_TRACKABLE_NS = 60_000_000_000L;

    private final int id;
    private final EchoConnection connection;
    private final int window;
    private final SingleWriterRecorder roundTrips = new SingleWriterRecorder(HIGHEST_TRACKABLE_NS, 3);
    private final AtomicLong sentCount = new AtomicLong();
    private final AtomicLong receivedCount = new AtomicLong();
    private final AtomicLong corruptCount = new AtomicLong();
    private final TopOfBook outgoing = new TopOfBook();
    private final TopOfBook incoming = new TopOfBook();
    private volatile boolean stopping;
    private volatile long drainDeadlineNs;
    private volatile Throwable failure;
    private long received;
    private long corrupt;

    EchoClient(int id, EchoConnection connection, int window) {
        this.id = id;
        this.connection = connection;
        this.window = window;
    }

    @Override
    public void run() {
        long sent = 0;
        try {
            while (!stopping) {
                long before = received;
                int burst = 0;
                while (sent - received < window) {
                    connection.send(Events.fill(outgoing, id, sent, System.nanoTime()));
                    sent++;
                    burst++;
                }
                if (burst > 0) {
                    connection.flush();
                }
                connection.poll(incoming, this);
                publish(sent);
                if (burst == 0 && received == before) {
                    Thread.yield(); // nothing to do: let the service (or another client) have the core
                }
            }
            // Stopped: every event in flight must still come back.
            while (received < sent && System.nanoTime() < drainDeadlineNs) {
                connection.flush();
                if (connection.poll(incoming, this) == 0) {
                    Thread.yield();
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            publish(sent);
        }
    }

    private void publish(long sent) {
        sentCount.lazySet(sent);
        receivedCount.lazySet(received);
        corruptCount.lazySet(corrupt);
    }

    @Override
    public void accept(TopOfBook event) {
        long roundTrip = System.nanoTime() - event.sendingTimeNs();
        if (!Events.isIntact(event, id, received)) {
            corrupt++;
        }
        received++;
        roundTrips.recordValue(Math.min(Math.max(roundTrip, 0), HIGHEST_TRACKABLE_NS));
    }

    /** Asks the client to stop sending and to wait (until the deadline) for what is in flight. */
    void stop(long drainDeadlineNs) {
        this.drainDeadlineNs = drainDeadlineNs;
        stopping = true;
    }

    /** The round trips recorded since the last call (the first call: since the start). */
    Histogram roundTripsSinceLastCall() {
        return roundTrips.getIntervalHistogram();
    }

    long sent() { return sentCount.get(); }
    long received() { return receivedCount.get(); }
    long corrupt() { return corruptCount.get(); }
    Throwable failure() { return failure; }
}
