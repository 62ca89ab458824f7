package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import allocorpool.record.JsonLines;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The measured window of a real-time run loads no class on the consumer thread. Loading one
 * there stops the consumer while it loads, and a class that extends one the compiled loop was
 * bound to as having no subclass voids that code, so that the loop runs interpreted until it is
 * compiled again. A full-size probe's first window period lost packets that way, 115 ms late with no
 * pause over 15 ms (the OS MXBean's first read, and HdrHistogram's ConcurrentHistogram). The Netty
 * strategies are checked too: their allocators load classes of their own when they first need them.
 *
 * <p>The run goes through a class loader of its own ({@link NotingLoader}), which loads the engine
 * and its libraries afresh and notes the thread and time of each class it defines.
 */
class WindowClassLoadingTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"native-mix", "netty-pooled-heap", "netty-pooled-direct", "netty-unpooled"})
    void theMeasuredWindowLoadsNoClassOnTheConsumerThread(String strategy) throws Exception {
        Path file = dir.resolve("realtime.jsonl");
        String[] args = {"--case", "B", "--strategy", strategy, "--mode", "realtime", "--interval-ns", "20000",
            "--duration-s", "3", "--warmup-s", "1", "--scale", "0.01", "--producer-cpu", "-1", "--consumer-cpu", "-1",
            "--out", file.toString()};
        try (NotingLoader loader = new NotingLoader()) {
            assertEquals(0, loader.run(args));

            List<Map<String, Object>> records = JsonLines.read(file);
            long origin = (Long) records.get(0).get("clock_origin_nanotime");
            Map<String, Object> summary = records.get(records.size() - 1);
            long windowStart = origin + Math.round((Double) summary.get("window_start_s") * 1e9);
            long end = origin + Math.round((Double) summary.get("t_s") * 1e9);
            List<String> inWindow;
            synchronized (loader.defined) {
                inWindow = loader.defined.stream()
                        .filter(d -> d.thread == Thread.currentThread() && d.nanos >= windowStart && d.nanos <= end)
                        .map(d -> d.name).collect(Collectors.toList());
            }
            assertEquals(List.of(), inWindow, "classes the consumer loaded in the measured window");
        }
    }
}
