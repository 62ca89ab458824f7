package allocorpool.run;

import static allocorpool.run.RunFiles.config;
import static allocorpool.run.RunFiles.periodic;
import static allocorpool.run.RunFiles.readRun;
import static allocorpool.run.RunFiles.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;

import allocorpool.queue.ScriptedTicks;
import allocorpool.queue.ScriptedTicks.Script;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real-time runs on a scripted clock ({@link ScriptedTicks}): the loss and latency accounting of
 * the engine's loop, reporter and queue reader, each figure following from the run's script,
 * whatever else the machine runs.
 *
 * <p>Ticks come every 20 us, tick k due k * 20 us after the timed phase starts, and each packet
 * costs 5 us. A consumer that keeps up takes tick k as it falls due, at its poll 2k + 1, and the
 * poll after finds nothing and waits for tick k + 1: two polls a tick, so the loop's check after
 * every 1,024 polls comes after packet 512m, at 512m * 20 us. The window opens at the first check
 * from 1 s on (packet 50,176 at 1.00352 s; its ticks are those from 50,000, due from 1 s) and the
 * run ends at the first from 2 s on (packet 100,352 at 2.00704 s). Ticks that piled up are taken
 * back to back, a batch of b in b + 1 polls rather than 2b, which brings the later checks forward.
 * Packet n (tick n - 1 while none is lost) is sampled for latency when 64 divides n; HdrHistogram
 * reports a value as the highest of its bucket.
 */
class RealtimeAccountingTest {
    private static final long INTERVAL_NS = 20_000;
    private static final long PACKET_NS = 5_000;
    private static final long MS = 1_000_000;
    private static final Histogram BUCKETS = new Histogram(3_600_000_000_000L, 2);  // LatencyMeter's

    @TempDir
    Path dir;

    /** Runs case B's native-mix for 2 s (1 s of warm-up) on the script's clock; returns its records. */
    private List<Map<String, Object>> run(String name, int capacityShare, Script script, String... more)
            throws IOException {
        Path file = dir.resolve(name + ".jsonl");
        TickSourceFactory scripted = (interval, capacity, producer, consumer) -> {
            assertEquals(5_000, capacity, "100 ms of ticks at 20 us");
            return ScriptedTicks.open(capacity / capacityShare, interval, script);
        };
        ByteArrayOutputStream human = new ByteArrayOutputStream();
        int status = Run.execute(config("B", "native-mix", "realtime", INTERVAL_NS, 0.01, false, file, more), scripted,
                new PrintStream(human, true, StandardCharsets.UTF_8));
        assertEquals(0, status, human.toString(StandardCharsets.UTF_8));
        return readRun(file);
    }

    private static Map<String, Object> summary(List<Map<String, Object>> records) {
        return records.get(records.size() - 1);
    }

    /** The ns from the timed phase's start to a record's t_s (or another time field). */
    private static long sinceStart(Map<String, Object> summary, Map<String, Object> record, String field) {
        return Math.round(((Double) record.get(field) - (Double) summary.get("timed_start_s")) * 1e9);
    }

    /** What the latency meter reports for a lateness of {@code ns}. */
    private static long reported(long ns) {
        return BUCKETS.highestEquivalentValue(ns);
    }

