package allocorpool.record;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The header fields every Java program of the study writes (engine and queue benchmark):
 * who ran, where, on which JVM, from which commit. The launcher may pass what the JVM cannot
 * know as system properties: {@code allocorpool.run_id} (the id in its file name) and
 * {@code allocorpool.commit} (the checkout's commit; otherwise the commit the jar was built
 * from). The jar's own commit and the id of its sources (engine_commit, engine_source) come
 * from its build.
 */
public final class RunContext {
    private RunContext() {}

    /** A new header map holding the common fields; the caller adds its own. */
    public static Map<String, Object> header(String engine) {
        int cpus = Machine.cpus();
        Map<String, Object> r = new HashMap<>();
        r.put("type", "header");
        r.put("schema", RecordSchema.VERSION);
        r.put("engine", engine);
        r.put("run_id", System.getProperty("allocorpool.run_id", randomId()));
        r.put("started_utc", Instant.now().truncatedTo(ChronoUnit.MILLIS).toString());
        r.put("host", Machine.host());
        r.put("os", Machine.os());
        r.put("cpu_model", Machine.cpuModel());
        r.put("cpus", cpus);
        r.put("memory_bytes", Machine.memoryBytes());
        r.put("small_machine", cpus < 4);
        r.put("commit", System.getProperty("allocorpool.commit", built("commit")));
        r.put("engine_commit", built("commit"));
        r.put("engine_source", built("engine.source"));
        r.put("jdk_vendor", System.getProperty("java.vendor"));
        r.put("jdk_version", System.getProperty("java.runtime.version"));
        r.put("vm_name", System.getProperty("java.vm.name"));
        r.put("vm_flags", ManagementFactory.getRuntimeMXBean().getInputArguments());
        r.put("heap_max_bytes", Runtime.getRuntime().maxMemory());
        return r;
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

    /** A fact of the jar's build (build.properties): its commit, or its sources' id ("" where not set). */
    private static String built(String name) {
        try (InputStream in = RunContext.class.getResourceAsStream("/allocorpool/build.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            String value = p.getProperty(name, "");
            return value.startsWith("${") ? "" : value;
        } catch (IOException e) {
            return "";
        }
    }
}
