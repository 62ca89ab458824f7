package allocorpool.queue;

import java.nio.ByteBuffer;

/** The native clock thread (native-queue's TickProducer, or its fan-out over several queues) behind the JNI handle. */
final class NativeTickProducer implements TickProducer {
    private final long handle;
    private final boolean fanOut;
    private boolean joined;

    NativeTickProducer(DualArrayQueue queue, long intervalNs, int producerCpu) {
        this.handle = NativeClock.start(queue.slots, queue.control, queue.size, intervalNs, producerCpu);
        this.fanOut = false;
    }

    /** One clock feeding {@code queues} in turn, all of one size. */
    NativeTickProducer(DualArrayQueue[] queues, long intervalNs, int producerCpu) {
        ByteBuffer[] slots = new ByteBuffer[queues.length];
        ByteBuffer[] controls = new ByteBuffer[queues.length];
        for (int k = 0; k < queues.length; k++) {
            if (queues[k].size != queues[0].size) {
                throw new IllegalArgumentException("a fan-out's queues are of one size: " + queues[k].size + " and "
                        + queues[0].size);
            }
            slots[k] = queues[k].slots;
            controls[k] = queues[k].control;
        }
        this.handle = NativeClock.startFanOut(slots, controls, queues[0].size, intervalNs, producerCpu);
        this.fanOut = true;
    }

    @Override
    public void stop() {
        if (!joined) {
            if (fanOut) {
                NativeClock.stopFanOut(handle);
            } else {
                NativeClock.stop(handle);
            }
        }
    }

    @Override
    public long latenessNs(long tick) {
        return fanOut ? NativeClock.fanOutLatenessNs(handle, tick) : NativeClock.latenessNs(handle, tick);
    }

    @Override
    public long[] join() {
        if (joined) {
            throw new IllegalStateException("native clock already joined");
        }
        joined = true;
        return fanOut ? NativeClock.joinFanOut(handle) : NativeClock.join(handle);
    }
}
