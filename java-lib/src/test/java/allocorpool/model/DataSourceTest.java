package allocorpool.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The generated packets: fields in range and TCP for about 1 packet in 16. */
class DataSourceTest {
    @Test
    void fieldsAreInRangeAndTcpIsOneInSixteen() {
        DataSource source = new DataSource(7);
        Packet packet = Packet.onHeap();
        int n = 320_000;
        int tcp = 0;
        int[] lengthsSeen = new int[DataSource.LENGTHS];
        for (int i = 0; i < n; i++) {
            source.fill(packet);
            ByteBuffer b = packet.buffer();
            assertEquals(0, b.position());
            assertEquals(24, b.limit());
            assertEquals(DataSource.IP, b.getInt());
            int src = b.getInt();
            int dst = b.getInt();
            int sport = b.getShort() & 0xFFFF;
            int dport = b.getShort() & 0xFFFF;
            int protocol = b.getInt();
            int length = b.getInt();
            assertTrue(src >= 0 && src < DataSource.ADDRESSES, "source address " + src);
            assertTrue(dst >= 0 && dst < DataSource.ADDRESSES, "destination address " + dst);
            assertTrue(sport < DataSource.PORTS && dport < DataSource.PORTS, "ports " + sport + " " + dport);
            assertTrue(protocol == DataSource.TCP || protocol == DataSource.UDP, "protocol " + protocol);
            assertTrue(length >= 50 && length <= 113, "length " + length);
            lengthsSeen[length - 50]++;
            if (protocol == DataSource.TCP) {
                tcp++;
            }
        }
        double share = (double) tcp / n;
        assertEquals(1.0 / 16, share, 0.002, "TCP share");
        for (int count : lengthsSeen) {
            assertTrue(count > 0, "every length 50..113 occurs");
        }
    }

    @Test
    void sameSeedSameStream() {
        XorShift a = new XorShift(42);
        XorShift b = new XorShift(42);
        for (int i = 0; i < 1000; i++) {
            assertEquals(a.nextLong(), b.nextLong());
        }
        XorShift zero = new XorShift(0);
        assertTrue(zero.nextLong() != 0, "seed 0 still gives a working generator");
    }
}
