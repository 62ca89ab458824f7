package allocorpool.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.model.Packet;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hand-off buffers release on another thread than the acquire's, and count exactly across the two:
 * acquired = released + held, a double release on the worker throws, and a packet released behind the
 * worker's back (a Netty buffer freed on another thread without its door) or dropped leaves the books off.
 */
class HandoffBuffersTest {
    static List<String> names() {
        return HandoffBuffers.NAMES;
    }

    /** Acquires {@code count} packets on a producer thread of its own. */
    private static List<Packet> produce(HandoffBuffers buffers, int count) throws Exception {
        ExecutorService producer = Executors.newSingleThreadExecutor();
        try {
            Future<List<Packet>> made = producer.submit(() -> {
                List<Packet> packets = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    packets.add(buffers.producer().acquire());
                }
                return packets;
            });
            return made.get();
        } finally {
            producer.shutdown();
        }
    }

    @ParameterizedTest
    @MethodSource("names")
    void releasesOnAnotherThreadBalanceTheBooks(String name) throws Exception {
        HandoffBuffers buffers = HandoffBuffers.create(name, 4096, 2);
        List<Packet> packets = produce(buffers, 3000);
        for (int i = 0; i < 2000; i++) {
            buffers.worker(i % 2).release(packets.get(i));  // this thread, not the producer's
        }
        PoolCounts counts = buffers.counts(1000);
        assertEquals(List.of(3000L, 2000L, 1000L), List.of(counts.capacity, counts.free, counts.inUse));
        IllegalStateException off = assertThrows(IllegalStateException.class, () -> buffers.counts(999));
        assertTrue(off.getMessage().contains("hand-off accounting is off"), off.getMessage());
        for (int i = 2000; i < 3000; i++) {
            buffers.worker(0).release(packets.get(i));
        }
        assertEquals(3000L, buffers.counts(0).free);
    }

    @ParameterizedTest
    @MethodSource("names")
    void aDoubleReleaseOnAWorkerThrows(String name) throws Exception {
        HandoffBuffers buffers = HandoffBuffers.create(name, 16, 2);
        Packet packet = produce(buffers, 1).get(0);
        buffers.worker(0).release(packet);
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> buffers.worker(1).release(packet));
        assertTrue(twice.getMessage().contains("double release"), twice.getMessage());
    }

    /** A Netty buffer freed on another thread behind the worker's door: the books are off, its release throws. */
    @ParameterizedTest
    @MethodSource("names")
    void aReleaseWithoutAccountingIsCaught(String name) throws Exception {
        HandoffBuffers buffers = HandoffBuffers.create(name, 16, 1);
        Packet packet = produce(buffers, 1).get(0);
        if (packet.handle() instanceof ByteBuf) {
            ByteBuf buffer = (ByteBuf) packet.handle();
            Thread other = new Thread(buffer::release);
            other.start();
            other.join();
            assertThrows(RuntimeException.class, () -> buffers.worker(0).release(packet));
        }
        // released by no door, held by no processor: acquired 1, released 0, held 0
        assertThrows(IllegalStateException.class, () -> buffers.counts(0));
    }
}
