package allocorpool.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The header's and the peak resident set's reader of /proc files: every line, or none. */
class ProcFileTest {
    @Test
    void readsEveryLineOfAFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("status");
        Files.write(file, List.of("Name:\tjava", "VmHWM:\t  1024 kB", "Threads:\t12"), StandardCharsets.UTF_8);
        assertEquals(List.of("Name:\tjava", "VmHWM:\t  1024 kB", "Threads:\t12"), ProcFile.lines(file));
    }

    @Test
    void aFileThatCannotBeReadHasNoLines(@TempDir Path dir) {
        assertEquals(List.of(), ProcFile.lines(dir.resolve("missing")));
        assertEquals(List.of(), ProcFile.lines(dir));  // a folder
    }

    @Test
    void readsProcWhereThereIsOne() {
        Path status = Path.of("/proc/self/status");
        if (Files.isReadable(status)) {
            assertTrue(ProcFile.lines(status).stream().anyMatch(line -> line.startsWith("VmHWM:")));
        }
    }
}
