package allocorpool.run;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.measure.AllocationMeter;
import allocorpool.measure.GcEvent;
import allocorpool.measure.GcKind;
import allocorpool.measure.GcMonitor;
import allocorpool.measure.LatencyMeter;
import allocorpool.measure.LatencyReport;
import allocorpool.measure.ProcessCpu;
import allocorpool.measure.ThreadCpu;
import allocorpool.model.CaseParams;
import allocorpool.model.Processor;
import allocorpool.queue.TickWindow;
import allocorpool.record.RecordWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The timed phase's clock and its periodic output. The loops call {@link #check} with their
 * running totals; once a second it writes a {@code periodic} record (after the GC events
 * that came in since the last one) and a human line on stderr, it opens the measured
 * window when the warm-up ends, and it says when the run is over.
 *
 * <p>The original printed a line per ten million packets (batch) or per million ticks
 * (real-time) and skipped the first five lines; here reporting is per second and the
 * warm-up is {@code --warmup-s} seconds after the fill phase, so that every case, strategy
 * and collector gets the same wall-clock time whatever its speed.
 *
 * <p>Times are on the {@link RunClock} (t_s = 0 at the header); the timed phase starts
 * when this reporter is made, after the fill phase; packet counts are the timed phase's (the
 * fill phase's are the summary's fill_packets).
 *
 * <p>In a threaded run (--threads N) the loops' totals are every thread's, and a time per packet
 * is thread time: elapsed time x N per packet, so that it reads as a one-thread run's does and
 * perfect scaling keeps it flat.
 *
 * <p>With --stop-when-heap-full the timed phase ends early, its window with it, when the heap is
 * {@link RunConfig#HEAP_FULL} used: a collector that never frees (Epsilon) then measures the
 * window the heap holds instead of failing in it; the summary's {@code ended_early} says so.
 */
final class PeriodReporter {
    private static final long SECOND = 1_000_000_000L;

    private final RecordWriter out;
    private final GcMonitor gc;
    private final AllocationMeter alloc;
    private final ThreadCpu threadCpu;
    private long[] threadCpuStart;
    private long[] threadCpuEnd;
    private final boolean realtime;
    private final long intervalNs;
    private final PrintStream human;
    private final RunClock clock;
    private final Processor processor;
    private final CaseParams params;
    private final boolean stopWhenHeapFull;
    private final LatencyReport latency;
    private final TickWindow ticks;
    private final int threads;
    private String endedEarly;
    private final long start;
    private final long end;
    private final long warmupEnd;

    private long nextCheck;
    private long nextPeriodEnd;
    private long lastTime;
    private long lastPackets;
    private long lastLost;
    private long now;
    private long packets;
    private long lost;
    private long trailingDropped;

    private boolean measuring;
    private boolean windowTicksSet;
    private long measureTime;
    private long measurePackets;
    private long measureAlloc;
    private long measureCpu = -1;
    private long cpuEnd = -1;
    private double storeFillAtWindow;
    private double fifoFillAtWindow;
    private long allocEnd = -1;
    private boolean windowClosed;

    private long pauseCount;
    private double pauseTotalMs;
    private double pauseMaxMs;
    private long cycleCount;
    private double cycleTotalMs;

    /**
     * Starts the timed phase now; {@code ticks} and {@code latency} are the real-time loop's source
     * and meter (null in batch).
     */
    PeriodReporter(RecordWriter out, GcMonitor gc, RunConfig config, PrintStream human, RunClock clock,
            Processor processor, CaseParams params, TickWindow ticks, LatencyReport latency) {
        this(out, gc, config, human, clock, processor, params, ticks, latency, AllocationMeter.forCurrentThread(),
                ThreadCpu.of(Thread.currentThread()), config.processingThreads());
    }

    /**
     * As above, the allocations counted by {@code alloc} (a threaded run's: its threads'), and the
     * window's fill read from one thread's {@code processor} against its share's {@code params}; in
     * real time, {@code ticks} and {@code latency} are every consumer's. The CPU time of the run's own
     * threads is {@code threadCpu}'s; a time per packet is elapsed time x {@code timeThreads} per packet
     * (a hand-off run's 1: its producer makes every packet).
     */
    PeriodReporter(RecordWriter out, GcMonitor gc, RunConfig config, PrintStream human, RunClock clock,
            Processor processor, CaseParams params, TickWindow ticks, LatencyReport latency, AllocationMeter alloc,
            ThreadCpu threadCpu, int timeThreads) {
        this.out = out;
        this.gc = gc;
        this.alloc = alloc;
        this.threadCpu = threadCpu;
        this.threads = timeThreads;
        this.realtime = config.realtime();
        this.intervalNs = config.intervalNs;
        this.human = human;
        this.clock = clock;
        this.processor = processor;
        this.params = params;
        this.stopWhenHeapFull = config.stopWhenHeapFull;
        this.latency = latency;
        this.ticks = ticks;
        this.windowTicksSet = ticks == null;
        // Opening the window reads these on the consumer thread. The first read of the process's
        // CPU time loads the OS MXBean and its cgroup metrics, about 200 classes that took 80 ms
        // there; read both once now, before the timed phase.
        ProcessCpu.nanos();
        if (alloc != null) {
            alloc.bytes();
        }
        this.start = ticks == null ? System.nanoTime() : ticks.clock().nanoTime();
        this.end = start + Math.round(config.durationS * SECOND);
        this.warmupEnd = start + Math.round(config.warmupS * SECOND);
        this.now = start;
        this.lastTime = start;
        this.nextPeriodEnd = Math.min(start + SECOND, end);
        if (warmupEnd == start) {
            beginMeasuring();
        }
        this.nextCheck = measuring ? nextPeriodEnd : Math.min(nextPeriodEnd, warmupEnd);
    }

    /**
     * Called by the loops with the packets made and ticks lost since the timed phase began,
     * at {@code now} (System.nanoTime, or the tick source's clock); returns false once the run's
     * duration is over.
     */
    boolean check(long now, long timedPackets, long lostTotal) throws IOException {
        this.now = now;
        this.packets = timedPackets;
        this.lost = lostTotal;
        if (stopWhenHeapFull && heapFull()) {
            if (!measuring) {
                throw new RunFailureException(Failure.HEAP_FULL, "the heap was " + Math.round(RunConfig.HEAP_FULL * 100)
                        + " % used before the measured window opened, after " + timedPackets
                        + " packets of the timed phase: the run does not fit in the heap");
            }
            endedEarly = "heap full";
            return false;
        }
        if (!windowTicksSet && ticks.received() > 0) {
            // The window's ticks are those due from its planned start, however late the check
            // that opens it (a pause can straddle the start); the schedule is known once a tick came.
            ticks.setWindowStart(warmupEnd);
            windowTicksSet = true;
        }
        if (now < nextCheck) {
            return true;
        }
        if (now >= nextPeriodEnd) {
            writeGc();
            writePeriod();
            long next = start + ((now - start) / SECOND + 1) * SECOND;
            nextPeriodEnd = Math.min(next, end);
        }
        if (!measuring && now >= warmupEnd) {
            beginMeasuring();
        }
        nextCheck = measuring ? nextPeriodEnd : Math.min(nextPeriodEnd, warmupEnd);
        return now < end;
    }

    private void beginMeasuring() {
        measuring = true;
        measureTime = now;
        measurePackets = packets;
        measureAlloc = alloc == null ? 0 : alloc.bytes();
        measureCpu = ProcessCpu.nanos();
        threadCpuStart = threadCpu == null ? null : threadCpu.nanos();
        storeFillAtWindow = (double) processor.stored() / params.storedCount;
        fifoFillAtWindow = (double) processor.queued() / params.internalQueueSize;
    }

    private void writePeriod() throws IOException {
        long periodPackets = packets - lastPackets;
        long periodLost = lost - lastLost;
        double periodS = (now - lastTime) / 1e9;
        double t = clock.seconds(now);
        Map<String, Object> r = new HashMap<>();
        r.put("type", "periodic");
        r.put("t_s", t);
        r.put("period_s", periodS);
        r.put("packets", periodPackets);
        r.put("packets_total", packets);
        r.put("lost", periodLost);
        r.put("lost_total", lost);
        r.put("ns_per_packet", periodPackets == 0 ? null : periodS * 1e9 * threads / periodPackets);
        r.put("warmup", !measuring);
        if (latency != null) {
            latency.endPeriod(r);
        } else {
            LatencyMeter.putNone(r, false);
        }
        out.write(r);
        if (realtime) {
            Object lateMax = r.get("latency_max_ns");
            human.printf(Locale.ROOT, "%6.1fs  processed %d  lost %d  (total lost %d)  max late %s ms%n", t,
                    periodPackets, periodLost, lost,
                    lateMax == null ? "-" : String.format(Locale.ROOT, "%.3f", (Long) lateMax / 1e6));
        } else {
            human.printf(Locale.ROOT, "%6.1fs  processed %d  %.1f ns/packet%s%n", t, periodPackets,
                    periodPackets == 0 ? Double.NaN : periodS * 1e9 * threads / periodPackets,
                    measuring ? "" : "  (warm-up)");
        }
        lastTime = now;
        lastPackets = packets;
        lastLost = lost;
    }

    /** Writes the GC events notified so far; those of the measured window also go to the summary. */
    void writeGc() throws IOException {
        for (GcEvent e : gc.drain()) {
            writeGc(e);
        }
    }

    private void writeGc(GcEvent e) throws IOException {
        Map<String, Object> r = gcRecord(e, clock);
        out.write(r);
        if (measuring && !windowClosed && (Double) r.get("t_s") >= clock.seconds(measureTime)) {
            if (e.kind.equals(GcKind.PAUSE)) {
                pauseCount++;
                pauseTotalMs += e.durationMs;
                pauseMaxMs = Math.max(pauseMaxMs, e.durationMs);
            } else {
                cycleCount++;
                cycleTotalMs += e.durationMs;
            }
        }
    }

    /** Writes the GC events notified so far, before the timed phase (no reporter yet). */
    static void writeGc(RecordWriter out, GcMonitor gc, RunClock clock) throws IOException {
        for (GcEvent e : gc.drain()) {
            out.write(gcRecord(e, clock));
        }
    }

    private static Map<String, Object> gcRecord(GcEvent e, RunClock clock) {
        Map<String, Object> r = new HashMap<>();
        r.put("type", "gc");
        r.put("t_s", clock.secondsOfWallMs(e.startWallMs));
        r.put("gc_id", e.id);
        r.put("bean", e.bean);
        r.put("action", e.action);
        r.put("cause", e.cause);
        r.put("duration_ms", (double) e.durationMs);
        r.put("kind", e.kind);
        return r;
    }

    /**
     * Ends the measured window after the loop: reads the allocation counter, waits for
     * the notifications of the collections done so far and writes them. GC events written
     * later (the full GC of --live-objects) are not part of the summary.
     */
    void finish() throws IOException, InterruptedException {
        if (measuring && alloc != null) {
            allocEnd = alloc.bytes();
        }
        if (measuring) {
            cpuEnd = ProcessCpu.nanos();
            threadCpuEnd = threadCpu == null ? null : threadCpu.nanos();
        }
        for (GcEvent e : gc.drainSettled(1000)) {
            writeGc(e);
        }
        windowClosed = true;
    }

    /**
     * The final lost count of a real-time run, from the source after it was drained: gaps
     * found in the ticks still queued at the end are ticks dropped during the run, so the
     * summary's lost plus the source's trailing drops equals the producer's drops. The
     * trailing drops are lost during the measured time too: a consumer that fell behind
     * never reaches the gap they leave, so the measured loss counts them.
     */
    void settleLost(long lostTotal, long trailingDropped) {
        this.lost = lostTotal;
        this.trailingDropped = trailingDropped;
    }

    /** The packets of the measured window so far (0 before it opens). */
    long measuredPackets() {
        return measuring ? packets - measurePackets : 0;
    }

    /** The summary fields the clock knows, as of the last check. */
    void summarize(Map<String, Object> r) {
        long measuredPackets = measuring ? packets - measurePackets : 0;
        long measuredNanos = measuring ? now - measureTime : 0;
        double measuredS = measuredNanos / 1e9;
        long lostMeasured = measuring && ticks != null ? ticks.lostInWindow() + trailingDropped : 0;
        r.put("t_s", clock.seconds(now));
        r.put("packets", packets);
        r.put("measured_packets", measuredPackets);
        r.put("measured_s", measuredS);
        r.put("measured_cpu_s", cpuEnd < 0 || measureCpu < 0 ? null : (cpuEnd - measureCpu) / 1e9);
        r.put("thread_cpu_s", threadCpuStart == null || threadCpuEnd == null ? null
                : java.util.Arrays.asList(ThreadCpu.seconds(threadCpuStart, threadCpuEnd)));
        r.put("ns_per_packet", measuredPackets == 0 ? null : measuredS * 1e9 * threads / measuredPackets);
        r.put("timed_start_s", clock.seconds(start));
        r.put("window_start_s", measuring ? clock.seconds(measureTime) : null);
        r.put("store_fill_at_window", measuring ? storeFillAtWindow : null);
        r.put("fifo_fill_at_window", measuring ? fifoFillAtWindow : null);
        r.put("lost", lost);
        r.put("lost_measured", lostMeasured);
        r.put("lost_pct_measured", lostMeasured + measuredPackets == 0 ? null
                : lostMeasured * 100.0 / (lostMeasured + measuredPackets));
        r.put("measured_ticks_due", realtime ? measuredNanos / intervalNs : null);
        r.put("alloc_bytes_per_packet", allocEnd < 0 || measuredPackets == 0 ? null
                : (double) (allocEnd - measureAlloc) / measuredPackets);
        r.put("gc_pause_count", pauseCount);
        r.put("gc_pause_total_ms", pauseTotalMs);
        r.put("gc_pause_max_ms", pauseMaxMs);
        r.put("gc_cycle_count", cycleCount);
        r.put("gc_cycle_total_ms", cycleTotalMs);
        r.put("ended_early", endedEarly);
        if (latency != null) {
            latency.summarize(r);
        } else {
            LatencyMeter.putNone(r, true);
        }
    }

    private static boolean heapFull() {
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory() > RunConfig.HEAP_FULL * runtime.maxMemory();
    }
}
