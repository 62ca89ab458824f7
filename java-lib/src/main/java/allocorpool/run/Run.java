package allocorpool.run;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.measure.ClassHistogram;
import allocorpool.measure.GcMonitor;
import allocorpool.measure.LatencyMeter;
import allocorpool.measure.PeakRss;
import allocorpool.model.CaseParams;
import allocorpool.model.PacketLoop;
import allocorpool.model.PacketSource;
import allocorpool.queue.TickSource;
import allocorpool.queue.TickStats;
import allocorpool.queue.TickWindow;
import allocorpool.record.RecordWriter;
import allocorpool.strategy.BufferStrategy;
import allocorpool.strategy.NettyMetrics;
import allocorpool.strategy.PoolCounts;
import allocorpool.strategy.Strategies;
import allocorpool.Options;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * One run from start to summary: header, model, the fill phase (see {@link FillPhase}),
 * the batch or real-time loop, and a summary whatever happens. Any failure after the
 * header (an exhausted pool, an OutOfMemoryError, a fill that does not finish, a tick
 * source that cannot start, tick counts that do not balance) ends in a summary with
 * status "error" and exit status 1; the tick source is finished on every path.
 *
 * <p>A series (--probes-from-stdin) fills the model once: after the command line's own real-time
 * run, each line of standard input runs one more probe on the model as the previous probe left it,
 * each to its own file (header, records, summary; the header's series_probe counts them from 0,
 * the later ones' fill is 0). A fill takes 17-83 s at the article's sizes, a probe 8 s, and a search
 * probes one cell up to a dozen times. All probes of a series share its clock (t_s 0 is the first
 * header) and its GC log. The series ends when standard input closes (exit 0), at a probe that fails
 * (1) or at a line that is not a probe (2).
 */
public final class Run {
    /** Seconds the fill phase may take beyond --duration-s. */
    static final double FILL_GRACE_S = 600;

    private final RunConfig config;
    private final TickSourceFactory ticks;
    private final RecordWriter out;
    private final GcMonitor gc;
    private final PrintStream human;
    private final RunClock clock;
    private final Integer seriesProbe;
    private final BiFunction<String, CaseParams, BufferStrategy> strategies;
    private PacketLoop loop;
    private FillPhase fill;
    private PeriodReporter reporter;
    private TickStats stats;
    private ClassHistogram live;
    private PoolCounts counts;
    /** A run of several threads (ThreadedRun or HandoffRun), once made. */
    private ThreadsOutcome threaded;
    /** Netty's allocator metrics, read after the timed phase while a threaded run's threads are still alive. */
    private Map<String, Object> nettyMetrics;

    private Run(RunConfig config, TickSourceFactory ticks, RecordWriter out, GcMonitor gc, PrintStream human,
            RunClock clock, Integer seriesProbe, BiFunction<String, CaseParams, BufferStrategy> strategies) {
        this.config = config;
        this.ticks = ticks;
        this.out = out;
        this.gc = gc;
        this.human = human;
        this.clock = clock;
        this.seriesProbe = seriesProbe;
        this.strategies = strategies;
    }

    /** Runs and returns the exit status: 0 when every summary says "ok", 1 when one does not, 2 for a bad probe line. */
    public static int execute(RunConfig config, TickSourceFactory ticks, PrintStream human) {
        return execute(config, ticks, human,
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    }

    /** As {@link #execute(RunConfig, TickSourceFactory, PrintStream)}, a series' next probes read from probes. */
    static int execute(RunConfig config, TickSourceFactory ticks, PrintStream human, BufferedReader probes) {
        return execute(config, ticks, human, probes, Strategies::create);
    }

    /** As above, the strategy made by {@code strategies} from its name and sizes (a test's own variant). */
    static int execute(RunConfig config, TickSourceFactory ticks, PrintStream human, BufferedReader probes,
            BiFunction<String, CaseParams, BufferStrategy> strategies) {
        try (GcMonitor gc = new GcMonitor()) {
            RunClock clock = RunClock.start();
            PacketLoop filled = null;
            RunConfig probe = config;
            for (int index = 0; ; index++) {
                try (RecordWriter out = RecordWriter.open(probe.out)) {
                    Run run = new Run(probe, ticks, out, gc, human, clock, config.probesFromStdin ? index : null,
                            strategies);
                    int status = run.run(filled);
                    if (status != 0 || !config.probesFromStdin) {
                        return status;
                    }
                    filled = run.loop;
                } catch (IOException e) {
                    human.println("alloc-or-pool: cannot write records to " + probe.out + ": " + e);
                    return 1;
                }
                String line;
                try {
                    line = probes.readLine();
                } catch (IOException e) {
                    human.println("alloc-or-pool: cannot read the next probe: " + e);
                    return 1;
                }
                if (line == null || line.isBlank()) {
                    return 0;
                }
                try {
                    probe = Options.nextProbe(config, line);
                } catch (Options.UsageException e) {
                    human.println("alloc-or-pool: probe line '" + line + "': " + e.getMessage());
                    return 2;
                }
            }
        }
    }

    /** One run to its file; a series' later probe takes the model as the probe before left it (filled). */
    private int run(PacketLoop filled) throws IOException {
        CaseParams params = config.caseParams();
        Map<String, Object> header = Header.record(config, params, gc.beanNames(), clock);
        header.put("series_probe", seriesProbe);
        out.write(header);
        try {
            if (config.threads > 0) {
                if (config.handoff) {
                    runHandoff(params);
                } else {
                    runThreaded(params);
                }
                return finishRun(null);
            }
            loop = filled;
            if (loop == null) {
                loop = new PacketLoop(strategies.apply(config.strategy, params),
                        PacketSource.create(config.source, config.seed), params);
                fill = new FillPhase(loop, params, Strategies.fillsStore(config.strategy));
                fill.run(loop, System.nanoTime() + Math.round((config.durationS + FILL_GRACE_S) * 1e9),
                        (config.durationS + FILL_GRACE_S) + " s (--duration-s + " + FILL_GRACE_S + " s)");
            }
            PeriodReporter.writeGc(out, gc, clock);
            if (config.realtime()) {
                try (TickSource source = ticks.open(config.intervalNs, config.inputQueueSize(),
                        config.producerCpu, config.consumerCpu)) {
                    LatencyMeter latency = new LatencyMeter();
                    reporter = new PeriodReporter(out, gc, config, human, clock, loop.processor(), params, source,
                            latency);
                    RealtimeLoop.run(loop, source, reporter, latency);
                    stats = source.finish();
                    reporter.settleLost(stats.gaps, stats.trailingDropped);
                    checkBalance(stats);
                }
            } else {
                reporter = new PeriodReporter(out, gc, config, human, clock, loop.processor(), params, null, null);
                BatchLoop.run(loop, reporter);
            }
            reporter.finish();
            return finishRun(loop);
        } catch (Exception | Error e) {
            human.println("alloc-or-pool: run failed: " + e);
            e.printStackTrace(human);
            out.write(summary(e));
            return 1;
        }
    }

    /** After the timed phase: the live objects if asked for, the checked counts, the summary. */
    private int finishRun(PacketLoop one) throws Exception {
        if (config.liveObjects) {
            live = ClassHistogram.take();
            reporter.writeGc();
        }
        counts = one != null ? checkedCounts(one) : threaded.checkedCounts();
        out.write(summary(null));
        if (one == null) {
            threaded.releaseHeld();
        } else if (!config.probesFromStdin) {
            one.processor().releaseAll(); // a series' next probe goes on with the model as it is
        }
        return 0;
    }

    /**
     * A run of --threads N (see ThreadedRun), batch or real time; the threads are ended on every path.
     * In real time the tick counts must balance for every consumer.
     */
    private void runThreaded(CaseParams params) throws IOException, InterruptedException {
        ThreadedRun threaded = new ThreadedRun(config, params, strategies, ticks);
        this.threaded = threaded;
        try {
            threaded.fill(System.nanoTime() + Math.round((config.durationS + FILL_GRACE_S) * 1e9),
                    (config.durationS + FILL_GRACE_S) + " s (--duration-s + " + FILL_GRACE_S + " s)");
            PeriodReporter.writeGc(out, gc, clock);
            TickWindow window = config.realtime() ? threaded.openTicks() : null;
            reporter = new PeriodReporter(out, gc, config, human, clock, threaded.firstProcessor(),
                    threaded.firstShare(), window, threaded.latency(), threaded.allocationMeter(), threaded.threadCpu(),
                    config.processingThreads());
            threaded.run(reporter);
            if (window != null) {
                stats = threaded.tickStats();
                reporter.settleLost(stats.gaps, stats.trailingDropped);
            }
            reporter.finish();
            nettyMetrics = nettyMetrics();
        } finally {
            threaded.end();
        }
    }

    /** A hand-off run (see HandoffRun), batch; its threads are ended on every path. */
    private void runHandoff(CaseParams params) throws IOException, InterruptedException {
        HandoffRun handoff = new HandoffRun(config, params);
        threaded = handoff;
        try {
            handoff.fill(System.nanoTime() + Math.round((config.durationS + FILL_GRACE_S) * 1e9),
                    (config.durationS + FILL_GRACE_S) + " s (--duration-s + " + FILL_GRACE_S + " s)");
            PeriodReporter.writeGc(out, gc, clock);
            reporter = new PeriodReporter(out, gc, config, human, clock, handoff.firstProcessor(), handoff.firstShare(),
                    null, null, handoff.allocationMeter(), handoff.threadCpu(), 1);
            handoff.run(reporter);
            reporter.finish();
            nettyMetrics = nettyMetrics();
        } finally {
            handoff.end();
        }
    }

    /**
     * Both sides of the queue must agree on every tick (the consumer's reordering check is
     * SequenceTracker's, on every tick): a run whose counts do not balance has measured
     * nothing trustworthy, and ends in an error naming the counts.
     */
    static void checkBalance(TickStats stats) {
        if (!stats.balanced()) {
            throw new RunFailureException(Failure.TICK_IMBALANCE,
                    "tick counts do not balance: gaps " + stats.gaps + " + trailing_dropped "
                    + stats.trailingDropped + " vs producer_dropped " + stats.dropped + "; received " + stats.received
                    + " + dropped " + stats.dropped + " + undelivered " + stats.undelivered + " vs emitted "
                    + stats.emitted);
        }
    }

    /** The pool's counts after the run, checked: every packet free or held by the processor. */
    private static PoolCounts checkedCounts(PacketLoop loop) {
        PoolCounts counts = loop.strategy().counts();
        if (counts != null && (!counts.balanced() || counts.inUse != loop.processor().held())) {
            throw new RunFailureException(Failure.POOL_ACCOUNTING,
                    "pool accounting is off: " + counts + ", processor holds "
                    + loop.processor().held());
        }
        return counts;
    }

    /** Netty's allocator metrics for a Netty buffer strategy (no Netty class is loaded for the others). */
    private Map<String, Object> nettyMetrics() {
        return Strategies.netty(config.strategy) ? NettyMetrics.of(config.strategy) : null;
    }

    /**
     * A summary with every field: what was measured (nothing before the timed phase began), the rest null;
     * for a run that failed, what was thrown as its error and its {@link Failure} code.
     */
    private Map<String, Object> summary(Throwable failed) {
        Map<String, Object> r = new HashMap<>();
        r.put("type", "summary");
        r.put("status", failed == null ? "ok" : "error");
        r.put("error", failed == null ? null : failed.toString());
        r.put("failure", failed == null ? null : Failure.of(failed).code());
        r.put("fill_packets", threaded != null ? threaded.fillPackets() : fill == null ? 0L : fill.packets());
        r.put("fill_s", threaded != null ? threaded.fillSeconds() : fill == null ? 0.0 : fill.seconds());
        r.put("thread_share_min", threaded == null || reporter == null ? null : threaded.smallestShare());
        if (reporter != null) {
            reporter.summarize(r);
        } else {
            r.put("t_s", clock.seconds(System.nanoTime()));
            for (String field : new String[] {"packets", "measured_packets", "lost", "lost_measured", "gc_pause_count",
                "gc_cycle_count"}) {
                r.put(field, 0L);
            }
            for (String field : new String[] {"measured_s", "gc_pause_total_ms", "gc_pause_max_ms",
                "gc_cycle_total_ms"}) {
                r.put(field, 0.0);
            }
            for (String field : new String[] {"ns_per_packet", "measured_cpu_s", "thread_cpu_s", "timed_start_s", "window_start_s",
                "store_fill_at_window", "fifo_fill_at_window", "lost_pct_measured", "measured_ticks_due",
                "alloc_bytes_per_packet", "ended_early"}) {
                r.put(field, null);
            }
            LatencyMeter.putNone(r, true);
        }
        r.put("producer_emitted", stats == null ? null : stats.emitted);
        r.put("producer_dropped", stats == null ? null : stats.dropped);
        r.put("trailing_dropped", stats == null ? null : stats.trailingDropped);
        r.put("live_objects", live == null ? null : live.objects);
        r.put("live_bytes", live == null ? null : live.bytes);
        r.put("pool_capacity", counts == null ? null : counts.capacity);
        r.put("pool_free", counts == null ? null : counts.free);
        r.put("pool_in_use", counts == null ? null : counts.inUse);
        r.put("peak_rss_bytes", PeakRss.bytes());
        r.put("thread_held", threaded == null || reporter == null ? null : threaded.held());
        r.put("netty_metrics", nettyMetrics != null ? nettyMetrics : nettyMetrics());
        return r;
    }
}
