package allocorpool.run;

import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.measure.AllocationMeter;
import allocorpool.measure.SharedLatencyMeter;
import allocorpool.model.CaseParams;
import allocorpool.model.PacketLoop;
import allocorpool.model.PacketSource;
import allocorpool.model.Processor;
import allocorpool.queue.NanoClock;
import allocorpool.queue.TickSource;
import allocorpool.queue.TickStats;
import allocorpool.queue.TickWindow;
import allocorpool.strategy.BufferStrategy;
import allocorpool.strategy.PoolCounts;
import allocorpool.strategy.SharedPool;
import allocorpool.strategy.Strategies;
import allocorpool.measure.ThreadCpu;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;

/**
 * A run of N processing threads (--threads N): the multi-threaded message processor the 2019
 * article left for later. Each thread makes its own packets and keeps its own FIFO and store. Under
 * weak scaling (--scaling weak, the default) each thread's live set is the case's, so that a thread's
 * work stays the same whatever N and the live set grows with N; under strong scaling the case is split
 * between the threads ({@link CaseParams#share}), so that the live set, and the heap against it, stay
 * the case's. A shared pool holds every thread's pool. Each thread has its own strategy
 * (its own pool, Netty cache, or TLAB for allocation), except shared-pool, whose one lock-free
 * pool every thread takes from and gives back to. A packet never leaves the thread that made it.
 *
 * <p>Each thread fills its own model (see {@link FillPhase}); the timed phase starts when all have.
 * In batch each thread then makes packets flat out; in real time one clock feeds the threads in
 * turn, each its own queue of the capture delay's ticks at its own rate (allocorpool.queue.FanOut),
 * each thread pinned to its own CPU from --consumer-cpu on, and each makes a packet per tick it
 * takes as the one-thread loop does ({@link RealtimeLoop}), metering one in 64 into one shared meter.
 * The main thread only watches: every {@value #POLL_MS} ms it sums the threads' packet counts (and
 * losses), which each thread publishes every 1,024 packets (or polls), for the {@link PeriodReporter},
 * whose times per packet are thread time. The window's ticks are set by each consumer on its own
 * queue once the reporter has named the window's start. When the run's time is up the threads stop
 * (in real time each drains its queue) and wait, alive, while the reporter reads their allocation counters.
 *
 * <p>A thread that fails (an exhausted pool, an OutOfMemoryError) stops them all and its error is
 * the run's. After the run the strategies' counts must balance over all threads (a shared pool's
 * once; the others' summed) and the packets held must be those the processors hold; in real time,
 * every consumer's ticks must balance with the clock's counts for its queue.
 */
final class ThreadedRun implements ThreadsOutcome {
    static final long POLL_MS = 5;
    /** Longs between two threads' counters: a cache line and more, so that no two share one. */
    private static final int STRIDE = 16;
    private static final long NOT_SET = Long.MIN_VALUE;

    private final PacketLoop[] loops;
    private final CaseParams[] shares;
    private final boolean shared;
    private final Thread[] threads;
    private final AtomicLongArray counts;
    private final long[] fillPackets;
    private final long[] fillNanos;
    private final CountDownLatch filled;
    private final CountDownLatch go = new CountDownLatch(1);
    private final CountDownLatch parked;
    private final CountDownLatch exit = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private long fillDeadline;
    private String fillRule;
    // Real time: the clock's consumers, their losses so far (as counts), the window's start as the
    // reporter names it (NOT_SET until then), each consumer's final counts, and the shared meter
    private final boolean realtime;
    private final RunConfig config;
    private final TickSourceFactory tickFactory;
    private final AtomicLongArray lost;
    private volatile TickSource[] sources;
    private volatile long windowStart = NOT_SET;
    private final TickStats[] stats;
    private final SharedLatencyMeter latency;

