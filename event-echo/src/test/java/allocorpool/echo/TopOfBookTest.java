package allocorpool.echo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.ReadMarshallable;
import net.openhft.chronicle.wire.Wire;
import net.openhft.chronicle.wire.WireType;
import org.junit.jupiter.api.Test;

class TopOfBookTest {
    @Test
    void theEventHas44BytesOfFields() {
        assertEquals(44, TopOfBook.LENGTH_BYTES);
    }

    @Test
    void aDeepCopyIsANewObjectWithTheSameFields() {
        TopOfBook event = Events.fill(new TopOfBook(), 3, 12_345, 987_654_321L);
        TopOfBook copy = event.deepCopy();
        assertNotSame(event, copy);
        assertTrue(copy.sameFields(event));
        assertTrue(Events.isIntact(copy, 3, 12_345));
    }

    @Test
    void anEventSurvivesTheNioFrameBody() {
        TopOfBook event = Events.fill(new TopOfBook(), 1, 7, 42L);
        ByteBuffer buffer = ByteBuffer.allocate(TopOfBook.LENGTH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        event.writeTo(buffer);
        assertEquals(TopOfBook.LENGTH_BYTES, buffer.position());
        buffer.flip();
        TopOfBook read = new TopOfBook();
        read.readFrom(buffer);
        assertTrue(read.sameFields(event));
    }

    @Test
    void anEventSurvivesAChronicleDocument() {
        Wire wire = WireType.BINARY_LIGHT.apply(Bytes.allocateElasticOnHeap(256));
        TopOfBook event = Events.fill(new TopOfBook(), 2, 99, 5L);
        try (DocumentContext out = wire.writingDocument()) {
            out.wire().write(ChronicleEcho.EVENT).marshallable(event);
        }
        TopOfBook read = new TopOfBook();
        StringBuilder name = new StringBuilder();
        try (DocumentContext in = wire.readingDocument()) {
            assertTrue(in.isPresent());
            in.wire().read(name).marshallable((ReadMarshallable) read);
        }
        assertEquals(ChronicleEcho.EVENT, name.toString());
        assertTrue(read.sameFields(event));
    }

    @Test
    void aChangedFieldOrAnotherSequenceIsNotIntact() {
        TopOfBook event = Events.fill(new TopOfBook(), 0, 5, 0L);
        assertFalse(Events.isIntact(event, 0, 6), "the next event's number");
        assertFalse(Events.isIntact(event, 1, 5), "another client's event");
        event.bidPrice(event.bidPrice() + 1e-9);
        assertFalse(Events.isIntact(event, 0, 5), "a price off by a nanounit");
    }
}
