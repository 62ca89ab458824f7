package allocorpool.queue;

import java.nio.ByteBuffer;

/**
 * The native clock thread feeding several queues in turn (native-queue's FanOutTickProducer) behind
 * the JNI handle: {@link #join} returns four counts per queue (see {@link FanOut}). A class of its own
 * so that the one-consumer clock ({@link NativeTickProducer}) keeps its calls unchanged.
 */
final class NativeFanOutProducer implements TickProducer {
    private final long handle;
    private boolean joined;

    /** One clock feeding {@code queues} in turn, all of one size. */
    NativeFanOutProducer(DualArrayQueue[] queues, long intervalNs, int producerCpu) {
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
    }

    @Override
    public void stop() {
        if (!joined) {
            NativeClock.stopFanOut(handle);
        }
    }

    @Override
    public long latenessNs(long tick) {
        return NativeClock.fanOutLatenessNs(handle, tick);
    }

    @Override
    public long[] join() {
        if (joined) {
            throw new IllegalStateException("native clock already joined");
        }
        joined = true;
        return NativeClock.joinFanOut(handle);
    }
}
