package allocorpool.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.strategy.BufferStrategy;
import allocorpool.strategy.PoolCounts;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two sources against numbers worked out by hand: the counter's packets and store
 * slots (before the FIFO fills, and after TCP packets processed have shifted the counter),
 * and the random source's test vectors, which the C++ engine checks too.
 */
class PacketSourceTest {
    /** A fresh heap packet for every acquire, each one kept, so the test can read them all afterwards. */
    private static final class KeepEveryPacket implements BufferStrategy {
        final List<Packet> made = new ArrayList<>();

        @Override
        public Packet acquire() {
            Packet p = Packet.onHeap();
            made.add(p);
            return p;
        }

        @Override
        public void release(Packet packet) {
        }

        @Override
        public PoolCounts counts() {
            return null;
        }
    }

    /** The fields of a filled packet: length, src, dst, sport, dport, protocol. */
    private static int[] fields(Packet packet) {
        ByteBuffer b = packet.buffer();
        assertEquals(PacketSource.IP, b.getInt(0));
        return new int[] {b.getInt(20), b.getInt(4), b.getInt(8), b.getShort(12) & 0xFFFF, b.getShort(14) & 0xFFFF,
            b.getInt(16)};
    }

    private static void assertPacket(Packet packet, int length, int src, int dst, int sport, int dport, int protocol) {
        int[] f = fields(packet);
        assertEquals(List.of(length, src, dst, sport, dport, protocol), List.of(f[0], f[1], f[2], f[3], f[4], f[5]));
    }

    private static final int UDP = PacketSource.UDP;
    private static final int TCP = PacketSource.TCP;

    /**
     * Internal queue 10, store 100. Draws 1..6 make packet 0, 7..12 packet 1, and so on;
     * packet n's protocol draw is 6(n + 1), divisible by 16 for n = 7 and 15. Processing
     * starts at step 9 (packet 0); packet 7 is processed at step 16 after packet 16 took
     * draws 97..102, so its slot is 103 % 100 = 3; packets 17.. then take 104.. (odd
     * protocol draws: UDP). Packet 15 is processed at step 24, after packet 24 took
     * 146..151: slot 152 % 100 = 52. Two draws shifted, packet n &gt;= 25 ends at
     * 158 + 6(n - 25): 176 for n = 28, TCP (171..176), processed at step 37 after packet 37
     * ended at 230: slot 231 % 100 = 31.
     */
    @Test
    void counterMakesThePublishedCodesPacketsAndSlots() {
        CaseParams params = CaseParams.of("A", 1).overridden(10, 100, 0);
        KeepEveryPacket strategy = new KeepEveryPacket();
        PacketLoop loop = new PacketLoop(strategy, PacketSource.create("counter", 99), params);
        for (int i = 0; i < 38; i++) {
            loop.step();
        }
        List<Packet> p = strategy.made;
        assertPacket(p.get(0), 51, 2, 3, 4, 5, UDP);
        assertPacket(p.get(1), 57, 8, 9, 10, 11, UDP);
        assertPacket(p.get(7), 93, 44, 45, 46, 47, TCP);
        assertPacket(p.get(15), 50 + 91 % 64, 92, 93, 94, 95, TCP);
        assertPacket(p.get(16), 50 + 97 % 64, 98, 99, 100, 101, UDP);
        assertPacket(p.get(17), 50 + 104 % 64, 105, 106, 107, 108, UDP);
        assertPacket(p.get(25), 50 + 153 % 64, 154, 155, 156, 157, UDP);
        assertPacket(p.get(28), 50 + 171 % 64, 172, 173, 174, 175, TCP);
        assertPacket(p.get(37), 50 + 225 % 64, 226, 227, 228, 229, UDP);
        Processor processor = loop.processor();
        assertSame(p.get(7), processor.storedAt(3));
        assertSame(p.get(15), processor.storedAt(52));
        assertSame(p.get(28), processor.storedAt(31));
        assertEquals(3, processor.stored());
        assertEquals(9, processor.queued(), "a full FIFO holds internal_queue_size - 1 between steps");
        // Packet 38 starts at draw 232: nothing else drew in between.
        loop.step();
        assertPacket(p.get(38), 50 + 232 % 64, 233, 234, 235, 236, UDP);
    }

    /** steps(n) is n steps: the same packets, the same slots, whichever the batch loops call. */
    @Test
    void stepsIsTheStepRepeated() {
        CaseParams params = CaseParams.of("A", 1).overridden(10, 100, 0);
        KeepEveryPacket one = new KeepEveryPacket();
        KeepEveryPacket batched = new KeepEveryPacket();
        PacketLoop byStep = new PacketLoop(one, PacketSource.create("counter", 1), params);
        PacketLoop bySteps = new PacketLoop(batched, PacketSource.create("counter", 1), params);
        for (int i = 0; i < 1000; i++) {
            byStep.step();
        }
        bySteps.steps(600);
        bySteps.steps(400);
        assertEquals(1000, batched.made.size());
        for (int i = 0; i < 1000; i++) {
            assertEquals(List.of(fields(one.made.get(i))[0], fields(one.made.get(i))[5]),
                    List.of(fields(batched.made.get(i))[0], fields(batched.made.get(i))[5]), "packet " + i);
        }
        assertEquals(byStep.processor().stored(), bySteps.processor().stored());
        for (int slot = 0; slot < 100; slot++) {
            Packet a = byStep.processor().storedAt(slot);
            Packet b = bySteps.processor().storedAt(slot);
            assertEquals(a == null ? -1 : one.made.indexOf(a), b == null ? -1 : batched.made.indexOf(b), "slot " + slot);
        }
    }

