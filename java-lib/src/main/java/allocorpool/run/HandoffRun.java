package allocorpool.run;

import allocorpool.measure.AllocationMeter;
import allocorpool.measure.ThreadCpu;
import allocorpool.model.CaseParams;
import allocorpool.model.Packet;
import allocorpool.model.PacketSource;
import allocorpool.record.Failure;
import allocorpool.record.RunFailureException;
import allocorpool.model.Processor;
import allocorpool.strategy.HandoffBuffers;
import allocorpool.strategy.PoolCounts;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A hand-off run (--threads N --handoff, batch): one producer thread acquires and fills every packet and
 * hands it to the N workers in turn, each through a queue of its own ({@link Ring}, single producer,
 * single consumer, {@value #RING} packets); each worker runs its own processor (FIFO and store, its live
 * set as --scaling says) and releases the packets it drops, so that every packet is released on another
 * thread than the one that acquired it: the cross-thread release a pool per thread cannot do and Netty's
 * allocator and Recycler are built for (see HandoffBuffers). The producer fills worker i's packets from
 * source i (the --source, seeded --seed + i, as thread i's of a threaded run), and the worker draws the
 * store slot a TCP packet replaces from a source of its own of the same kind and seed (the random source's
 * draw is the packet's; the counter's is a counter of the worker's): a source serves one thread, and
 * one source for all would send every counter source's TCP packet to the same worker. Netty strategies
 * run on FastThreadLocalThreads.
 *
 * <p>The producer runs from the start; the fill phase ends when every worker's processor is full as a
 * one-thread fill's is (FillPhase's rule). The timed phase counts packets processed; a time per packet is
 * elapsed time per packet (the producer makes every one). When the time is up the producer stops, the
 * workers drain their queues, and all wait, alive, while the reporter reads their counters. Accounting is
 * exact across threads: after the run the packets acquired must be those released plus those the workers'
 * processors hold (HandoffBuffers#counts). A thread that fails stops them all and its error is the run's.
 */
final class HandoffRun implements ThreadsOutcome {
    static final int RING = 256;
    private static final int STRIDE = 16;
    private static final int SPINS = 64;

    private final HandoffBuffers buffers;
    private final CaseParams[] shares;
    private final Processor[] processors;
    private final Ring[] rings;
    private final Thread producer;
    private final Thread[] workers;
    private final AtomicLongArray processed;
    private final long[] fillPackets;
    private final long[] fillNanos;
    private final CountDownLatch filled;
    private final CountDownLatch parked;
    private final CountDownLatch exit = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final PacketSource[] sources;
    private volatile boolean stop;
    private volatile boolean producerDone;
    private long startNanos;
    private long fillTotal;

    HandoffRun(RunConfig config, CaseParams params) {
        int n = config.threads;
        shares = new CaseParams[n];
        processors = new Processor[n];
        rings = new Ring[n];
        workers = new Thread[n];
        processed = new AtomicLongArray(n * STRIDE);
        fillPackets = new long[n];
        fillNanos = new long[n];
        filled = new CountDownLatch(n);
        parked = new CountDownLatch(n + 1);
        buffers = HandoffBuffers.create(config.strategy, config.sharedPoolSize(params) + n * (RING + 1), n);
        sources = new PacketSource[n];
        for (int i = 0; i < n; i++) {
            shares[i] = config.threadShare(params, i);
            sources[i] = PacketSource.create(config.source, config.seed + i);
            processors[i] = new Processor(buffers.worker(i), PacketSource.create(config.source, config.seed + i),
                    shares[i]);
            rings[i] = new Ring(RING);
            int index = i;
            workers[i] = ThreadedRun.newThread(config.strategy, () -> work(index), "worker-" + i);
            workers[i].setDaemon(true);
        }
        producer = ThreadedRun.newThread(config.strategy, this::produce, "producer");
        producer.setDaemon(true);
    }

    /** Starts the threads; returns when every worker's processor is full, throws when one failed or at the deadline. */
    void fill(long deadline, String deadlineRule) throws InterruptedException {
        startNanos = System.nanoTime();
        for (Thread worker : workers) {
            worker.start();
        }
        producer.start();
        while (!filled.await(ThreadedRun.POLL_MS, TimeUnit.MILLISECONDS)) {
            rethrow();
            if (System.nanoTime() - deadline > 0) {
                throw new RunFailureException(Failure.FILL_TIMEOUT, "the hand-off fill phase did not finish within " + deadlineRule
                        + ": " + filled.getCount() + " of " + workers.length + " workers' processors are not full");
            }
        }
        rethrow();
        for (long packets : fillPackets) {
            fillTotal += packets;
        }
    }

    /** The timed phase: until the reporter says the time is up; then the producer stops and the workers drain. */
    void run(PeriodReporter reporter) throws java.io.IOException, InterruptedException {
        while (true) {
            Thread.sleep(ThreadedRun.POLL_MS);
            rethrow();
            if (!reporter.check(System.nanoTime(), total() - fillTotal, 0)) {
                break;
            }
        }
        stop = true;
        while (!parked.await(ThreadedRun.POLL_MS, TimeUnit.MILLISECONDS)) {
            rethrow();
        }
        rethrow();
    }

    /** Lets the stopped threads end and waits for them. */
    void end() throws InterruptedException {
        stop = true;
        exit.countDown();
        producer.join();
        for (Thread worker : workers) {
            worker.join();
        }
    }

    private void produce() {
        try {
            int next = 0;
            while (!stop && failure.get() == null) {
                Packet packet = buffers.producer().acquire();
                sources[next].fill(packet);
                for (int spins = 0; !rings[next].offer(packet); spins++) {
                    if (failure.get() != null) {
                        throw new IllegalStateException("a worker failed: the producer holds a packet it cannot hand"
                                + " off");
                    }
                    idle(spins);
                }
                next = next + 1 == rings.length ? 0 : next + 1;
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            stop = true;
        } finally {
            producerDone = true;
            park();
        }
    }

    private void work(int index) {
        Ring ring = rings[index];
        Processor processor = processors[index];
        FillRule rule = new FillRule(shares[index]);
        long count = 0;
        try {
            for (int spins = 0; ; ) {
                Packet packet = ring.poll();
                if (packet == null) {
                    if (producerDone && ring.isEmpty()) {
                        break;
                    }
                    idle(spins++);
                    continue;
                }
                spins = 0;
                processor.accept(packet);
                count++;
                if ((count & (BatchLoop.PACKETS_PER_CHECK - 1)) == 0) {
                    processed.lazySet(index * STRIDE, count);
                }
                if (fillPackets[index] == 0 && rule.filled(processor)) {
                    fillPackets[index] = count;
                    fillNanos[index] = System.nanoTime() - startNanos;
                    filled.countDown();
                }
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            stop = true;
        } finally {
            processed.set(index * STRIDE, count);
            park();
        }
    }

    private void park() {
        parked.countDown();
        try {
            exit.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Spins a while, then gives the CPU away: the threads may outnumber the CPUs. */
    private static void idle(int spins) {
        if (spins < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private void rethrow() {
        ThreadedRun.rethrow(failure.get(), "a hand-off thread");
    }

    private long total() {
        long sum = 0;
        for (int i = 0; i < workers.length; i++) {
            sum += processed.get(i * STRIDE);
        }
        return sum;
    }

    /** A meter over the producer's and the workers' allocations (null where the JVM cannot count). */
    AllocationMeter allocationMeter() {
        return AllocationMeter.forThreads(all());
    }

    /** A meter of the producer's CPU time and each worker's, in that order. */
    ThreadCpu threadCpu() {
        return ThreadCpu.of(all());
    }

    private Thread[] all() {
        Thread[] all = new Thread[workers.length + 1];
        all[0] = producer;
        System.arraycopy(workers, 0, all, 1, workers.length);
        return all;
    }

    Processor firstProcessor() {
        return processors[0];
    }

    CaseParams firstShare() {
        return shares[0];
    }

    @Override
    public long fillPackets() {
        return fillTotal;
    }

    @Override
    public double fillSeconds() {
        long max = 0;
        for (long nanos : fillNanos) {
            max = Math.max(max, nanos);
        }
        return max / 1e9;
    }

    @Override
    public double smallestShare() {
        long min = Long.MAX_VALUE;
        long all = 0;
        for (int i = 0; i < workers.length; i++) {
            long timed = processed.get(i * STRIDE) - fillPackets[i];
            min = Math.min(min, timed);
            all += timed;
        }
        return all <= 0 ? 0 : (double) min * workers.length / all;
    }

    /** Acquired = released + held, over the producer and every worker; the queues must be empty. */
    @Override
    public PoolCounts checkedCounts() {
        long held = 0;
        for (int i = 0; i < workers.length; i++) {
            if (!rings[i].isEmpty()) {
                throw new IllegalStateException("worker " + i + "'s queue still holds " + rings[i].size()
                        + " packets after the run");
            }
            held += processors[i].held();
        }
        return buffers.counts(held);
    }

    @Override
    public List<Long> held() {
        List<Long> held = new ArrayList<>();
        for (Processor processor : processors) {
            held.add((long) processor.held());
        }
        return held;
    }

    @Override
    public void releaseHeld() {
        for (Processor processor : processors) {
            processor.releaseAll();
        }
    }

    /** FillPhase's rule, packet by packet: FIFO full, and store 99 % full or no longer growing. */
    private static final class FillRule {
        private final int fifoTarget;
        private final long storeTarget;
        private final long stallPackets;
        private long lastStored;
        private long sinceGrowth;

        FillRule(CaseParams params) {
            fifoTarget = params.internalQueueSize - 1;
            storeTarget = (99L * params.storedCount + 99) / 100;
            stallPackets = (long) FillPhase.STALL_PER_SLOT * params.storedCount;
        }

        boolean filled(Processor processor) {
            long stored = processor.stored();
            if (stored > lastStored || processor.queued() < fifoTarget) {
                lastStored = stored;
                sinceGrowth = 0;
            } else {
                sinceGrowth++;
            }
            return processor.queued() >= fifoTarget && (stored >= storeTarget || sinceGrowth >= stallPackets);
        }
    }

    /** One worker's queue: single producer, single consumer, a power of two of packets. */
    static final class Ring {
        private final Packet[] slots;
        private final int mask;
        private final AtomicLong head = new AtomicLong();
        private final AtomicLong tail = new AtomicLong();

        Ring(int capacity) {
            if (Integer.bitCount(capacity) != 1) {
                throw new IllegalArgumentException("a ring's capacity is a power of two, not " + capacity);
            }
            slots = new Packet[capacity];
            mask = capacity - 1;
        }

        boolean offer(Packet packet) {
            long t = tail.get();
            if (t - head.get() == slots.length) {
                return false;
            }
            slots[(int) t & mask] = packet;
            tail.lazySet(t + 1);
            return true;
        }

        Packet poll() {
            long h = head.get();
            if (h == tail.get()) {
                return null;
            }
            int i = (int) h & mask;
            Packet packet = slots[i];
            slots[i] = null;
            head.lazySet(h + 1);
            return packet;
        }

        boolean isEmpty() {
            return head.get() == tail.get();
        }

        long size() {
            return tail.get() - head.get();
        }
    }
}