    ThreadedRun(RunConfig config, CaseParams params, BiFunction<String, CaseParams, BufferStrategy> strategies,
            TickSourceFactory tickFactory) {
        int n = config.threads;
        this.config = config;
        this.tickFactory = tickFactory;
        realtime = config.realtime();
        lost = new AtomicLongArray(n * STRIDE);
        stats = new TickStats[n];
        latency = realtime ? new SharedLatencyMeter() : null;
        loops = new PacketLoop[n];
        shares = new CaseParams[n];
        shared = config.strategy.equals(Strategies.SHARED);
        SharedPool pool = shared ? new SharedPool(config.sharedPoolSize(params)) : null;
        for (int i = 0; i < n; i++) {
            shares[i] = config.threadShare(params, i);
            BufferStrategy strategy = shared ? pool.view() : strategies.apply(config.strategy, shares[i]);
            loops[i] = new PacketLoop(strategy, PacketSource.create(config.source, config.seed + i), shares[i]);
        }
        threads = new Thread[n];
        counts = new AtomicLongArray(n * STRIDE);
        fillPackets = new long[n];
        fillNanos = new long[n];
        filled = new CountDownLatch(n);
        parked = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            int index = i;
            threads[i] = newThread(config.strategy, () -> work(index, Strategies.fillsStore(config.strategy)),
                    "processor-" + i);
            threads[i].setDaemon(true);
        }
    }

    /**
     * A processing thread: for a Netty strategy one of Netty's {@link FastThreadLocalThread}s, as an event
     * loop's are (Netty's thread-locals, its allocator's cache among them, in an array of the thread's own).
     */
    static Thread newThread(String strategy, Runnable work, String name) {
        return Strategies.netty(strategy) ? new FastThreadLocalThread(work, name) : new Thread(work, name);
    }

    /**
     * Starts the threads, each filling its model (in real time, pinned first to its CPU); returns when
     * all have, throws when one failed.
     */
    void fill(long deadline, String deadlineRule) throws InterruptedException {
        fillDeadline = deadline;
        fillRule = deadlineRule;
        for (Thread thread : threads) {
            thread.start();
        }
        while (!filled.await(POLL_MS, TimeUnit.MILLISECONDS)) {
            rethrow();
        }
        rethrow();
    }

    /**
     * Real time, after the fill: starts the clock feeding the threads, each a queue of its share of the
     * capture delay's ticks; returns what the reporter reads of them all.
     */
    TickWindow openTicks() {
        sources = tickFactory.openFanOut(config.intervalNs, config.inputQueueSize(), loops.length, config.producerCpu);
        return new Ticks();
    }

    /** Real time: the meter every consumer records into. */
    SharedLatencyMeter latency() {
        return latency;
    }

    /** The timed phase: the threads run until the reporter says the time is up, then stop and wait. */
    void run(PeriodReporter reporter) throws IOException, InterruptedException {
        NanoClock clock = realtime ? sources[0].clock() : NanoClock.SYSTEM;
        go.countDown();
        while (true) {
            Thread.sleep(POLL_MS);
            rethrow();
            if (!reporter.check(clock.nanoTime(), total(), realtime ? sum(lost) : 0)) {
                break;
            }
        }
        stop = true;
        while (!parked.await(POLL_MS, TimeUnit.MILLISECONDS)) {
            rethrow();
        }
        rethrow();
    }

    /** Lets the stopped threads end (after the reporter read their allocations) and waits for them. */
    void end() throws InterruptedException {
        stop = true;
        go.countDown();
        exit.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void work(int index, boolean fillsStore) {
        try {
            if (realtime) {
                tickFactory.pinConsumer(config.consumerCpu < 0 ? -1 : config.consumerCpu + index);
            }
            PacketLoop loop = loops[index];
            FillPhase fill = new FillPhase(loop, shares[index], fillsStore);
            try {
                fill.run(loop, fillDeadline, fillRule);
            } finally {
                fillPackets[index] = fill.packets();
                fillNanos[index] = Math.round(fill.seconds() * 1e9);
            }
            filled.countDown();
            go.await();
            if (realtime) {
                consume(index, loop);
            } else {
                long made = 0;
                while (!stop) {
                    loop.steps(BatchLoop.PACKETS_PER_CHECK);
                    made += BatchLoop.PACKETS_PER_CHECK;
                    counts.lazySet(index * STRIDE, made);
                }
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            stop = true;
        } finally {
            finishTicks(index);
            parked.countDown();
            try {
                exit.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One consumer's real-time loop (RealtimeLoop's, publishing its counts for the watcher) until stopped. */
    private void consume(int index, PacketLoop loop) {
        TickSource source = sources[index];
        long packets = 0;
        int polls = 0;
        boolean windowSet = false;
        while (true) {
            if (source.poll()) {
                loop.step();
                if ((++packets & RealtimeLoop.SAMPLE_MASK) == 0) {
                    latency.record(source.latenessNs(), source.lastInWindow());
                }
            }
            if (++polls == RealtimeLoop.POLLS_PER_CHECK) {
                polls = 0;
                counts.lazySet(index * STRIDE, packets);
                lost.lazySet(index * STRIDE, source.lost());
                if (!windowSet && windowStart != NOT_SET && source.received() > 0) {
                    source.setWindowStart(windowStart);
                    windowSet = true;
                }
                if (stop) {
                    break;
                }
            }
        }
    }

    /** Real time: drains the thread's queue and keeps its final counts (the first to finish stops the clock). */
    private void finishTicks(int index) {
        TickSource[] opened = sources;
        if (opened == null) {
            return;
        }
        try {
            stats[index] = opened[index].finish();
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    private void rethrow() {
        rethrow(failure.get(), "a processing thread");
    }

    /** Throws what one of a run's threads failed with (as it was, where unchecked); nothing where none did. */
    static void rethrow(Throwable e, String who) {
        if (e instanceof RuntimeException) {
            throw (RuntimeException) e;
        } else if (e instanceof Error) {
            throw (Error) e;
        } else if (e != null) {
            throw new IllegalStateException(who + " failed: " + e, e);
        }
    }

    private long total() {
        return sum(counts);
    }

    private long sum(AtomicLongArray perThread) {
        long sum = 0;
        for (int i = 0; i < loops.length; i++) {
            sum += perThread.get(i * STRIDE);
        }
        return sum;
    }

    /**
     * Real time, after the threads stopped: every consumer's final counts added up, each consumer's
     * checked to balance with the clock's counts for its queue first (Run.checkBalance).
     */
    TickStats tickStats() {
        for (TickStats s : stats) {
            Run.checkBalance(s);
        }
        return TickStats.sum(stats);
    }

    /** Every consumer's ticks as the reporter reads them. */
    private final class Ticks implements TickWindow {
        @Override
        public long received() {
            return total();
        }

        @Override
        public NanoClock clock() {
            return sources[0].clock();
        }

        /** Each consumer sets it on its own queue at its next check once it has taken a tick. */
        @Override
        public void setWindowStart(long startNanos) {
            windowStart = startNanos;
        }

        /** Read once the threads stopped (the summary's). */
        @Override
        public long lostInWindow() {
            if (parked.getCount() > 0) {
                throw new IllegalStateException("the window's loss is read once the consumers stopped");
            }
            long sum = 0;
            for (TickSource source : sources) {
                sum += source.lostInWindow();
            }
            return sum;
        }
    }

    /** The smallest thread's packets of the timed phase x N / all threads' (1: an even split). */
    public double smallestShare() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < loops.length; i++) {
            min = Math.min(min, counts.get(i * STRIDE));
        }
        long all = total();
        return all == 0 ? 0 : (double) min * loops.length / all;
    }

    /** A meter over the threads' allocations (null where the JVM cannot count). */
    AllocationMeter allocationMeter() {
        return AllocationMeter.forThreads(threads);
    }

    /** A meter of the threads' CPU time (null where the JVM does not measure it). */
    ThreadCpu threadCpu() {
        return ThreadCpu.of(threads);
    }

    /** The packets each thread's processor holds now (its FIFO and store): its live set. */
    public List<Long> held() {
        List<Long> held = new ArrayList<>();
        for (PacketLoop loop : loops) {
            held.add((long) loop.processor().held());
        }
        return held;
    }

    @Override
    public void releaseHeld() {
        for (PacketLoop loop : loops) {
            loop.processor().releaseAll();
        }
    }

    /** Thread 0's processor and share: the window's fill is read there (the others' match it). */
    Processor firstProcessor() {
        return loops[0].processor();
    }

    CaseParams firstShare() {
        return shares[0];
    }

    public long fillPackets() {
        long sum = 0;
        for (long packets : fillPackets) {
            sum += packets;
        }
        return sum;
    }

    /** The longest thread's fill. */
    public double fillSeconds() {
        long max = 0;
        for (long nanos : fillNanos) {
            max = Math.max(max, nanos);
        }
        return max / 1e9;
    }

    /**
     * The strategies' counts over all threads (the shared pool's once, the others' summed), checked:
     * balanced, and the packets in use those the processors hold. Null for strategies without counts.
     */
    public PoolCounts checkedCounts() {
        long capacity = 0;
        long free = 0;
        long inUse = 0;
        long held = 0;
        boolean counted = false;
        for (int i = 0; i < loops.length; i++) {
            held += loops[i].processor().held();
            PoolCounts c = loops[i].strategy().counts();
            if (c == null || (shared && i > 0)) {
                continue;
            }
            counted = true;
            capacity += c.capacity;
            free += c.free;
            inUse += c.inUse;
        }
        if (!counted) {
            return null;
        }
        PoolCounts all = new PoolCounts(capacity, free, inUse);
        if (!all.balanced() || all.inUse != held) {
            throw new RunFailureException(Failure.POOL_ACCOUNTING,
                    "pool accounting is off over " + loops.length + " threads: " + all
                    + ", processors hold " + held);
        }
        return all;
    }
}
