package allocorpool.echo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The whole run, each transport and mode: every event comes back intact, and the counts balance. */
class EchoRoundTripTest {
    @ParameterizedTest
    @CsvSource({"chronicle, reuse, on", "chronicle, copy, on", "chronicle, reuse, off", "nio, reuse, on", "nio, copy, on"})
    void everyEventComesBackIntactAndTheCountsBalance(String transport, String mode, String buffered) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int status = EchoBenchmark.run(new String[] {"--transport", transport, "--mode", mode, "--buffered", buffered,
                        "--clients", "2", "--window", "64", "--warmup-s", "0.3", "--duration-s", "0.5"},
                new PrintStream(stdout, true), new PrintStream(stderr, true));
        List<String> lines = lines(stdout);
        String summary = lines.get(lines.size() - 1);
        assertEquals(0, status, summary + "\n" + stderr);
        assertTrue(lines.get(0).startsWith("{\"type\": \"header\""), lines.get(0));
        assertEquals("\"ok\"", field(summary, "status"));
        long sent = Long.parseLong(field(summary, "sent"));
        assertTrue(sent > 2 * 64, "at least a window per client went round: " + summary);
        assertEquals(sent, Long.parseLong(field(summary, "received")), summary);
        assertEquals(sent, Long.parseLong(field(summary, "echoed")), summary);
        assertEquals("0", field(summary, "corrupt"));
        assertTrue(Long.parseLong(field(summary, "events")) > 0, summary);
        assertTrue(Long.parseLong(field(summary, "rtt_p50_ns")) > 0, summary);
        double serviceBytes = Double.parseDouble(field(summary, "service_alloc_bytes_per_event"));
        if (mode.equals("copy")) {
            assertTrue(serviceBytes >= TopOfBook.LENGTH_BYTES, "a new event per event: " + summary);
        } else {
            // Not 0: before C2 compiles the loop, Chronicle's reading allocates a little.
            assertTrue(serviceBytes < TopOfBook.LENGTH_BYTES, "less than an event per event: " + summary);
        }
    }

    static List<String> lines(ByteArrayOutputStream out) {
        List<String> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** A top-level field's JSON text in a flat record. */
    static String field(String record, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\": (\"[^\"]*\"|[^,}]+)").matcher(record);
        assertTrue(m.find(), name + " in " + record);
        return m.group(1);
    }
}
