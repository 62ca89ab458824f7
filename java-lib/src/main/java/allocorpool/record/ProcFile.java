package allocorpool.record;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The lines of a small OS file (/proc), read through a FileInputStream rather than java.nio.file.Files,
 * whose FileChannel keeps a set of the threads reading it: JDK 11 with ZGC once failed inside that set
 * (an index of -1) before a run began.
 */
public final class ProcFile {
    private ProcFile() {}

    /** The file's lines, or none where it cannot be read. */
    public static List<String> lines(Path file) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(new FileInputStream(file.toFile()), StandardCharsets.UTF_8))) {
            return reader.lines().collect(Collectors.toList());
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }
}