    @Test
    void aConsumerThatKeepsUpTakesEveryTickAsItFallsDue() throws IOException {
        List<Map<String, Object>> records = run("keeps-up", 1, new Script(PACKET_NS));
        Map<String, Object> summary = summary(records);
        String s = summary.toString();
        assertEquals(1_003_520_000L, sinceStart(summary, summary, "window_start_s"), s);
        assertEquals(2_007_040_000L, sinceStart(summary, summary, "t_s"), s);
        assertEquals(100_352L, summary.get("packets"), s);
        assertEquals(50_176L, summary.get("measured_packets"), s);
        assertEquals(50_176L, summary.get("measured_ticks_due"), s);
        assertEquals(100_353L, summary.get("producer_emitted"), "and tick 100,352, due at the end: " + s);
        assertEquals(0L, summary.get("producer_dropped"), s);
        assertEquals(0L, summary.get("lost"), s);
        assertEquals(0L, summary.get("lost_measured"), s);
        assertEquals(787L, summary.get("latency_samples"), "packets 50,048 to 100,352, one in 64: " + s);
        assertEquals(reported(PACKET_NS), summary.get("latency_p50_ns"), s);
        assertEquals(reported(PACKET_NS), summary.get("latency_max_ns"), s);
        List<Map<String, Object>> periods = periodic(records);
        assertEquals(2, periods.size(), periods.toString());
        assertEquals(50_176L, periods.get(0).get("packets"));
        assertEquals(50_176L, periods.get(1).get("packets"));
    }

    /**
     * A 50 ms stall from 1.5 s, behind arrays of 100 ms (5,000 ticks): nothing is lost, and the
     * metered latency shows the stall while the median is that of a consumer that keeps up. The
     * stalled packet is tick 75,000's; the 2,500 ticks due in the stall, and tick 77,501, on which
     * the consumer next looks, make a batch taken from 1.55002 s, its i-th (tick 75,000 + i)
     * 50,020,000 - 15,000 i ns late; the first sampled is packet 75,008 (i = 7). The batches that
     * catch up (2,501, 626, 157, 40, 11 and 3 ticks) save 3,332 polls, so the later checks come
     * after packet 512m + 1,666: the run ends after packet 100,482 at 2.00964 s.
     */
    @Test
    void theMeteredLatencyShowsAStallThatLosesNothing() throws IOException {
        List<Map<String, Object>> records = run("stall", 1, new Script(PACKET_NS).stall(1_500 * MS, 50 * MS));
        Map<String, Object> summary = summary(records);
        String s = summary.toString();
        assertEquals(0L, summary.get("producer_dropped"), "100 ms of queue bridges a 50 ms stall: " + s);
        assertEquals(0L, summary.get("lost_measured"), s);
        assertEquals(2_009_640_000L, sinceStart(summary, summary, "t_s"), s);
        assertEquals(100_482L, summary.get("packets"), s);
        assertEquals(50_306L, summary.get("measured_packets"), s);
        assertEquals(reported(50_020_000 - 15_000 * 7), summary.get("latency_max_ns"), s);
        assertEquals(reported(PACKET_NS), summary.get("latency_p50_ns"), "most packets are not behind the stall: " + s);
        assertEquals(64L, summary.get("latency_sample_every"));
        assertEquals(789L, summary.get("latency_samples"), "packets 50,048 to 100,480, one in 64: " + s);
        List<Map<String, Object>> periods = periodic(records);
        assertEquals(2, periods.size(), periods.toString());
        assertEquals(summary.get("latency_max_ns"), periods.get(1).get("latency_max_ns"), "the window's period");
    }

    /**
     * A 60 ms stall from 0.95 s, 50 ms before the window's start: the queue bridges it, and its
     * batch of 3,001 ticks (47,501 to 50,501) is taken from 1.01002 s, tick 47,500 + i
     * 60,020,000 - 15,000 i ns late. The check in that batch after its 230th tick (1.01117 s) ends
     * the warm-up's period and opens the window. The warm-up's period shows the stall through its
     * first sampled packet (i = 51); the window's period through i = 243, a tick due before the
     * window that it took; the window itself only through tick 50,047 (i = 2,547), the first of
     * its own that was sampled.
     */
    @Test
    void theWindowsLatencyIsThatOfTheTicksDueInIt() throws IOException {
        List<Map<String, Object>> records = run("straddles-latency", 1,
                new Script(PACKET_NS).stall(950 * MS, 60 * MS));
        Map<String, Object> summary = summary(records);
        String s = summary.toString();
        assertEquals(0L, summary.get("lost"), "100 ms of queue bridge a 60 ms stall: " + s);
        assertEquals(1_011_170_000L, sinceStart(summary, summary, "window_start_s"), s);
        List<Map<String, Object>> periods = periodic(records);
        assertEquals(2, periods.size(), periods.toString());
        assertEquals(reported(60_020_000 - 15_000 * 51), periods.get(0).get("latency_max_ns"), "the warm-up's");
        assertEquals(reported(60_020_000 - 15_000 * 243), periods.get(1).get("latency_max_ns"), "the window's period");
        assertEquals(reported(60_020_000 - 15_000 * 2_547), summary.get("latency_max_ns"), "the window's: " + s);
    }

