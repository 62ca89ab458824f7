package allocorpool.model;

import allocorpool.strategy.BufferStrategy;

/**
 * One step of the model, the unit every measurement counts: acquire a packet from the
 * strategy, fill it, hand it to the processor. Both modes, and the fill phase before
 * them, run this and only this per packet.
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

    public BufferStrategy strategy() {
        return strategy;
    }

    public Processor processor() {
        return processor;
    }
}
