package allocorpool;

import allocorpool.record.JsonLines;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The facts shared by the Java and C++ engines and the Python study (engine-facts.json, at the checkout's
 * root): numbers by dotted path ("cases.C.stored_count"), the failure codes of each engine, and the fields
 * and types of each record type. The engine's own constants and its records are tested against it, so that
 * a change in one language and not the others fails a test.
 */
public final class EngineFacts {
    private final Map<String, Object> facts;

    private EngineFacts(Map<String, Object> facts) {
        this.facts = facts;
    }

    /** The file at the checkout's root: the tests run in java-lib/, as Maven runs them. */
    @SuppressWarnings("unchecked")
    public static EngineFacts load() throws IOException {
        Path file = Paths.get("").toAbsolutePath().getParent().resolve("engine-facts.json");
        return new EngineFacts((Map<String, Object>) JsonLines.parse(
                new String(Files.readAllBytes(file), StandardCharsets.UTF_8)));
    }

    /** The number at a dotted path; a path the file lacks is an error naming it. */
    public long number(String dottedPath) {
        Object value = at(dottedPath);
        if (!(value instanceof Long)) {
            throw new IllegalArgumentException("engine-facts.json has no whole number at " + dottedPath);
        }
        return (Long) value;
    }

    /** The failure codes the Java engine may write (those whose engines include java). */
    public Set<String> javaFailureCodes() {
        Set<String> codes = new TreeSet<>();
        for (Map.Entry<String, Object> failure : object("failures").entrySet()) {
            if (((List<?>) ((Map<?, ?>) failure.getValue()).get("engines")).contains("java")) {
                codes.add(failure.getKey());
            }
        }
        return codes;
    }

    /**
     * The fields of a record type that the Java engine writes and their types ("int", "number|null", ...):
     * those every engine writes and Java's own. "header.params" gives the header's params object.
     */
    public Map<String, String> javaFields(String recordType) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (recordType.equals("header.params")) {
            object("records.header.params").forEach((name, type) -> fields.put(name, (String) type));
            return fields;
        }
        Map<String, Object> record = object("records." + recordType);
        for (String part : new String[] {"fields", "java"}) {
            Object some = record.get(part);
            if (some != null) {
                ((Map<?, ?>) some).forEach((name, type) -> fields.put((String) name, (String) type));
            }
        }
        return fields;
    }

    /** Whether a record's value is of a type engine-facts.json names ("int", "number|null", ...). */
    public static boolean isOfType(Object value, String type) {
        if (value == null) {
            return type.endsWith("|null");
        }
        switch (type.replace("|null", "")) {
            case "int":
                return value instanceof Long;
            case "number":
                return value instanceof Long || value instanceof Double;
            case "string":
                return value instanceof String;
            case "bool":
                return value instanceof Boolean;
            case "list":
                return value instanceof List;
            case "object":
                return value instanceof Map;
            default:
                throw new IllegalArgumentException("engine-facts.json: no type " + type);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> object(String dottedPath) {
        Object value = at(dottedPath);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException("engine-facts.json has no object at " + dottedPath);
        }
        return (Map<String, Object>) value;
    }

    private Object at(String dottedPath) {
        Object value = facts;
        for (String name : dottedPath.split("\\.")) {
            value = value instanceof Map ? ((Map<?, ?>) value).get(name) : null;
            if (value == null) {
                throw new IllegalArgumentException("engine-facts.json has nothing at " + dottedPath + "; it has "
                        + facts.keySet() + " at the top");
            }
        }
        return value;
    }
}
