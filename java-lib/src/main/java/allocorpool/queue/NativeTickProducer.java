package allocorpool.queue;

/** The native clock thread (native-queue's TickProducer) behind the JNI handle. */
final class NativeTickProducer implements TickProducer {
    private final long handle;
    private boolean joined;

    NativeTickProducer(DualArrayQueue queue, long intervalNs, int producerCpu) {
        this.handle = NativeClock.start(queue.slots, queue.control, queue.size, intervalNs, producerCpu);
    }

    @Override
    public void stop() {
        if (!joined) {
            NativeClock.stop(handle);
        }
    }

    @Override
    public long latenessNs(long tick) {
        return NativeClock.latenessNs(handle, tick);
    }

    @Override
    public long[] join() {
        if (joined) {
            throw new IllegalStateException("native clock already joined");
        }
        joined = true;
        return NativeClock.join(handle);
    }
}
