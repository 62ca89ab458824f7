package allocorpool.strategy;

import allocorpool.model.CaseParams;
import java.util.Arrays;
import java.util.List;

/** The strategies by their command-line names, sized for a case. */
public final class Strategies {
    public static final List<String> NAMES = Arrays.asList(
            "dummy", "alloc", "mix", "pool", "native-alloc", "native-mix", "native-pool",
            "netty-pooled-heap", "netty-pooled-direct", "netty-unpooled", "netty-recycler", "shared-pool");

    /** The strategies that fail when POOL_SIZE packets (or native slots) are all in use. */
    public static final List<String> BOUNDED_BY_POOL_SIZE = Arrays.asList(
            "pool", "native-alloc", "native-mix", "native-pool", "shared-pool");

    /** The strategy whose one pool serves every processing thread (see SharedPool); the others make one per thread. */
    public static final String SHARED = "shared-pool";

    private Strategies() {}

    /** The strategies whose buffers or packets come from Netty (netty-buffer, Netty's Recycler). */
    public static boolean netty(String name) {
        return name.startsWith("netty-");
    }

    /**
     * False for dummy: it hands out one packet for everything, so the store holds that one
     * packet whatever its occupied slots, and with the counter source it stops receiving
     * packets after the first TCP one (see CounterSource); the fill phase waits for the
     * FIFO only.
     */
    public static boolean fillsStore(String name) {
        return !name.equals("dummy");
    }

    public static BufferStrategy create(String name, CaseParams params) {
        switch (name) {
            case "dummy":
                return new DummyStrategy();
            case "alloc":
                return new AllocStrategy();
            case "mix":
                return new StackPoolStrategy(name, new HeapPackets(), params.mixPoolSize, true);
            case "pool":
                return new StackPoolStrategy(name, new HeapPackets(), params.poolSize, false);
            case "native-alloc":
                return new StackPoolStrategy(name, new NativeSlab(params.poolSize), 0, true);
            case "native-mix":
                return new StackPoolStrategy(name, new NativeSlab(params.poolSize), params.mixPoolSize, true);
            case "native-pool":
                return new StackPoolStrategy(name, new NativeSlab(params.poolSize), params.poolSize, false);
            case "netty-pooled-heap":
            case "netty-pooled-direct":
            case "netty-unpooled":
                return NettyStrategy.create(name);
            case "netty-recycler":
                return new RecyclerStrategy();
            case SHARED:
                return new SharedPool(params.poolSize).view();
            default:
                throw new IllegalArgumentException("no strategy " + name);
        }
    }
}
