package allocorpool.echo;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.core.io.ClosedIORuntimeException;
import net.openhft.chronicle.threads.Pauser;
import net.openhft.chronicle.threads.PauserMode;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.ReadMarshallable;
import net.openhft.chronicle.wire.channel.AbstractHandler;
import net.openhft.chronicle.wire.channel.ChronicleChannel;
import net.openhft.chronicle.wire.channel.ChronicleChannelCfg;
import net.openhft.chronicle.wire.channel.ChronicleChannelSupplier;
import net.openhft.chronicle.wire.channel.ChronicleContext;
import net.openhft.chronicle.wire.channel.ChronicleGatewayMain;

/**
 * The echo over Chronicle Wire's channels (chronicle-wire 2.26ea10): a gateway accepts
 * connections on loopback and runs an {@link Handler} on a thread per connection; each
 * client connects with a channel of its own. Events travel as Chronicle documents holding
 * one "topOfBook" field with the 44 bytes of the event.
 *
 * <p>The documents are read and written with the DocumentContext API rather than through
 * method readers and writers: those are generated Java code compiled at run time, and the
 * study's JDK runtimes have no compiler module (Chronicle would fall back to proxies, which
 * allocate an argument array per call and would blur what is measured).
 */
@SuppressWarnings("deprecation") // the channel API is marked to move in chronicle-wire x.27
final class ChronicleEcho implements EchoService {
    static {
        // On fewer than 4 CPUs (pauser.minProcessors), chronicle-threads turns every "yielding"
        // pauser into a sleepy one that sleeps 1 to 20 ms when idle: on a 2-core machine the
        // channels' writer threads then sleep between batches. The seed ran yielding pausers
        // (16 cores); this keeps them yielding here too, unless the property is given.
        if (System.getProperty("pauser.minProcessors") == null) {
            System.setProperty("pauser.minProcessors", "1");
        }
    }

    static final String EVENT = "topOfBook";
    /** The handler the gateway runs is rebuilt from the connection's header: it finds its counters here. */
    private static final Map<String, ServiceCounters> SERVICES = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();
    private final ServiceCounters counters = new ServiceCounters();
    private final ChronicleGatewayMain gateway;
    private final ChronicleContext clientContext;
    private final ChronicleChannelSupplier channels;

    ChronicleEcho(EchoMode mode, boolean buffered) throws IOException {
        SERVICES.put(id, counters);
        int port = freePort();
        gateway = new ChronicleGatewayMain("tcp://:" + port);
        gateway.pauserMode(PauserMode.yielding).buffered(buffered).useAffinity(false);
        gateway.start();
        clientContext = ChronicleContext.newContext("tcp://localhost:" + port).buffered(buffered).useAffinity(false);
        Handler handler = new Handler();
        handler.service = id;
        handler.copy = mode == EchoMode.COPY;
        handler.buffered(buffered);
        channels = clientContext.newChannelSupplier(handler);
        channels.pauserMode(PauserMode.yielding).buffered(buffered);
    }

    /** The pauser Chronicle's "yielding" mode gives on this machine (the header records it). */
    static String yieldingPauser() {
        return Pauser.yielding().getClass().getSimpleName();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public EchoConnection connect() {
        return new Connection(channels.get());
    }

    @Override
    public long echoed() {
        return counters.echoed();
    }

    @Override
    public long[] threadIds() {
        return counters.threadIds();
    }

    @Override
    public void close() {
        clientContext.close();
        gateway.close();
        SERVICES.remove(id);
    }

    /** The service side of one connection: reads each event and writes it (or a copy) back. */
    public static final class Handler extends AbstractHandler<Handler> {
        String service;
        boolean copy;

        @Override
        public void run(ChronicleContext context, ChronicleChannel channel) {
            ServiceCounters.Connection state = SERVICES.get(service).register();
            StringBuilder name = new StringBuilder();
            TopOfBook received = new TopOfBook();
            Pauser pauser = Pauser.yielding();
            long count = 0;
            try {
                while (!channel.isClosing()) {
                    try (DocumentContext in = channel.readingDocument()) {
                        if (!in.isPresent() || in.isMetaData()) {
                            pauser.pause();
                            continue;
                        }
                        pauser.reset();
                        in.wire().read(name).marshallable((ReadMarshallable) received);
                        TopOfBook reply = copy ? received.deepCopy() : received;
                        try (DocumentContext out = channel.writingDocument()) {
                            out.wire().write(EVENT).marshallable(reply);
                        }
                        state.kept = reply;
                        state.echoed.lazySet(++count);
                    }
                }
            } catch (ClosedIORuntimeException closed) {
                // The client went away: this connection's work is done.
            }
        }

        @Override
        public ChronicleChannel asInternalChannel(ChronicleContext context, ChronicleChannelCfg<?> channelCfg) {
            throw new UnsupportedOperationException("the echo runs over TCP only");
        }
    }

    /** A client's channel. */
    private static final class Connection implements EchoConnection {
        private final ChronicleChannel channel;
        private final StringBuilder name = new StringBuilder();

        Connection(ChronicleChannel channel) {
            this.channel = channel;
        }

        @Override
        public void send(TopOfBook event) {
            try (DocumentContext out = channel.writingDocument()) {
                out.wire().write(EVENT).marshallable(event);
            }
        }

        @Override
        public void flush() {
            // Unbuffered channels write each document as it closes; buffered ones have a writer thread.
        }

        @Override
        public int poll(TopOfBook into, Sink sink) {
            int count = 0;
            while (true) {
                try (DocumentContext in = channel.readingDocument()) {
                    if (!in.isPresent()) {
                        return count;
                    }
                    if (in.isMetaData()) {
                        continue;
                    }
                    in.wire().read(name).marshallable((ReadMarshallable) into);
                }
                sink.accept(into);
                count++;
            }
        }

        @Override
        public void close() {
            channel.close();
        }
    }
}
