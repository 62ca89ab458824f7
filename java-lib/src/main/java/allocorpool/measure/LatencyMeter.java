package allocorpool.measure;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Metered latency of a real-time run: how late a packet was made, from the moment its tick
 * was due on the clock's schedule (not from when the consumer took it), so a packet that
 * waited in the input queue behind a GC pause counts the whole wait.
 *
 * <p>One packet in {@link #SAMPLE_EVERY} is timed: a clock read costs tens of ns, as much as
 * the finest intervals the study probes, and one packet in 64 keeps the tail, because the
 * packets queued behind a pause are late by amounts that fall off evenly. Ticks that were lost
 * were never made and are not here: the loss counts them.
 *
 * <p>Values go into HdrHistograms at two significant digits (1 % resolution) up to an hour,
 * allocated once before the timed phase: a period's (reset each second) and the measured
 * window's (the packets whose ticks were due in it, as its loss counts the ticks due in it).
 * Single-threaded: the consumer records and reports (several consumers share a {@link SharedLatencyMeter}).
 */
public final class LatencyMeter implements LatencyReport {
    /** A packet in this many is timed. */
    public static final int SAMPLE_EVERY = 64;

    static final long HIGHEST_NS = 3_600_000_000_000L;
    static final int DIGITS = 2;

    private final Histogram period = new Histogram(HIGHEST_NS, DIGITS);
    private final Histogram window = new Histogram(HIGHEST_NS, DIGITS);

    /**
     * Records one sampled packet's lateness in ns (clamped to [0, an hour]) in its period, and in
     * the window when its tick was due in it.
     */
    public void record(long latenessNs, boolean inWindow) {
        long value = clamped(latenessNs);
        period.recordValue(value);
        if (inWindow) {
            window.recordValue(value);
        }
    }

    @Override
    public void endPeriod(Map<String, Object> record) {
        putPercentiles(record, period);
        period.reset();
    }

    @Override
    public void summarize(Map<String, Object> summary) {
        putWindow(summary, window);
    }

    /** A lateness in ns as metered: clamped to [0, an hour]. */
    static long clamped(long latenessNs) {
        return Math.max(0, Math.min(latenessNs, HIGHEST_NS));
    }

    /** The summary's latency fields from the measured window's histogram. */
    static void putWindow(Map<String, Object> summary, Histogram window) {
        putPercentiles(summary, window);
        summary.put("latency_samples", window.getTotalCount());
        summary.put("latency_sample_every", SAMPLE_EVERY);
    }

    /** The latency fields of a record with nothing measured (batch runs, runs that never started). */
    public static void putNone(Map<String, Object> record, boolean summary) {
        for (String field : new String[] {"latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns"}) {
            record.put(field, null);
        }
        if (summary) {
            record.put("latency_samples", null);
            record.put("latency_sample_every", null);
        }
    }

    static void putPercentiles(Map<String, Object> record, Histogram h) {
        if (h.getTotalCount() == 0) {
            putNone(record, false);
            return;
        }
        record.put("latency_p50_ns", h.getValueAtPercentile(50));
        record.put("latency_p99_ns", h.getValueAtPercentile(99));
        record.put("latency_p999_ns", h.getValueAtPercentile(99.9));
        record.put("latency_max_ns", h.getMaxValue());
    }
}
