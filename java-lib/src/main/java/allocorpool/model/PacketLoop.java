package allocorpool.model;

import allocorpool.strategy.BufferStrategy;

/**
 * One step of the model, the unit every measurement counts: acquire a packet from the
 * strategy, fill it, hand it to the processor. Both modes run this and only this per
 * packet.
 */
public final class PacketLoop {
    private final BufferStrategy strategy;
    private final DataSource source;
    private final Processor processor;

    public PacketLoop(BufferStrategy strategy, CaseParams params, long seed) {
        this.strategy = strategy;
        this.source = new DataSource(seed);
        this.processor = new Processor(strategy, params, seed + 1);
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
