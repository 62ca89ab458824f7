package allocorpool.run;

import allocorpool.model.CaseParams;
import allocorpool.model.Packet;
import allocorpool.record.RunContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's header record: the common fields of {@link RunContext} plus what ran, with
 * the run clock's origin ({@code clock_origin_nanotime}: System.nanoTime at t_s = 0). The
 * launcher passes the collector it chose as {@code allocorpool.collector}; without it the
 * collector is named from the GC beans.
 */
final class Header {
    private Header() {}

    static Map<String, Object> record(RunConfig config, CaseParams params, List<String> gcBeans, RunClock clock) {
        Map<String, Object> r = RunContext.header("java");
        r.put("case", config.caseName);
        r.put("strategy", config.strategy);
        r.put("mode", config.mode);
        r.put("interval_ns", config.realtime() ? config.intervalNs : null);
        r.put("duration_s", config.durationS);
        r.put("warmup_s", config.warmupS);
        r.put("scale", config.scale);
        r.put("seed", config.seed);
        r.put("source", config.source);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("pool_size", params.poolSize);
        p.put("mix_pool_size", params.mixPoolSize);
        p.put("internal_queue_size", params.internalQueueSize);
        p.put("stored_count", params.storedCount);
        p.put("max_capturing_delay_ms", config.realtime() ? config.captureDelayMs : CaseParams.MAX_CAPTURING_DELAY_MS);
        p.put("input_queue_size", config.inputQueueSize());
        p.put("packet_bytes", Packet.BYTES);
        Map<String, Object> table = new LinkedHashMap<>();
        table.put("internal_queue_size", params.tableInternalQueueSize);
        table.put("stored_count", params.tableStoredCount);
        p.put("case_table", table);
        r.put("params", p);
        r.put("producer_cpu", config.realtime() && config.producerCpu >= 0 ? config.producerCpu : null);
        r.put("consumer_cpu", config.realtime() && config.consumerCpu >= 0 ? config.consumerCpu : null);
        r.put("collector", System.getProperty("allocorpool.collector", collector(gcBeans)));
        r.put("gc_beans", gcBeans);
        r.put("clock_origin_nanotime", clock.originNanos);
        r.put("series_probe", null);
        r.put("threads", config.threads > 0 ? config.threads : null);
        r.put("scaling", config.threads > 0 ? config.scaling : null);
        r.put("handoff", config.threads > 0 ? config.handoff : null);
        return r;
    }

    /** The collector's usual name, from the names of its beans. */
    static String collector(List<String> gcBeans) {
        String first = gcBeans.isEmpty() ? "" : gcBeans.get(0);
        if (first.equals("ParNew") || first.equals("ConcurrentMarkSweep")) {
            return "CMS";
        } else if (first.startsWith("G1")) {
            return "G1";
        } else if (first.startsWith("PS ")) {
            return "Parallel";
        } else if (first.equals("Copy") || first.equals("MarkSweepCompact")) {
            return "Serial";
        } else if (first.startsWith("ZGC")) {
            return "ZGC";
        } else if (first.startsWith("Shenandoah")) {
            return "Shenandoah";
        } else if (first.startsWith("Epsilon")) {
            return "Epsilon";
        }
        return first.isEmpty() ? "unknown" : first;
    }
}
