package allocorpool.run;

import allocorpool.measure.ClassHistogram;
import allocorpool.measure.GcMonitor;
import allocorpool.measure.PeakRss;
import allocorpool.model.CaseParams;
import allocorpool.model.PacketLoop;
import allocorpool.queue.TickSource;
import allocorpool.queue.TickStats;
import allocorpool.record.RecordWriter;
import allocorpool.strategy.PoolCounts;
import allocorpool.strategy.Strategies;
import java.io.IOException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;

/**
 * One run from start to summary: header, model, the batch or real-time loop, and a
 * summary whatever happens. Any failure after the header (an exhausted pool, an
 * OutOfMemoryError, a tick source that cannot start) ends in a summary with status
 * "error" and exit status 1; the tick source is finished on every path.
 */
public final class Run {
    private final RunConfig config;
    private final TickSourceFactory ticks;
    private final RecordWriter out;
    private final GcMonitor gc;
    private final PrintStream human;

    private Run(RunConfig config, TickSourceFactory ticks, RecordWriter out, GcMonitor gc, PrintStream human) {
        this.config = config;
        this.ticks = ticks;
        this.out = out;
        this.gc = gc;
        this.human = human;
    }

    /** Runs and returns the exit status: 0 when the summary says "ok", else 1. */
    public static int execute(RunConfig config, TickSourceFactory ticks, PrintStream human) {
        try (RecordWriter out = RecordWriter.open(config.out); GcMonitor gc = new GcMonitor()) {
            return new Run(config, ticks, out, gc, human).run();
        } catch (IOException e) {
            human.println("alloc-or-pool: cannot write records to " + config.out + ": " + e);
            return 1;
        }
    }

    private int run() throws IOException {
        CaseParams params = CaseParams.of(config.caseName, config.scale);
        out.write(Header.record(config, params, gc.beanNames()));
        PeriodReporter reporter = null;
        try {
            PacketLoop loop = new PacketLoop(Strategies.create(config.strategy, params), params, config.seed);
            TickStats stats = null;
            if (config.realtime()) {
                try (TickSource source = ticks.open(config.intervalNs, config.inputQueueSize(),
                        config.producerCpu, config.consumerCpu)) {
                    reporter = new PeriodReporter(out, gc, config, human);
                    RealtimeLoop.run(loop, source, reporter);
                    stats = source.finish();
                    reporter.settleLost(stats.gaps, stats.trailingDropped);
                }
            } else {
                reporter = new PeriodReporter(out, gc, config, human);
                BatchLoop.run(loop, reporter);
            }
            reporter.finish();
            ClassHistogram live = null;
            if (config.liveObjects) {
                live = ClassHistogram.take();
                reporter.writeGc();
            }
            PoolCounts counts = checkedCounts(loop);
            Map<String, Object> r = summary(reporter, null);
            if (stats != null) {
                r.put("producer_emitted", stats.emitted);
                r.put("producer_dropped", stats.dropped);
                r.put("trailing_dropped", stats.trailingDropped);
            }
            if (live != null) {
                r.put("live_objects", live.objects);
                r.put("live_bytes", live.bytes);
            }
            if (counts != null) {
                r.put("pool_capacity", counts.capacity);
                r.put("pool_free", counts.free);
                r.put("pool_in_use", counts.inUse);
            }
            out.write(r);
            return 0;
        } catch (Exception | Error e) {
            human.println("alloc-or-pool: run failed: " + e);
            e.printStackTrace(human);
            out.write(summary(reporter, e.toString()));
            return 1;
        }
    }

    /** The pool's counts after the run, checked: every packet free or held by the processor. */
    private static PoolCounts checkedCounts(PacketLoop loop) {
        PoolCounts counts = loop.strategy().counts();
        if (counts != null && (!counts.balanced() || counts.inUse != loop.processor().held())) {
            throw new IllegalStateException("pool accounting is off: " + counts + ", processor holds "
                    + loop.processor().held());
        }
        return counts;
    }

    /** A summary with every field: what the reporter measured (nothing before it started), the rest null. */
    private static Map<String, Object> summary(PeriodReporter reporter, String error) {
        Map<String, Object> r = new HashMap<>();
        r.put("type", "summary");
        r.put("status", error == null ? "ok" : "error");
        r.put("error", error);
        for (String field : new String[] {"producer_emitted", "producer_dropped", "trailing_dropped",
                "live_objects", "live_bytes", "pool_capacity", "pool_free", "pool_in_use"}) {
            r.put(field, null);
        }
        if (reporter != null) {
            reporter.summarize(r);
        } else {
            for (String field : new String[] {"packets", "measured_packets", "lost", "lost_measured",
                    "gc_pause_count", "gc_cycle_count"}) {
                r.put(field, 0L);
            }
            for (String field : new String[] {"t_s", "measured_s", "gc_pause_total_ms", "gc_pause_max_ms",
                    "gc_cycle_total_ms"}) {
                r.put(field, 0.0);
            }
            r.put("ns_per_packet", null);
            r.put("lost_pct_measured", null);
            r.put("alloc_bytes_per_packet", null);
        }
        r.put("peak_rss_bytes", PeakRss.bytes());
        return r;
    }
}
