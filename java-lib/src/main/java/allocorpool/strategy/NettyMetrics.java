package allocorpool.strategy;

import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PoolChunkListMetric;
import io.netty.buffer.PoolChunkMetric;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Netty's allocators say of themselves after a run (the summary's {@code netty_metrics}): for
 * the pooled allocator ({@link PooledByteBufAllocatorMetric}) the thread caches and used memory, and
 * for each arena of the strategy's kind (heap or direct) its allocations, deallocations, active
 * allocations and bytes, thread caches, and chunks with their usage; for the unpooled allocator its
 * used memory. An arena counts only what its thread caches did not serve, so that the share of the
 * strategy's buffers the caches served is 1 - arena allocations / buffers allocated (the analysis's
 * to work out: the allocator is the process's, and serves one strategy per run).
 */
public final class NettyMetrics {
    /** The fields of {@code netty_metrics} (each arena's are {@link #ARENA}'s), in docs/records.md. */
    public static final List<String> FIELDS = List.of("allocator", "kind", "num_thread_local_caches",
            "used_heap_memory", "used_direct_memory", "num_arenas", "allocations", "deallocations",
            "active_allocations", "active_bytes", "chunks", "chunk_usage_pct", "arenas");
    public static final List<String> ARENA = List.of("allocations", "small_allocations", "normal_allocations",
            "huge_allocations", "deallocations", "active_allocations", "active_bytes", "thread_caches", "chunks",
            "chunk_usage_pct");

    private NettyMetrics() {}

    /** The metrics of the allocator behind {@code strategy}, or null when it is no Netty buffer strategy. */
    public static Map<String, Object> of(String strategy) {
        switch (strategy) {
            case "netty-pooled-heap":
                return pooled(NettyStrategy.pooled().metric(), false);
            case "netty-pooled-direct":
                return pooled(NettyStrategy.pooled().metric(), true);
            case "netty-unpooled":
                return unpooled(NettyStrategy.unpooled().metric());
            default:
                return null;
        }
    }

    private static Map<String, Object> pooled(PooledByteBufAllocatorMetric metric, boolean direct) {
        Map<String, Object> r = base("pooled", direct ? "direct" : "heap", metric);
        r.put("num_thread_local_caches", (long) metric.numThreadLocalCaches());
        List<PoolArenaMetric> arenas = direct ? metric.directArenas() : metric.heapArenas();
        List<Map<String, Object>> each = new ArrayList<>();
        long allocations = 0;
        long deallocations = 0;
        long active = 0;
        long activeBytes = 0;
        long chunks = 0;
        long usage = 0;
        for (PoolArenaMetric arena : arenas) {
            Map<String, Object> a = arena(arena);
            each.add(a);
            allocations += arena.numAllocations();
            deallocations += arena.numDeallocations();
            active += arena.numActiveAllocations();
            activeBytes += arena.numActiveBytes();
            chunks += (Long) a.get("chunks");
            usage += (Long) a.get("usage_sum");
            a.remove("usage_sum");
        }
        r.put("num_arenas", (long) arenas.size());
        r.put("allocations", allocations);
        r.put("deallocations", deallocations);
        r.put("active_allocations", active);
        r.put("active_bytes", activeBytes);
        r.put("chunks", chunks);
        r.put("chunk_usage_pct", chunks == 0 ? null : (double) usage / chunks);
        r.put("arenas", each);
        return r;
    }

    private static Map<String, Object> arena(PoolArenaMetric arena) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("allocations", arena.numAllocations());
        a.put("small_allocations", arena.numSmallAllocations());
        a.put("normal_allocations", arena.numNormalAllocations());
        a.put("huge_allocations", arena.numHugeAllocations());
        a.put("deallocations", arena.numDeallocations());
        a.put("active_allocations", arena.numActiveAllocations());
        a.put("active_bytes", arena.numActiveBytes());
        a.put("thread_caches", (long) arena.numThreadCaches());
        long chunks = 0;
        long usage = 0;
        for (PoolChunkListMetric list : arena.chunkLists()) {
            for (PoolChunkMetric chunk : list) {
                chunks++;
                usage += chunk.usage();
            }
        }
        a.put("chunks", chunks);
        a.put("chunk_usage_pct", chunks == 0 ? null : (double) usage / chunks);
        a.put("usage_sum", usage);
        return a;
    }

    private static Map<String, Object> unpooled(ByteBufAllocatorMetric metric) {
        Map<String, Object> r = base("unpooled", "heap", metric);
        for (String field : List.of("num_thread_local_caches", "num_arenas", "allocations", "deallocations",
                "active_allocations", "active_bytes", "chunks", "chunk_usage_pct", "arenas")) {
            r.put(field, null);
        }
        return r;
    }

    private static Map<String, Object> base(String allocator, String kind, ByteBufAllocatorMetric metric) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("allocator", allocator);
        r.put("kind", kind);
        r.put("used_heap_memory", metric.usedHeapMemory());
        r.put("used_direct_memory", metric.usedDirectMemory());
        return r;
    }
}
