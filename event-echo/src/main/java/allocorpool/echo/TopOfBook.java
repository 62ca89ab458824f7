package allocorpool.echo;

import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesOut;
import net.openhft.chronicle.bytes.BytesUtil;
import net.openhft.chronicle.wire.BytesInBinaryMarshallable;

/**
 * The event: a market's best bid and offer, 44 bytes of fields (two longs, two doubles,
 * three ints), as in the seed. Chronicle reads and writes those 44 bytes in one copy
 * between the object's fields and the wire ("trivially copyable"); the NIO transport
 * encodes the same 44 bytes field by field.
 *
 * <p>Reading an event into an existing object allocates nothing; {@link #deepCopy()} is the
 * one allocation per event the study measures.
 */
public final class TopOfBook extends BytesInBinaryMarshallable {
    /** Offset of the first field in the object and length of the fields (44). */
    static final int FIELDS_START = BytesUtil.triviallyCopyableStart(TopOfBook.class);
    public static final int LENGTH_BYTES = BytesUtil.triviallyCopyableLength(TopOfBook.class);

    private long sendingTimeNs;
    private long symbol;
    private double bidPrice;
    private double askPrice;
    private int ecn;
    private int bidQuantity;
    private int askQuantity;

    @Override
    public void readMarshallable(BytesIn<?> bytes) {
        bytes.unsafeReadObject(this, FIELDS_START, LENGTH_BYTES);
    }

    @Override
    public void writeMarshallable(BytesOut<?> bytes) {
        bytes.unsafeWriteObject(this, FIELDS_START, LENGTH_BYTES);
    }

    /** A new event with the same fields: the extra allocation of the "copy" mode. */
    public TopOfBook deepCopy() {
        TopOfBook copy = new TopOfBook();
        copy.sendingTimeNs = sendingTimeNs;
        copy.symbol = symbol;
        copy.bidPrice = bidPrice;
        copy.askPrice = askPrice;
        copy.ecn = ecn;
        copy.bidQuantity = bidQuantity;
        copy.askQuantity = askQuantity;
        return copy;
    }

    /** The 44 bytes, little-endian, at the buffer's position (the NIO transport's frame body). */
    public void writeTo(ByteBuffer buffer) {
        buffer.putLong(sendingTimeNs).putLong(symbol).putDouble(bidPrice).putDouble(askPrice)
                .putInt(ecn).putInt(bidQuantity).putInt(askQuantity);
    }

    public void readFrom(ByteBuffer buffer) {
        sendingTimeNs = buffer.getLong();
        symbol = buffer.getLong();
        bidPrice = buffer.getDouble();
        askPrice = buffer.getDouble();
        ecn = buffer.getInt();
        bidQuantity = buffer.getInt();
        askQuantity = buffer.getInt();
    }

    /** Same fields as another event (equals stays identity: events are reused objects). */
    public boolean sameFields(TopOfBook other) {
        return sendingTimeNs == other.sendingTimeNs && symbol == other.symbol
                && Double.doubleToRawLongBits(bidPrice) == Double.doubleToRawLongBits(other.bidPrice)
                && Double.doubleToRawLongBits(askPrice) == Double.doubleToRawLongBits(other.askPrice)
                && ecn == other.ecn && bidQuantity == other.bidQuantity && askQuantity == other.askQuantity;
    }

    public long sendingTimeNs() { return sendingTimeNs; }
    public TopOfBook sendingTimeNs(long value) { sendingTimeNs = value; return this; }
    public long symbol() { return symbol; }
    public TopOfBook symbol(long value) { symbol = value; return this; }
    public double bidPrice() { return bidPrice; }
    public TopOfBook bidPrice(double value) { bidPrice = value; return this; }
    public double askPrice() { return askPrice; }
    public TopOfBook askPrice(double value) { askPrice = value; return this; }
    public int ecn() { return ecn; }
    public TopOfBook ecn(int value) { ecn = value; return this; }
    public int bidQuantity() { return bidQuantity; }
    public TopOfBook bidQuantity(int value) { bidQuantity = value; return this; }
    public int askQuantity() { return askQuantity; }
    public TopOfBook askQuantity(int value) { askQuantity = value; return this; }
}