    /**
     * A 200 ms stall from 0.85 s, behind arrays of 10 ms (500 ticks), with 0.99999 s of warm-up:
     * the window's ticks are those from 50,000, the first due in it. Of the 10,000 ticks due in the
     * stall (42,501 to 52,500) the first 500 are written and the rest dropped, and so is tick
     * 52,501, due when the consumer next looks; the batch after the 500 starts with tick 52,502, a
     * gap of 9,501 found at 1.05254 s. Only its ticks due in the window, 50,000 to 52,501, are the
     * window's loss, though the consumer found the gap before the check that opened the window
     * (after tick 52,841, at 1.056825 s: the batches of 500, 126, 32, 9 and 3 ticks saved 665
     * polls), so that the warm-up's period counts it all.
     */
    @Test
    void theWindowLosesOnlyTheTicksDueInIt() throws IOException {
        List<Map<String, Object>> records = run("straddles-loss", 10,
                new Script(PACKET_NS).stall(850 * MS, 200 * MS), "--warmup-s", "0.99999");
        Map<String, Object> summary = summary(records);
        String s = summary.toString();
        assertEquals(9_501L, summary.get("producer_dropped"), s);
        assertEquals(9_501L, summary.get("lost"), s);
        assertEquals(0L, summary.get("trailing_dropped"), s);
        assertEquals(1_056_825_000L, sinceStart(summary, summary, "window_start_s"), s);
        List<Map<String, Object>> periods = periodic(records);
        assertEquals(true, periods.get(0).get("warmup"));
        assertEquals(9_501L, periods.get(0).get("lost"), "found before the window opened");
        assertEquals(2_502L, summary.get("lost_measured"), s);
    }

    /**
     * Three times slower than the clock (60 us a packet) from 1.9 s, behind arrays of 500 ticks:
     * the batches grow (1, 4, 13, 40, 121, 364 ticks) until the 364 leave 1,092 ticks due, 500
     * written and 592 dropped, and one more when the consumer next looks. From then on a batch of
     * 500 takes 30 ms, in which 1,500 ticks fall due: 500 written, 1,000 dropped, and one more. The
     * consumer finds gaps of 593, 1,001 and 1,001, and the run ends at the check in the 10th batch,
     * after its 460th tick (2.05036 s: the checks are a batch apart now). The drain finds the gap
     * of 1,001 before the producer's last array, and the 880 ticks dropped after it stay trailing.
     * All are due in the window: its loss is every drop.
     */
    @Test
    void lostMeasuredCountsTheDrainGapsAndTheTrailingDrops() throws IOException {
        List<Map<String, Object>> records = run("behind", 10,
                new Script(PACKET_NS).slowFrom(1_900 * MS, 3 * INTERVAL_NS));
        Map<String, Object> summary = summary(records);
        String s = summary.toString();
        assertEquals(2_050_360_000L, sinceStart(summary, summary, "t_s"), s);
        assertEquals(97_503L, summary.get("packets"), s);
        assertEquals(102_519L, summary.get("producer_emitted"), s);
        assertEquals(4_476L, summary.get("producer_dropped"), s);
        assertEquals(2_595L, sum(records, "lost", false), "the gaps found while running");
        assertEquals(3_596L, summary.get("lost"), "and the one found draining: " + s);
        assertEquals(880L, summary.get("trailing_dropped"), s);
        assertEquals(4_476L, summary.get("lost_measured"), s);
    }
}
