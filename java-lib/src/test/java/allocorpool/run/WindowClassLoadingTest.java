package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import allocorpool.record.JsonLines;
import com.fasterxml.jackson.core.JsonFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The measured window of a real-time run loads no class on the consumer thread. Loading one
 * there stops the consumer while it loads, and a class that extends one the compiled loop was
 * bound to as having no subclass voids that code, so that the loop runs interpreted until it is
 * compiled again. A full-size probe's first window period lost packets that way, 115 ms late with no
 * pause over 15 ms (the OS MXBean's first read, and HdrHistogram's ConcurrentHistogram).
 *
 * <p>The run goes through a class loader of its own, which loads the engine and its libraries
 * afresh and notes the thread and time of each class it defines.
 */
class WindowClassLoadingTest {
    @TempDir
    Path dir;

    private static final class Definition {
        final String name;
        final Thread thread;
        final long nanos;

        Definition(String name, Thread thread, long nanos) {
            this.name = name;
            this.thread = thread;
            this.nanos = nanos;
        }
    }

    private static final class NotingLoader extends URLClassLoader {
        final List<Definition> defined = Collections.synchronizedList(new ArrayList<>());

        NotingLoader(URL... urls) {
            super(urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            Class<?> c = super.findClass(name);
            defined.add(new Definition(name, Thread.currentThread(), System.nanoTime()));
            return c;
        }
    }

    private static URL codeOf(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation();
    }

    @Test
    void theMeasuredWindowLoadsNoClassOnTheConsumerThread() throws Exception {
        Path file = dir.resolve("realtime.jsonl");
        String[] args = {"--case", "B", "--strategy", "native-mix", "--mode", "realtime", "--interval-ns", "20000",
            "--duration-s", "3", "--warmup-s", "1", "--scale", "0.01", "--producer-cpu", "-1", "--consumer-cpu", "-1",
            "--out", file.toString()};
        try (NotingLoader loader = new NotingLoader(codeOf(Run.class), codeOf(JavaClockRun.class),
                codeOf(Histogram.class), codeOf(JsonFactory.class))) {
            Object status = loader.loadClass(JavaClockRun.class.getName()).getMethod("run", String[].class)
                    .invoke(null, (Object) args);
            assertEquals(0, status);

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
