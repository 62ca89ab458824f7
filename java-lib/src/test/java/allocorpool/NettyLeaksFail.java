package allocorpool;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Every test runs under Netty's leak detector at PARANOID (surefire's -Dio.netty.leakDetection.level,
 * registered for every test by junit-platform.properties), and a leak it reports fails the test: after
 * each test, a few collections and a tracked allocation make the detector report
 * the buffers collected unreleased. A test that leaks on purpose says so ({@link ExpectsNettyLeaks}).
 * A leak found after a test may be an earlier test's, reported late: the suite fails all the same.
 */
public final class NettyLeaksFail implements BeforeEachCallback, AfterEachCallback {
    private static final int COLLECTIONS = 3;
    private final List<String> leaks = new CopyOnWriteArrayList<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        if (nettyLoaded()) {
            ByteBufUtil.setLeakListener((type, records) -> leaks.add(type + ": " + records));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (!nettyLoaded()) {
            return;
        }
        if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.PARANOID) {
            fail("Netty's leak detector is at " + ResourceLeakDetector.getLevel() + ", not PARANOID: run the tests"
                    + " with -Dio.netty.leakDetection.level=paranoid (java-lib/pom.xml's surefire argLine)");
        }
        ByteBufUtil.setLeakListener((type, records) -> leaks.add(type + ": " + records));
        for (int i = 0; i < COLLECTIONS; i++) {
            System.gc();
            Thread.sleep(5);
            ByteBuf probe = UnpooledByteBufAllocator.DEFAULT.directBuffer(1); // a tracked allocation reports
            probe.release();
        }
        ByteBufUtil.setLeakListener(null);
        boolean expected = context.getTestMethod().map(m -> m.isAnnotationPresent(ExpectsNettyLeaks.class))
                .orElse(false);
        List<String> found = List.copyOf(leaks);
        leaks.clear();
        if (!found.isEmpty() && !expected) {
            fail("Netty's leak detector reported " + found.size() + " leak(s) after "
                    + context.getDisplayName() + ":\n" + String.join("\n", found));
        }
    }

    /** Sets the engine's Netty defaults (NettyStrategy's) before Netty's classes load: always true. */
    private static boolean nettyLoaded() {
        try {
            Class.forName("allocorpool.strategy.NettyStrategy", true, NettyLeaksFail.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
