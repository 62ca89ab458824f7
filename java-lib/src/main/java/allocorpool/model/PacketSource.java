package allocorpool.model;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Where the fields of the packets come from, and the store slot a TCP packet replaces:
 * the {@code --source} of a run.
 *
 * <ul>
 *   <li>{@code counter} ({@link CounterSource}): the published code's draws, every value
 *       from one incrementing counter; the figures compared with the article's use it.
 *   <li>{@code random} ({@link RandomSource}): independent pseudo-random draws, the random
 *       fields and random replacement the article describes.
 * </ul>
 *
 * <p>Layout of a filled packet, as in the original: protocol word ({@value #IP}), source
 * and destination address (from {@value #ADDRESSES}), source and destination port (from
 * {@value #PORTS}, 16 bits each), transport protocol ({@value #TCP} for about 1 packet in
 * {@value #TCP_ONE_IN}, else {@value #UDP}) and a length of {@value #MIN_LENGTH} to
 * {@value #MIN_LENGTH} + {@value #LENGTHS} - 1. The rest of the 1024 bytes is left as it
 * is. A source allocates nothing.
 */
public interface PacketSource {
    List<String> NAMES = List.of("counter", "random");

    int IP = 0x0800;
    int TCP = 6;
    int UDP = 17;
    int ADDRESSES = 1024;
    int PORTS = 1024;
    int TCP_ONE_IN = 16;
    int MIN_LENGTH = 50;
    int LENGTHS = 64;

    /** Writes the next packet's fields into its buffer (position 0, limit at their end). */
    void fill(Packet packet);

    /** The store slot, in [0, storedCount), that the TCP packet being processed now replaces. */
    int storeIndex(Packet packet, int storedCount);

    /** The source named {@code name} ("counter" or "random"); the counter ignores the seed. */
    static PacketSource create(String name, long seed) {
        switch (name) {
            case "counter":
                return new CounterSource();
            case "random":
                return new RandomSource(seed);
            default:
                throw new IllegalArgumentException("no source " + name + "; valid: " + String.join(", ", NAMES));
        }
    }

    /** Writes one packet's fields in the layout above. */
    static void write(ByteBuffer buffer, int length, int source, int destination, int sourcePort,
            int destinationPort, boolean tcp) {
        buffer.clear();
        buffer.putInt(IP);
        buffer.putInt(source);
        buffer.putInt(destination);
        buffer.putShort((short) sourcePort);
        buffer.putShort((short) destinationPort);
        buffer.putInt(tcp ? TCP : UDP);
        buffer.putInt(length);
        buffer.flip();
    }
}
