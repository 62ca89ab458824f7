package allocorpool.run;

import allocorpool.measure.AllocationMeter;
import allocorpool.model.CaseParams;
import allocorpool.model.PacketLoop;
import allocorpool.model.PacketSource;
import allocorpool.model.Processor;
import allocorpool.strategy.BufferStrategy;
import allocorpool.strategy.PoolCounts;
import allocorpool.strategy.SharedPool;
import allocorpool.strategy.Strategies;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;

/**
 * Batch mode with N processing threads (--threads N): the multi-threaded message processor the
 * 2019 article left for later. The case is split between the threads ({@link CaseParams#share}):
 * each thread makes its own share of the packets and keeps its own FIFO and store, so that the
 * live set, and the heap against it, stay the case's whatever N. Each thread has its own strategy
 * (its own pool, Netty cache, or TLAB for allocation), except shared-pool, whose one lock-free
 * pool every thread takes from and gives back to. A packet never leaves the thread that made it.
 *
 * <p>Each thread fills its own model (see {@link FillPhase}); the timed phase starts when all have.
 * The main thread then only watches: every {@value #POLL_MS} ms it sums the threads' packet counts
 * (each thread publishes its count every {@value BatchLoop#PACKETS_PER_CHECK} packets) for the
 * {@link PeriodReporter}, whose times per packet are thread time. When the run's time is up the
 * threads stop and wait, alive, while the reporter reads their allocation counters.
 *
 * <p>A thread that fails (an exhausted pool, an OutOfMemoryError) stops them all and its error is
 * the run's. After the run the strategies' counts must balance over all threads (a shared pool's
 * once; the others' summed) and the packets held must be those the processors hold.
 */
final class ThreadedBatch {
    static final long POLL_MS = 5;
    /** Longs between two threads' counters: a cache line and more, so that no two share one. */
    private static final int STRIDE = 16;

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

    ThreadedBatch(RunConfig config, CaseParams params, BiFunction<String, CaseParams, BufferStrategy> strategies) {
        int n = config.threads;
        loops = new PacketLoop[n];
        shares = new CaseParams[n];
        shared = config.strategy.equals(Strategies.SHARED);
        SharedPool pool = shared ? new SharedPool(params.poolSize) : null;
        for (int i = 0; i < n; i++) {
            shares[i] = params.share(i, n);
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
            threads[i] = new Thread(() -> work(index, Strategies.fillsStore(config.strategy)), "processor-" + i);
            threads[i].setDaemon(true);
        }
    }

    /** Starts the threads, each filling its model; returns when all have, throws when one failed. */
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

    /** The timed phase: the threads run until the reporter says the time is up, then stop and wait. */
    void run(PeriodReporter reporter) throws IOException, InterruptedException {
        go.countDown();
        while (true) {
            Thread.sleep(POLL_MS);
            rethrow();
            if (!reporter.check(System.nanoTime(), total(), 0)) {
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
            long made = 0;
            while (!stop) {
                loop.steps(BatchLoop.PACKETS_PER_CHECK);
                made += BatchLoop.PACKETS_PER_CHECK;
                counts.lazySet(index * STRIDE, made);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            stop = true;
        } finally {
            parked.countDown();
            try {
                exit.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void rethrow() {
        Throwable e = failure.get();
        if (e instanceof RuntimeException) {
            throw (RuntimeException) e;
        } else if (e instanceof Error) {
            throw (Error) e;
        } else if (e != null) {
            throw new IllegalStateException("a processing thread failed: " + e, e);
        }
    }

    private long total() {
        long sum = 0;
        for (int i = 0; i < loops.length; i++) {
            sum += counts.get(i * STRIDE);
        }
        return sum;
    }

    /** The smallest thread's packets of the timed phase x N / all threads' (1: an even split). */
    double smallestShare() {
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

    /** Thread 0's processor and share: the window's fill is read there (the others' match it). */
    Processor firstProcessor() {
        return loops[0].processor();
    }

    CaseParams firstShare() {
        return shares[0];
    }

    long fillPackets() {
        long sum = 0;
        for (long packets : fillPackets) {
            sum += packets;
        }
        return sum;
    }

    /** The longest thread's fill. */
    double fillSeconds() {
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
    PoolCounts checkedCounts() {
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
            throw new IllegalStateException("pool accounting is off over " + loops.length + " threads: " + all
                    + ", processors hold " + held);
        }
        return all;
    }
}
