package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.strategy.HandoffBuffers;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-off runs (--threads N --handoff): for every hand-off strategy at one and two workers, weak and
 * strong, a run ends ok with exact books across threads: every packet the producer acquired was released
 * by a worker or is held by one (pool_capacity = pool_free + pool_in_use, the held the workers' live
 * sets), the producer's and each worker's CPU time recorded, and Netty's allocator metrics for the Netty
 * buffer strategies. Nothing here depends on how fast the threads run.
 */
class HandoffRunTest {
    private static final TickSourceFactory NO_TICKS = (interval, capacity, producer, consumer) -> {
        throw new AssertionError("batch runs need no tick source");
    };

    @TempDir
    Path dir;

    private final PrintStream human = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @Test
    void everyStrategyHandsOffToOneAndTwoWorkersWithExactBooks() throws IOException {
        for (String strategy : HandoffBuffers.NAMES) {
            for (int workers : new int[] {1, 2}) {
                for (String scaling : List.of("weak", "strong")) {
                    String what = strategy + " x " + workers + " " + scaling;
                    Path file = dir.resolve(strategy + "-" + workers + "-" + scaling + ".jsonl");
                    RunConfig config = RunFiles.config("B", strategy, "batch", 0, 0.01, false, file, "--threads",
                            String.valueOf(workers), "--handoff", "--scaling", scaling, "--duration-s", "0.3",
                            "--warmup-s", "0.1");
                    assertEquals(0, Run.execute(config, NO_TICKS, human, new BufferedReader(new StringReader(""))),
                            what);
                    List<Map<String, Object>> records = RunFiles.readRun(file);
                    assertEquals(true, records.get(0).get("handoff"), what);
                    assertEquals(scaling, records.get(0).get("scaling"), what);
                    Map<String, Object> s = records.get(records.size() - 1);
                    assertEquals("ok", s.get("status"), what + ": " + s);
                    long acquired = (Long) s.get("pool_capacity");
                    long released = (Long) s.get("pool_free");
                    long held = (Long) s.get("pool_in_use");
                    assertEquals(acquired, released + held, what + ": " + s);
                    assertTrue(released > 0 && (Long) s.get("fill_packets") > 0, what + ": " + s);
                    ThreadedRunTest.assertLiveSets(s, config, workers);
                    ThreadedRunTest.assertThreadCpu(s, workers + 1);  // the producer, then each worker
                    if (strategy.startsWith("netty-pooled")) {
                        NettyRunTest.assertNettyMetrics(s);
                    }
                }
            }
        }
    }
}
