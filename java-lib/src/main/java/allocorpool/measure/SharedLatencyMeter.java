package allocorpool.measure;

import java.util.HashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The metered latency of several consumers (real time with several processing threads), as
 * {@link LatencyMeter} meters one's: each consumer records its sampled packets, and the watching
 * thread reads a period's percentiles or the window's over all of them. HdrHistogram's recorders
 * take values from many threads without locks and hand the reader a stable copy.
 */
public final class SharedLatencyMeter implements LatencyReport {
    private final Recorder period = new Recorder(LatencyMeter.HIGHEST_NS, LatencyMeter.DIGITS);
    private final Recorder window = new Recorder(LatencyMeter.HIGHEST_NS, LatencyMeter.DIGITS);
    private Histogram periodCopy;
    private Histogram windowCopy;

    /**
     * A meter whose recording and reading paths ran once already (a value recorded and read back from
     * each recorder, then dropped), so that no class of theirs loads in the timed phase.
     */
    public SharedLatencyMeter() {
        period.recordValue(0);
        window.recordValue(0);
        periodCopy = period.getIntervalHistogram();
        LatencyMeter.putPercentiles(new HashMap<>(), periodCopy);
        periodCopy = period.getIntervalHistogram(periodCopy);  // empty: the value is dropped
        window.getIntervalHistogram();
    }

    /** As {@link LatencyMeter#record}; any consumer thread may call it. */
    public void record(long latenessNs, boolean inWindow) {
        long value = LatencyMeter.clamped(latenessNs);
        period.recordValue(value);
        if (inWindow) {
            window.recordValue(value);
        }
    }

    @Override
    public void endPeriod(Map<String, Object> record) {
        periodCopy = period.getIntervalHistogram(periodCopy);
        LatencyMeter.putPercentiles(record, periodCopy);
    }

    /** Read after the consumers stopped; later calls put the same figures. */
    @Override
    public void summarize(Map<String, Object> summary) {
        if (windowCopy == null) {
            windowCopy = window.getIntervalHistogram();
        }
        LatencyMeter.putWindow(summary, windowCopy);
    }
}
