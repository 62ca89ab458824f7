package allocorpool.echo;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON Lines records (event-echo/README.md), each flushed as written so a crash keeps what came before. */
final class RecordWriter implements AutoCloseable {
    private final PrintStream out;
    private final boolean owned;

    private RecordWriter(PrintStream out, boolean owned) {
        this.out = out;
        this.owned = owned;
    }

    static RecordWriter to(Path path) {
        try {
            OutputStream stream = Files.newOutputStream(path);
            return new RecordWriter(new PrintStream(stream, false, StandardCharsets.UTF_8.name()), true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static RecordWriter to(PrintStream stream) {
        return new RecordWriter(stream, false);
    }

    /** A record: its type first, then the fields in the order given. */
    static Map<String, Object> record(String type) {
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("type", type);
        return record;
    }

    synchronized void write(Map<String, Object> record) {
        out.println(Json.of(record));
        out.flush();
    }

    @Override
    public void close() {
        if (owned) {
            out.close();
        }
    }
}
