package allocorpool.echo;

import java.io.IOException;

/** A running echo service: it sends every event a client sends straight back to that client. */
public interface EchoService extends AutoCloseable {
    /** A new client connection (one per client thread). */
    EchoConnection connect() throws IOException;

    /** Events the service has sent back so far, over all connections. */
    long echoed();

    /** The ids of the service's connection threads that have started (for allocation counts). */
    long[] threadIds();

    @Override
    void close();
}
