package allocorpool.queue;

/**
 * A clock thread without a thread, for the real-time loop's tests. Time is a number the consumer's
 * script moves: each tick it takes costs what the script says, and a poll that finds nothing
 * waits for the next tick to fall due. As time moves, the ticks due by then are offered into a
 * real dual-array queue, tick i at i intervals, back to back when several fell due, as the clock
 * thread offers them: a tick goes into the producer's array, or is dropped when that is full, and
 * at each offer the array is published if the consumer has handed the other one back. The
 * engine's QueueTickSource reads the queue, on the test's thread, so a run's accounting follows
 * from its script alone, whatever else the machine runs.
 */
public final class ScriptedTicks implements TickSource {
    private static final long NEVER = Long.MAX_VALUE;

    /** What the consumer's packets cost on the scripted clock. */
    public static final class Script {
        private final long packetNs;
        private long stallAtNs = NEVER;
        private long stallNs;
        private long slowFromNs = NEVER;
        private long slowPacketNs;

        /** Each packet costs {@code packetNs}. */
        public Script(long packetNs) {
            this.packetNs = packetNs;
        }

        /** The first packet begun at or after {@code atNs} costs {@code ns} more. */
        public Script stall(long atNs, long ns) {
            stallAtNs = atNs;
            stallNs = ns;
            return this;
        }

        /** The packets begun from {@code fromNs} on cost {@code ns} each. */
        public Script slowFrom(long fromNs, long ns) {
            slowFromNs = fromNs;
            slowPacketNs = ns;
            return this;
        }
    }

    private final long intervalNs;
    private final Script script;
    private final DualArrayQueue queue;
    private final QueueTickSource source;
    private final long origin = System.nanoTime();
    private long elapsed;  // ns since tick 0 was due
    private long emitted;
    private long written;
    private long dropped;
    private int array;
    private int w;
    private boolean stalled;
    private boolean stopped;

    private ScriptedTicks(int capacity, long intervalNs, Script script) {
        if (intervalNs <= 0) {
            throw new IllegalArgumentException("a scripted clock needs a positive interval, got " + intervalNs);
        }
        this.intervalNs = intervalNs;
        this.script = script;
        this.queue = DualArrayQueue.allocate(capacity);
        this.source = new QueueTickSource(queue, new Producer(), intervalNs, () -> origin + elapsed);
        offerDue();  // tick 0 is due at once
    }

    /** A source of one tick per {@code intervalNs} into arrays of {@code capacity} slots. */
    public static TickSource open(int capacity, long intervalNs, Script script) {
        return new ScriptedTicks(capacity, intervalNs, script);
    }

    @Override
    public boolean poll() {
        if (source.poll()) {
            long begun = elapsed;
            long cost = begun >= script.slowFromNs ? script.slowPacketNs : script.packetNs;
            if (!stalled && begun >= script.stallAtNs) {
                stalled = true;
                cost += script.stallNs;
            }
            elapsed += cost;
            offerDue();
            return true;
        }
        if (!stopped) {
            elapsed = emitted * intervalNs;  // the consumer spins until the next tick is due
            offerDue();
        }
        return false;
    }

    private void offerDue() {
        long due = elapsed / intervalNs + 1;  // ticks 0..due-1
        while (!stopped && emitted < due) {
            if (w < queue.size) {
                queue.putSlot(array, w++, (int) emitted);
                written++;
            } else {
                dropped++;
            }
            emitted++;
            publishIfFree();
        }
    }

    private void publishIfFree() {
        if (w > 0 && queue.readLimitAcquire() == 0) {
            queue.readLimitRelease(w);
            array ^= 1;
            w = 0;
        }
    }

    @Override
    public long received() {
        return source.received();
    }

    @Override
    public long lost() {
        return source.lost();
    }

    @Override
    public NanoClock clock() {
        return source.clock();
    }

    @Override
    public void setWindowStart(long startNanos) {
        source.setWindowStart(startNanos);
    }

    @Override
    public long lostInWindow() {
        return source.lostInWindow();
    }

    @Override
    public boolean lastInWindow() {
        return source.lastInWindow();
    }

    @Override
    public long latenessNs() {
        return source.latenessNs();
    }

    /**
     * The clock stops ticking, and publishes what it holds once the consumer has handed the other
     * array back, as the clock thread does after stop(); then the engine's source drains the queue.
     */
    @Override
    public TickStats finish() {
        if (!stopped) {
            stopped = true;
            while (w > 0) {
                if (!source.poll()) {
                    publishIfFree();
                }
            }
            queue.doneRelease();
        }
        return source.finish();
    }

    /** The producer side QueueTickSource sees: this clock's schedule and counts. */
    private final class Producer implements TickProducer {
        @Override
        public void stop() {
            // finish() stopped the clock before it asked the source to finish.
        }

        @Override
        public long latenessNs(long tick) {
            return elapsed - tick * intervalNs;
        }

        @Override
        public long[] join() {
            return new long[] {emitted, written, dropped, 0};
        }
    }
}
