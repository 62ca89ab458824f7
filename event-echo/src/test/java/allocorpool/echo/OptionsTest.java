package allocorpool.echo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad options end with exit status 2 and a message naming what is valid; nothing is run. */
class OptionsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--transport|udp|--transport udp: not one of chronicle, nio",
            "--mode|pool|--mode pool: not one of reuse, copy",
            "--clients|0|--clients 0: not a whole number from 1 to 64",
            "--clients|two|--clients two: not a whole number from 1 to 64",
            "--window|0|--window 0: not a whole number from 1 to 65536",
            "--buffered|yes|--buffered yes: not one of on, off",
            "--duration-s|-1|--duration-s -1: not a number of seconds from 0.1 to 86400",
            "--warmup-s|NaN|--warmup-s NaN: not a number of seconds from 0.0 to 86400",
            "--speed|1|unknown option --speed; valid: --transport, --mode, --clients"})
    void theEchoRejectsABadOption(String option, String value, String message) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int status = EchoBenchmark.run(new String[] {option, value}, new PrintStream(stdout, true),
                new PrintStream(stderr, true));
        String error = stderr.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, error);
        assertTrue(error.startsWith("error: " + message), error);
        assertTrue(error.contains("usage:"), error);
        assertEquals("", stdout.toString(StandardCharsets.UTF_8), "no record written");
    }

    @Test
    void anOptionWithoutItsValueIsRejected() {
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int status = EchoBenchmark.run(new String[] {"--clients"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(stderr, true));
        assertEquals(2, status);
        assertTrue(stderr.toString(StandardCharsets.UTF_8).startsWith("error: --clients needs a value"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--threads|0|--threads 0: not a whole number from 1 to 64",
            "--forks|0|--forks 0: not a whole number from 1 to 10",
            "--iteration-ms|10|--iteration-ms 10: not a whole number from 50 to 60000",
            "--mode|copy|unknown option --mode; valid: --threads, --forks"})
    void theAllocationBenchmarkRejectsABadOption(String option, String value, String message) {
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int status = AllocationRate.run(new String[] {option, value}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(stderr, true));
        String error = stderr.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, error);
        assertTrue(error.startsWith("error: " + message), error);
    }
}
