package allocorpool.echo;

/** A client's end of one connection. Used by one thread only. */
public interface EchoConnection extends AutoCloseable {
    /** Receives each event that arrives, in the object {@link #poll} was given. */
    interface Sink {
        void accept(TopOfBook event);
    }

    /** Sends one event (it may wait in a buffer until {@link #flush()}). */
    void send(TopOfBook event);

    /** Pushes out what {@link #send} buffered. */
    void flush();

    /** Reads every event that has arrived into {@code into}, handing each to the sink; returns how many. */
    int poll(TopOfBook into, Sink sink);

    @Override
    void close();
}
