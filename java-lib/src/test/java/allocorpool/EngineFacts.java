package allocorpool;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The model's facts shared by the Java and C++ engines and the Python study (engine-facts.json, at the
 * checkout's root), as numbers by dotted path ("cases.C.stored_count"). The engine's own constants are
 * tested against it, so that a change in one language and not the others fails a test.
 */
public final class EngineFacts {
    private final Map<String, Long> numbers;

    private EngineFacts(Map<String, Long> numbers) {
        this.numbers = numbers;
    }

    /** The file at the checkout's root: the tests run in java-lib/, as Maven runs them. */
    public static EngineFacts load() throws IOException {
        Path file = Paths.get("").toAbsolutePath().getParent().resolve("engine-facts.json");
        Map<String, Long> numbers = new HashMap<>();
        try (JsonParser parser = new JsonFactory().createParser(Files.readAllBytes(file))) {
            Deque<String> path = new ArrayDeque<>();
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token == JsonToken.FIELD_NAME) {
                    path.addLast(parser.currentName());
                    continue;
                }
                if (token == JsonToken.VALUE_NUMBER_INT) {
                    numbers.put(String.join(".", path), parser.getLongValue());
                }
                if (token != JsonToken.START_OBJECT && !path.isEmpty()) {
                    path.removeLast(); // a value, or an object's end, closes its field
                }
            }
        }
        return new EngineFacts(numbers);
    }

    /** The number at a dotted path; a path the file lacks is an error naming it. */
    public long number(String dottedPath) {
        Long value = numbers.get(dottedPath);
        if (value == null) {
            throw new IllegalArgumentException("engine-facts.json has no number at " + dottedPath + "; it has "
                    + numbers.keySet());
        }
        return value;
    }
}
