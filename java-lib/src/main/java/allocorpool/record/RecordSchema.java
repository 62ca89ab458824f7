package allocorpool.record;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fields of each record type the Java engine writes (engine-facts.json's records, schema 1), in
 * one place: {@link RecordWriter} checks every record against it before writing, and the
 * tests check the files against it and it against engine-facts.json (EngineFactsTest). A field that does not apply is written as null,
 * never left out; cpp-only fields are not written.
 */
public final class RecordSchema {
    public static final int VERSION = 1;

    public static final List<String> HEADER = List.of(
            "type", "schema", "engine", "run_id", "started_utc", "host", "os", "cpu_model", "cpus",
            "memory_bytes", "small_machine", "commit", "engine_commit", "engine_source", "case", "strategy", "mode",
            "interval_ns", "duration_s", "warmup_s", "scale", "seed", "source", "params", "producer_cpu", "consumer_cpu",
            "jdk_vendor", "jdk_version", "vm_name", "vm_flags", "collector", "gc_beans", "heap_max_bytes",
            "clock_origin_nanotime", "series_probe", "threads", "scaling", "handoff");

    /** The fields of the header's {@code params} object. */
    public static final List<String> PARAMS = List.of(
            "pool_size", "mix_pool_size", "internal_queue_size", "stored_count",
            "max_capturing_delay_ms", "input_queue_size", "packet_bytes", "case_table");

    /** The fields of {@code params.case_table}: the case's own sizes, unscaled and not overridden. */
    public static final List<String> CASE_TABLE = List.of("internal_queue_size", "stored_count");

    public static final List<String> PERIODIC = List.of(
            "type", "t_s", "period_s", "packets", "packets_total", "lost", "lost_total",
            "ns_per_packet", "warmup", "latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns");

    public static final List<String> GC = List.of(
            "type", "t_s", "gc_id", "bean", "action", "cause", "duration_ms", "kind");

    public static final List<String> SUMMARY = List.of(
            "type", "status", "error", "failure", "t_s", "packets", "measured_packets", "measured_s",
            "measured_cpu_s", "ns_per_packet", "fill_packets", "fill_s", "timed_start_s", "window_start_s",
            "store_fill_at_window", "fifo_fill_at_window", "lost", "lost_measured", "lost_pct_measured",
            "measured_ticks_due", "producer_emitted",
            "producer_dropped", "trailing_dropped", "alloc_bytes_per_packet", "peak_rss_bytes",
            "gc_pause_count", "gc_pause_total_ms", "gc_pause_max_ms", "gc_cycle_count",
            "gc_cycle_total_ms", "ended_early", "live_objects", "live_bytes", "pool_capacity", "pool_free",
            "pool_in_use", "latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns", "latency_samples",
            "latency_sample_every", "thread_share_min", "thread_cpu_s", "thread_held", "netty_metrics");

    /** The queue benchmark's records: one probe of one interval, and the result of a pair. */
    public static final List<String> PROBE = List.of(
            "type", "pair", "capacity_rule", "queue_size", "interval_ns", "duration_s", "ticks_due", "emitted",
            "received", "taken_in_time", "dropped", "lost", "kept_up", "ok");

    public static final List<String> RESULT = List.of(
            "type", "pair", "capacity_rule", "queue_size", "probe_s", "write_ns", "good_interval_ns", "target_ns",
            "met_target");

    private RecordSchema() {}

    /** The fields of a record type: "header", "periodic", "gc", "summary", "probe" or "result". */
    public static List<String> fields(String type) {
        switch (String.valueOf(type)) {
            case "header":
                return HEADER;
            case "periodic":
                return PERIODIC;
            case "gc":
                return GC;
            case "summary":
                return SUMMARY;
            case "probe":
                return PROBE;
            case "result":
                return RESULT;
            default:
                throw new IllegalArgumentException("no record type " + type);
        }
    }

    /** Throws naming the missing and unexpected fields when a record does not fit its type. */
    public static void check(Map<String, ?> record) {
        Object type = record.get("type");
        checkFields(String.valueOf(type), fields(String.valueOf(type)), record.keySet());
        // The queue benchmark's header keeps its own settings in params.
        if ("header".equals(type) && "java".equals(record.get("engine"))) {
            Object params = record.get("params");
            if (!(params instanceof Map)) {
                throw new IllegalStateException("header: params is not an object");
            }
            checkFields("header.params", PARAMS, ((Map<?, ?>) params).keySet());
            Object table = ((Map<?, ?>) params).get("case_table");
            if (!(table instanceof Map)) {
                throw new IllegalStateException("header: params.case_table is not an object");
            }
            checkFields("header.params.case_table", CASE_TABLE, ((Map<?, ?>) table).keySet());
        }
    }

    private static void checkFields(String what, List<String> expected, Set<?> actual) {
        Set<Object> missing = new LinkedHashSet<>(expected);
        missing.removeAll(actual);
        Set<Object> extra = new LinkedHashSet<>(actual);
        extra.removeAll(expected);
        if (!missing.isEmpty() || !extra.isEmpty()) {
            throw new IllegalStateException(what + " record: missing " + missing + ", unexpected " + extra);
        }
    }
}
