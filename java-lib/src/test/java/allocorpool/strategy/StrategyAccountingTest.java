package allocorpool.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.model.CaseParams;
import allocorpool.model.Packet;
import allocorpool.model.PacketLoop;
import allocorpool.model.PacketSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pools keep exact counts: after many packets every packet (or slot, or Netty buffer) is
 * free or held by the processor, a double release throws, and mix grows past its pool and
 * drops back.
 */
class StrategyAccountingTest {
    @ParameterizedTest
    @ValueSource(strings = {"mix", "pool", "native-alloc", "native-mix", "native-pool", "netty-pooled-heap",
        "netty-pooled-direct", "netty-unpooled", "netty-recycler"})
    void countsBalanceAfterARun(String name) {
        for (String caseName : new String[] {"A", "B", "C"}) {
            for (String source : PacketSource.NAMES) {
                CaseParams params = CaseParams.of(caseName, 0.01);
                PacketLoop loop = new PacketLoop(Strategies.create(name, params), PacketSource.create(source, 3),
                        params);
                // Netty's buffers are tracked with a stack trace each (the tests' PARANOID leak detector): fewer
                int steps = Strategies.netty(name) ? 10_000 : 200_000;
                for (int i = 0; i < steps; i++) {
                    loop.step();
                }
                String what = name + " " + caseName + " " + source;
                PoolCounts counts = loop.strategy().counts();
                assertNotNull(counts, what);
                assertTrue(counts.balanced(), what + ": " + counts);
                assertEquals(loop.processor().held(), counts.inUse, what + ": " + counts);
                assertTrue(counts.inUse > params.internalQueueSize, what + ": the store holds packets too");
                loop.processor().releaseAll();
                assertEquals(0, loop.strategy().counts().inUse, what + ": every packet given back");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mix", "pool", "native-alloc", "native-mix", "native-pool", "netty-pooled-heap",
        "netty-pooled-direct", "netty-unpooled", "netty-recycler"})
    void doubleReleaseThrows(String name) {
        BufferStrategy strategy = Strategies.create(name, CaseParams.of("A", 0.001));
        Packet packet = strategy.acquire();
        strategy.release(packet);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> strategy.release(packet));
        assertTrue(e.getMessage().contains("double release"), e.getMessage());
        assertTrue(strategy.counts().balanced(), strategy.counts().toString());
    }

    @Test
    void mixAllocatesBeyondItsPoolAndDropsBack() {
        for (String name : new String[] {"mix", "native-mix"}) {
            CaseParams params = CaseParams.of("A", 0.001); // mix pool of 200, slab of 1000
            BufferStrategy mix = Strategies.create(name, params);
            List<Packet> out = new ArrayList<>();
            for (int i = 0; i < params.mixPoolSize + 50; i++) {
                out.add(mix.acquire());
            }
            PoolCounts grown = mix.counts();
            assertEquals(params.mixPoolSize + 50, grown.inUse, name);
            long spareSlots = name.equals("mix") ? 0 : params.poolSize - grown.inUse;
            assertEquals(spareSlots, grown.free, name + ": the pool is empty");
            assertTrue(grown.balanced(), name + ": " + grown);
            for (Packet p : out) {
                mix.release(p);
            }
            PoolCounts back = mix.counts();
            assertEquals(0, back.inUse, name);
            assertTrue(back.balanced(), name + ": " + back);
            if (name.equals("mix")) {
                assertEquals(params.mixPoolSize, back.capacity, "the 50 extra heap packets were dropped");
            } else {
                assertEquals(params.poolSize, back.free, "the 50 extra slots went back to the slab");
            }
        }
    }

    @Test
    void poolExhaustionIsAClearError() {
        for (String name : new String[] {"pool", "native-pool", "native-alloc"}) {
            CaseParams params = CaseParams.of("A", 0.00001); // pool of 10
            BufferStrategy pool = Strategies.create(name, params);
            for (int i = 0; i < params.poolSize; i++) {
                pool.acquire();
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, pool::acquire);
            assertTrue(e.getMessage().contains("exhausted") && e.getMessage().contains("10"), e.getMessage());
        }
    }

    @Test
    void releasedPacketsForgetTheirParseResults() {
        CaseParams params = CaseParams.of("A", 0.001);
        PacketLoop loop = new PacketLoop(Strategies.create("pool", params), PacketSource.create("random", 5), params);
        for (int i = 0; i < 10_000; i++) {
            loop.step();
        }
        Packet free = loop.strategy().acquire();
        assertNull(free.ipPacket(), "a pooled packet comes back without its old parse results");
    }

    @Test
    void nativePacketsAreSlicesOfOneSlab() {
        NativeSlab slab = new NativeSlab(4);
        Packet a = slab.create();
        Packet b = slab.create();
        assertTrue(a.buffer().isDirect());
        assertEquals(Packet.BYTES, a.buffer().capacity());
        assertEquals(0, a.slot());
        assertEquals(1, b.slot());
        a.buffer().put(0, (byte) 1);
        assertEquals(0, b.buffer().get(0), "slots do not overlap");
        slab.destroy(a);
        assertThrows(IllegalStateException.class, () -> slab.destroy(a));
        assertEquals(3, slab.spare());
    }

    @Test
    void aSlabLargerThanOneDirectBufferIsCutIntoChunks() {
        NativeSlab slab = new NativeSlab(5, 2);  // chunks of 2 slots: 2 + 2 + 1
        assertEquals(3, slab.chunks());
        Packet[] packets = new Packet[5];
        for (int i = 0; i < packets.length; i++) {
            packets[i] = slab.create();
            assertEquals(i, packets[i].slot());
            assertEquals(Packet.BYTES, packets[i].buffer().capacity());
            packets[i].buffer().put(0, (byte) (i + 1));
            packets[i].buffer().put(Packet.BYTES - 1, (byte) (i + 1));
        }
        for (int i = 0; i < packets.length; i++) {
            assertEquals(i + 1, packets[i].buffer().get(0), "slots do not overlap across chunks");
            assertEquals(i + 1, packets[i].buffer().get(Packet.BYTES - 1));
        }
        assertThrows(IllegalStateException.class, slab::create);
        slab.destroy(packets[4]);
        assertEquals(4, slab.create().slot(), "the last chunk's slot comes back");
        assertEquals(1, new NativeSlab(NativeSlab.CHUNK_SLOTS).chunks());
        assertThrows(IllegalArgumentException.class, () -> new NativeSlab(4, 3));
    }

    @Test
    void dummyAndAllocHaveNoPool() {
        CaseParams params = CaseParams.of("A", 0.001);
        BufferStrategy dummy = Strategies.create("dummy", params);
        assertSame(dummy.acquire(), dummy.acquire());
        assertNull(dummy.counts());
        BufferStrategy alloc = Strategies.create("alloc", params);
        assertTrue(alloc.acquire() != alloc.acquire());
        assertNull(alloc.counts());
    }
}
