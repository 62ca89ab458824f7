package allocorpool.model;

import allocorpool.strategy.BufferStrategy;

/**
 * One step of the model, the unit every measurement counts: acquire a packet from the
 * strategy, fill it, hand it to the processor. Both modes, and the fill phase before
 * them, run this and only this per packet.
 *
 * <p>{@link #steps} repeats the step in a loop of its own, for the loops that run flat out:
 * one call per batch of packets rather than one per packet. Its loop spells the step out
 * instead of calling {@link #step}: the JIT compiles a method that hot on its own, and then
 * refuses to inline it into a caller (HotSpot's InlineSmallCode), so a loop calling step()
 * pays a call and reloads this object's fields for every packet.
 */
public final class PacketLoop {
    private final BufferStrategy strategy;
    private final PacketSource source;
    private final Processor processor;

    public PacketLoop(BufferStrategy strategy, PacketSource source, CaseParams params) {
        this.strategy = strategy;
        this.source = source;
        this.processor = new Processor(strategy, source, params);
    }

    public void step() {
        Packet packet = strategy.acquire();
        source.fill(packet);
        processor.accept(packet);
    }

    /** {@code count} steps in a row. */
    public void steps(int count) {
        BufferStrategy strategy = this.strategy;
        PacketSource source = this.source;
        Processor processor = this.processor;
        for (int i = 0; i < count; i++) {
            Packet packet = strategy.acquire();
            source.fill(packet);
            processor.accept(packet);
        }
    }

    public BufferStrategy strategy() {
        return strategy;
    }

    public Processor processor() {
        return processor;
    }
}
