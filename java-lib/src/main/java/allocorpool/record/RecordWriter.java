package allocorpool.record;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.Closeable;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * JSON Lines out: one record per line, checked against {@link RecordSchema}, its fields in
 * schema order, and flushed at once, so that a run that crashes keeps every record it wrote.
 */
public final class RecordWriter implements Closeable {
    private final JsonGenerator json;

    private RecordWriter(OutputStream out, boolean closeOut) throws IOException {
        // No separator between root values: each record ends with its own newline.
        this.json = new JsonFactory().setRootValueSeparator(null).createGenerator(out, JsonEncoding.UTF8);
        json.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, closeOut);
    }

    /** Writes to the file {@code path}, or to standard output for "-". */
    public static RecordWriter open(String path) throws IOException {
        if (path.equals("-")) {
            return new RecordWriter(System.out, false);
        }
        return new RecordWriter(new FileOutputStream(path), true);
    }

    /** Writes one record, its fields in schema order; throws if it does not fit the schema. */
    public void write(Map<String, ?> record) throws IOException {
        RecordSchema.check(record);
        json.writeStartObject();
        for (String field : RecordSchema.fields((String) record.get("type"))) {
            json.writeFieldName(field);
            value(record.get(field));
        }
        json.writeEndObject();
        json.writeRaw('\n');
        json.flush();
    }

    private void value(Object value) throws IOException {
        if (value == null) {
            json.writeNull();
        } else if (value instanceof String) {
            json.writeString((String) value);
        } else if (value instanceof Boolean) {
            json.writeBoolean((Boolean) value);
        } else if (value instanceof Integer || value instanceof Long) {
            json.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double) {
            double d = (Double) value;
            if (Double.isFinite(d)) {
                json.writeNumber(d);
            } else {
                json.writeNull();
            }
        } else if (value instanceof Map) {
            json.writeStartObject();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                json.writeFieldName((String) e.getKey());
                value(e.getValue());
            }
            json.writeEndObject();
        } else if (value instanceof List) {
            json.writeStartArray();
            for (Object item : (List<?>) value) {
                value(item);
            }
            json.writeEndArray();
        } else {
            throw new IllegalArgumentException("cannot write a " + value.getClass().getName());
        }
    }

    @Override
    public void close() throws IOException {
        json.close();
    }
}
