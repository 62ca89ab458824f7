package allocorpool.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import allocorpool.model.Packet;
import java.util.ArrayDeque;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/** The shared pool's accounting: exact across threads, a double release and running out are errors. */
class SharedPoolTest {
    @Test
    void twoThreadsTakingAndGivingBackLeaveEveryPacketAccountedFor() throws Exception {
        SharedPool pool = new SharedPool(1000);
        CyclicBarrier start = new CyclicBarrier(2);
        SharedPool.View[] views = {pool.view(), pool.view()};
        Thread[] threads = new Thread[2];
        Throwable[] failed = new Throwable[1];
        for (int t = 0; t < 2; t++) {
            SharedPool.View view = views[t];
            threads[t] = new Thread(() -> {
                try {
                    ArrayDeque<Packet> held = new ArrayDeque<>();
                    start.await();
                    for (int i = 0; i < 200_000; i++) {
                        held.addLast(view.acquire());
                        if (held.size() > 300) {
                            view.release(held.removeFirst());
                        }
                    }
                    while (held.size() > 100) {
                        view.release(held.removeFirst());
                    }
                } catch (Throwable e) {
                    failed[0] = e;
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(null, failed[0]);
        PoolCounts counts = views[0].counts();
        assertEquals(1000, counts.capacity);
        assertEquals(200, counts.inUse);
        assertEquals(800, counts.free);
        assertTrue(counts.balanced());
    }

    @Test
    void aDoubleReleaseThrows() {
        SharedPool.View view = new SharedPool(4).view();
        Packet packet = view.acquire();
        view.release(packet);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> view.release(packet));
        assertTrue(e.getMessage().contains("shared-pool: double release"), e.getMessage());
    }

    @Test
    void runningOutThrows() {
        SharedPool.View view = new SharedPool(2).view();
        view.acquire();
        view.acquire();
        IllegalStateException e = assertThrows(IllegalStateException.class, view::acquire);
        assertTrue(e.getMessage().contains("shared-pool exhausted: all 2 packets"), e.getMessage());
    }
}