    @Test
    void counterIgnoresTheSeed() {
        PacketSource a = PacketSource.create("counter", 1);
        PacketSource b = PacketSource.create("counter", 2);
        Packet pa = Packet.onHeap();
        Packet pb = Packet.onHeap();
        for (int i = 0; i < 100; i++) {
            a.fill(pa);
            b.fill(pb);
            assertEquals(List.of(fields(pa)[0], fields(pa)[5]), List.of(fields(pb)[0], fields(pb)[5]));
        }
    }

    @Test
    void counterWrapsAt31Bits() {
        // Where 357,913,941 packets of 6 draws leave it: 2^31 - 2.
        CounterSource source = new CounterSource(0x7FFFFFFE);
        Packet packet = Packet.onHeap();
        source.fill(packet);
        // Draws 0x7FFFFFFF, then 0, 1, 2, 3, 4 after the wrap.
        assertPacket(packet, 50 + 0x7FFFFFFF % 64, 0, 1, 2, 3, UDP);
        assertEquals(5 % 7, source.storeIndex(packet, 7));
    }

    /** The spec's test vectors, seed 1, store of 100,000 slots. */
    @Test
    void randomMatchesTheTestVectors() {
        RandomSource source = new RandomSource(1);
        assertEquals(0x7ab40e090f363a7dL, source.draw(0, 0));
        int[][] expected = {
            {0, 80, 767, 381, 448, 977, UDP, 59576},
            {1, 61, 322, 903, 527, 546, UDP, 20182},
            {2, 84, 84, 513, 514, 486, UDP, 35073},
            {1_000_000, 94, 704, 836, 872, 357, UDP, 66718},
        };
        Packet packet = Packet.onHeap();
        long made = 0;
        for (int[] v : expected) {
            while (made <= v[0]) {
                source.fill(packet);
                made++;
            }
            assertEquals(v[0], packet.number());
            assertPacket(packet, v[1], v[2], v[3], v[4], v[5], v[6]);
            assertEquals(v[7], source.storeIndex(packet, 100_000), "store slot of packet " + v[0]);
        }
    }

    @Test
    void randomFieldsAreInRangeAndTcpIsOneInSixteen() {
        PacketSource source = PacketSource.create("random", 7);
        Packet packet = Packet.onHeap();
        int n = 320_000;
        int tcp = 0;
        int[] lengthsSeen = new int[PacketSource.LENGTHS];
        for (int i = 0; i < n; i++) {
            source.fill(packet);
            ByteBuffer b = packet.buffer();
            assertEquals(0, b.position());
            assertEquals(24, b.limit());
            int[] f = fields(packet);
            assertTrue(f[1] < PacketSource.ADDRESSES && f[2] < PacketSource.ADDRESSES, "addresses");
            assertTrue(f[3] < PacketSource.PORTS && f[4] < PacketSource.PORTS, "ports");
            assertTrue(f[5] == TCP || f[5] == UDP, "protocol " + f[5]);
            lengthsSeen[f[0] - PacketSource.MIN_LENGTH]++;
            if (f[5] == TCP) {
                tcp++;
            }
            int slot = source.storeIndex(packet, 1000);
            assertTrue(slot >= 0 && slot < 1000, "slot " + slot);
        }
        assertEquals(1.0 / 16, (double) tcp / n, 0.002, "TCP share");
        for (int count : lengthsSeen) {
            assertTrue(count > 0, "every length 50..113 occurs");
        }
    }

    @Test
    void randomDependsOnTheSeed() {
        RandomSource one = new RandomSource(1);
        RandomSource two = new RandomSource(2);
        assertTrue(one.draw(5, 3) != two.draw(5, 3));
        assertEquals(one.draw(5, 3), new RandomSource(1).draw(5, 3), "stateless: same seed, same draw");
    }

    @Test
    void dummyWithTheCounterStoresOneTcpPacketAndThenNone() {
        CaseParams params = CaseParams.of("A", 1).overridden(10, 100, 0);
        PacketLoop loop = new PacketLoop(allocorpool.strategy.Strategies.create("dummy", params),
                PacketSource.create("counter", 1), params);
        for (int i = 0; i < 100_000; i++) {
            loop.step();
        }
        assertEquals(1, loop.processor().stored(), "the store's draw made the protocol draws odd for good");
    }
}
