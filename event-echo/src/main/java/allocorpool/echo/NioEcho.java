package allocorpool.echo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The echo over plain java.nio: a frame is a 4-byte length (always 44) and the event's 44
 * bytes. The service reads with a blocking SocketChannel on a thread per connection and
 * answers a whole read's worth of frames with one write; clients use non-blocking channels
 * and poll, as Chronicle's do. No library between the event and the socket: the baseline
 * that shows what Chronicle adds or saves, on every JDK.
 */
final class NioEcho implements EchoService {
    static final int FRAME_BYTES = 4 + TopOfBook.LENGTH_BYTES;
    private static final int BUFFER_BYTES = 64 * 1024;

    private final boolean copy;
    private final ServerSocketChannel server;
    private final ServiceCounters counters = new ServiceCounters();
    private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    NioEcho(EchoMode mode) throws IOException {
        copy = mode == EchoMode.COPY;
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = new Thread(this::accept, "nio-echo-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept() {
        int connections = 0;
        try {
            while (true) {
                SocketChannel channel = server.accept();
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                open.add(channel);
                Thread service = new Thread(() -> serve(channel), "nio-echo-service-" + connections++);
                service.setDaemon(true);
                service.start();
            }
        } catch (ClosedChannelException closed) {
            // close() ends the acceptor
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void serve(SocketChannel channel) {
        ServiceCounters.Connection state = counters.register();
        ByteBuffer in = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer out = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        TopOfBook received = new TopOfBook();
        long count = 0;
        try {
            while (channel.read(in) >= 0) {
                in.flip();
                while (in.remaining() >= FRAME_BYTES) {
                    int length = in.getInt();
                    if (length != TopOfBook.LENGTH_BYTES) {
                        throw new IOException("frame of " + length + " bytes; every event has " + TopOfBook.LENGTH_BYTES);
                    }
                    received.readFrom(in);
                    TopOfBook reply = copy ? received.deepCopy() : received;
                    if (out.remaining() < FRAME_BYTES) {
                        writeAll(channel, out);
                    }
                    out.putInt(TopOfBook.LENGTH_BYTES);
                    reply.writeTo(out);
                    state.kept = reply;
                    state.echoed.lazySet(++count);
                }
                in.compact();
                writeAll(channel, out);
            }
        } catch (ClosedChannelException closed) {
            // close() ends the connection threads
        } catch (IOException e) {
            if (channel.isOpen()) {
                System.err.println("nio echo service: " + e);
            }
        } finally {
            closeQuietly(channel);
        }
    }

    private static void writeAll(SocketChannel channel, ByteBuffer out) throws IOException {
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
        out.clear();
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public EchoConnection connect() throws IOException {
        SocketChannel channel = SocketChannel.open(server.getLocalAddress());
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(false);
        open.add(channel);
        return new Connection(channel);
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
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        open.forEach(NioEcho::closeQuietly);
    }

    /** A client's non-blocking channel with a send and a receive buffer. */
    private static final class Connection implements EchoConnection {
        private final SocketChannel channel;
        private final ByteBuffer out = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);

        Connection(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public void send(TopOfBook event) {
            while (out.remaining() < FRAME_BYTES) {
                flush();
            }
            out.putInt(TopOfBook.LENGTH_BYTES);
            event.writeTo(out);
        }

        @Override
        public void flush() {
            out.flip();
            try {
                channel.write(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                out.compact();
            }
        }

        @Override
        public int poll(TopOfBook into, Sink sink) {
            int count = 0;
            try {
                if (channel.read(in) < 0) {
                    throw new IOException("the echo service closed the connection");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            in.flip();
            while (in.remaining() >= FRAME_BYTES) {
                int length = in.getInt();
                if (length != TopOfBook.LENGTH_BYTES) {
                    throw new IllegalStateException("frame of " + length + " bytes; every event has " + TopOfBook.LENGTH_BYTES);
                }
                into.readFrom(in);
                sink.accept(into);
                count++;
            }
            in.compact();
            return count;
        }

        @Override
        public void close() {
            closeQuietly(channel);
        }
    }
}
