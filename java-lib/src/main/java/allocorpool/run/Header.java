package allocorpool.run;

import allocorpool.model.CaseParams;
import allocorpool.model.Packet;
import allocorpool.record.Machine;
import allocorpool.record.RecordSchema;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The header record: what ran, where, on which JVM. The launcher may pass facts the JVM
 * cannot know as system properties: {@code allocorpool.run_id} (the id in its file name),
 * {@code allocorpool.collector} (the collector it chose) and {@code allocorpool.commit}
 * (otherwise the commit the jar was built from, in allocorpool/build.properties).
 */
final class Header {
    private Header() {}

    static Map<String, Object> record(RunConfig config, CaseParams params, List<String> gcBeans) {
        int cpus = Machine.cpus();
        Map<String, Object> r = new HashMap<>();
        r.put("type", "header");
        r.put("schema", RecordSchema.VERSION);
        r.put("engine", "java");
        r.put("run_id", System.getProperty("allocorpool.run_id", randomId()));
        r.put("started_utc", Instant.now().truncatedTo(ChronoUnit.MILLIS).toString());
        r.put("host", Machine.host());
        r.put("os", Machine.os());
        r.put("cpu_model", Machine.cpuModel());
        r.put("cpus", cpus);
        r.put("memory_bytes", Machine.memoryBytes());
        r.put("small_machine", cpus < 4);
        r.put("commit", System.getProperty("allocorpool.commit", builtCommit()));
        r.put("case", config.caseName);
        r.put("strategy", config.strategy);
        r.put("mode", config.mode);
        r.put("interval_ns", config.realtime() ? config.intervalNs : null);
        r.put("duration_s", config.durationS);
        r.put("warmup_s", config.warmupS);
        r.put("scale", config.scale);
        r.put("seed", config.seed);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("pool_size", params.poolSize);
        p.put("mix_pool_size", params.mixPoolSize);
        p.put("internal_queue_size", params.internalQueueSize);
        p.put("stored_count", params.storedCount);
        p.put("max_capturing_delay_ms", CaseParams.MAX_CAPTURING_DELAY_MS);
        p.put("input_queue_size", config.inputQueueSize());
        p.put("packet_bytes", Packet.BYTES);
        r.put("params", p);
        r.put("producer_cpu", config.realtime() && config.producerCpu >= 0 ? config.producerCpu : null);
        r.put("consumer_cpu", config.realtime() && config.consumerCpu >= 0 ? config.consumerCpu : null);
        r.put("jdk_vendor", System.getProperty("java.vendor"));
        r.put("jdk_version", System.getProperty("java.runtime.version"));
        r.put("vm_name", System.getProperty("java.vm.name"));
        r.put("vm_flags", ManagementFactory.getRuntimeMXBean().getInputArguments());
        r.put("collector", System.getProperty("allocorpool.collector", collector(gcBeans)));
        r.put("gc_beans", gcBeans);
        r.put("heap_max_bytes", Runtime.getRuntime().maxMemory());
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

    private static String randomId() {
        byte[] bytes = new byte[6];
        new SecureRandom().nextBytes(bytes);
        StringBuilder id = new StringBuilder();
        for (byte b : bytes) {
            id.append(String.format("%02x", b & 0xFF));
        }
        return id.toString();
    }

    private static String builtCommit() {
        try (InputStream in = Header.class.getResourceAsStream("/allocorpool/build.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("commit", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
