package allocorpool.echo;

import java.io.IOException;

/** How clients and service talk over loopback TCP: Chronicle Wire's channels, or plain NIO. */
public enum Transport {
    CHRONICLE,
    NIO;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Starts the echo service of this transport on a free loopback port. */
    public EchoService start(EchoMode mode, boolean buffered) throws IOException {
        return this == CHRONICLE ? new ChronicleEcho(mode, buffered) : new NioEcho(mode);
    }
}
