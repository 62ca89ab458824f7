package allocorpool.measure;

import java.util.Map;

/**
 * What a run's reporter reads of its metered latency: each period's percentiles (the period then
 * starts over) and the measured window's. One consumer meters into a {@link LatencyMeter}, several
 * into one {@link SharedLatencyMeter}.
 */
public interface LatencyReport {
    /** Puts the period's percentiles into a periodic record and starts the next period. */
    void endPeriod(Map<String, Object> record);

    /** Puts the measured window's percentiles and sample count into the summary. */
    void summarize(Map<String, Object> summary);
}
