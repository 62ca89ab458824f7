package allocorpool.record;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a JSON Lines file back into maps, lists and scalars (jackson-core only). */
public final class JsonLines {
    private static final JsonFactory JSON = new JsonFactory();

    private JsonLines() {}

    /** One map per line; throws if a line is not exactly one JSON object. */
    public static List<Map<String, Object>> read(Path file) throws IOException {
        List<Map<String, Object>> records = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            try (JsonParser parser = JSON.createParser(line)) {
                if (parser.nextToken() != JsonToken.START_OBJECT) {
                    throw new IOException("not an object: " + line);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> record = (Map<String, Object>) value(parser);
                if (parser.nextToken() != null) {
                    throw new IOException("more than one value on a line: " + line);
                }
                records.add(record);
            }
        }
        return records;
    }

    /** One JSON document (an object, over any number of lines) as maps, lists and scalars. */
    public static Object parse(String text) throws IOException {
        try (JsonParser parser = JSON.createParser(text)) {
            parser.nextToken();
            Object value = value(parser);
            if (parser.nextToken() != null) {
                throw new IOException("more than one JSON value");
            }
            return value;
        }
    }

    private static Object value(JsonParser parser) throws IOException {
        switch (parser.currentToken()) {
            case START_OBJECT:
                Map<String, Object> map = new LinkedHashMap<>();
                while (parser.nextToken() != JsonToken.END_OBJECT) {
                    String name = parser.currentName();
                    parser.nextToken();
                    map.put(name, value(parser));
                }
                return map;
            case START_ARRAY:
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(parser));
                }
                return list;
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return parser.getDoubleValue();
            case VALUE_TRUE:
                return true;
            case VALUE_FALSE:
                return false;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unexpected " + parser.currentToken());
        }
    }
}
