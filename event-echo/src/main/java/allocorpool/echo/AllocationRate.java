package allocorpool.echo;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collection;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Version;

/**
 * Runs {@link AllocateTopOfBook} under JMH with its GC profiler on N threads and writes the
 * result as JSON Lines (event-echo/README.md): a header, one "iteration" record per measured
 * iteration, a summary. JMH's own report goes to standard error. The forked JVM is this one's
 * java with this one's flags (collector, heap), so the launcher's choices hold in the fork.
 *
 * <p>Exit status: 0 on success, 1 when JMH failed, 2 for bad options.
 */
public final class AllocationRate {
    static final String USAGE = String.join("\n",
            "usage: java -cp event-echo.jar allocorpool.echo.AllocationRate [options]",
            "  --threads N             threads allocating at once, 1 to 64 (default 1)",
            "  --forks N               JMH forks, 1 to 10 (default 1)",
            "  --warmup-iterations N   0 to 100 (default 3)",
            "  --iterations N          measured iterations per fork, 1 to 100 (default 5)",
            "  --iteration-ms N        length of each iteration, 50 to 60000 (default 1000)",
            "  --out FILE              JSON Lines records; default: standard output",
            "  --help                  this text");

    int threads = 1;
    int forks = 1;
    int warmupIterations = 3;
    int iterations = 5;
    int iterationMs = 1000;
    Path out;
    boolean help;

    static AllocationRate parse(String... args) throws UsageException {
        AllocationRate o = new AllocationRate();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--help":
                case "-h":
                    o.help = true;
                    continue;
                case "--threads":
                    o.threads = Args.integer(option, Args.value(args, i++), 1, 64);
                    break;
                case "--forks":
                    o.forks = Args.integer(option, Args.value(args, i++), 1, 10);
                    break;
                case "--warmup-iterations":
                    o.warmupIterations = Args.integer(option, Args.value(args, i++), 0, 100);
                    break;
                case "--iterations":
                    o.iterations = Args.integer(option, Args.value(args, i++), 1, 100);
                    break;
                case "--iteration-ms":
                    o.iterationMs = Args.integer(option, Args.value(args, i++), 50, 60_000);
                    break;
                case "--out":
                    o.out = Paths.get(Args.value(args, i++));
                    break;
                default:
                    throw new UsageException("unknown option " + option + "; valid: --threads, --forks, "
                            + "--warmup-iterations, --iterations, --iteration-ms, --out, --help");
            }
        }
        return o;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream stdout, PrintStream stderr) {
        AllocationRate options;
        try {
            options = parse(args);
        } catch (UsageException e) {
            stderr.println("error: " + e.getMessage());
            stderr.println(USAGE);
            return 2;
        }
        if (options.help) {
            stdout.println(USAGE);
            return 0;
        }
        try (RecordWriter out = options.out == null ? RecordWriter.to(stdout) : RecordWriter.to(options.out)) {
            return options.measure(out, stderr) ? 0 : 1;
        }
    }

    private boolean measure(RecordWriter out, PrintStream log) {
        long originNs = System.nanoTime();
        Map<String, Object> header = RunFacts.header("allocation");
        header.put("benchmark", AllocateTopOfBook.class.getSimpleName() + ".copy");
        header.put("threads", threads);
        header.put("forks", forks);
        header.put("warmup_iterations", warmupIterations);
        header.put("iterations", iterations);
        header.put("iteration_ms", iterationMs);
        header.put("event_bytes", TopOfBook.LENGTH_BYTES);
        header.put("jmh_version", Version.getPlainVersion());
        out.write(header);
        Map<String, Object> summary = RecordWriter.record("summary");
        try {
            ChainedOptionsBuilder jmh = new OptionsBuilder()
                    .include(AllocateTopOfBook.class.getName() + ".copy")
                    .threads(threads).forks(forks)
                    .warmupIterations(warmupIterations).warmupTime(TimeValue.milliseconds(iterationMs))
                    .measurementIterations(iterations).measurementTime(TimeValue.milliseconds(iterationMs))
                    .addProfiler(GCProfiler.class)
                    .jvm(Paths.get(System.getProperty("java.home"), "bin", "java").toString())
                    .jvmArgs(ManagementFactory.getRuntimeMXBean().getInputArguments().toArray(new String[0]))
                    .verbosity(VerboseMode.NORMAL);
            Collection<RunResult> results = new Runner(jmh.build(),
                    OutputFormatFactory.createFormatInstance(log, VerboseMode.NORMAL)).run();
            if (results.isEmpty()) {
                throw new IllegalStateException("JMH returned no result");
            }
            RunResult result = results.iterator().next();
            int n = 0;
            for (BenchmarkResult fork : result.getBenchmarkResults()) {
                for (IterationResult iteration : fork.getIterationResults()) {
                    Map<String, Object> record = RecordWriter.record("iteration");
                    record.put("iteration", n++);
                    put(record, iteration.getPrimaryResult(), iteration.getSecondaryResults());
                    out.write(record);
                }
            }
            BenchmarkParams params = result.getParams();
            summary.put("status", "ok");
            summary.put("error", null);
            summary.put("threads", params.getThreads());
            put(summary, result.getPrimaryResult(), result.getSecondaryResults());
            summary.put("ns_per_op_error", result.getPrimaryResult().getScoreError());
        } catch (Exception e) {
            e.printStackTrace(log);
            summary.put("status", "error");
            summary.put("error", e.toString());
        }
        summary.put("t_s", (System.nanoTime() - originNs) / 1e9);
        out.write(summary);
        return "ok".equals(summary.get("status"));
    }

    /** Time per call, calls per second over all threads, and the GC profiler's figures. */
    private void put(Map<String, Object> record, Result<?> primary, Map<String, Result> secondary) {
        double nsPerOp = primary.getScore();
        record.put("ns_per_op", nsPerOp);
        record.put("ops_per_s", threads * 1e9 / nsPerOp);
        Double rateMb = secondary(secondary, "gc.alloc.rate");
        record.put("alloc_bytes_per_s", rateMb == null ? null : rateMb * 1024 * 1024);
        record.put("alloc_bytes_per_op", secondary(secondary, "gc.alloc.rate.norm"));
        record.put("gc_count", secondary(secondary, "gc.count"));
        record.put("gc_time_ms", secondary(secondary, "gc.time"));
    }

    private static Double secondary(Map<String, Result> results, String label) {
        for (Map.Entry<String, Result> entry : results.entrySet()) {
            // Older JMH versions prefix the profiler's labels with a middle dot.
            if (entry.getKey().replaceFirst("^[^a-z]+", "").equals(label)) {
                return entry.getValue().getScore();
            }
        }
        return null;
    }
}
