package allocorpool.measure;

import allocorpool.record.ProcFile;
import java.nio.file.Paths;

/** The process's peak resident set (VmHWM in /proc/self/status): heap, native buffers and all. */
public final class PeakRss {
    private PeakRss() {}

    /** Bytes, or null where /proc is not there. */
    public static Long bytes() {
        try {
            for (String line : ProcFile.lines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }
}
