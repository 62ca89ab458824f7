package allocorpool.run;

import com.fasterxml.jackson.core.JsonFactory;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * A class loader of a test's own: it loads the engine and its libraries afresh and notes the
 * thread and time of each class it defines, so that a test sees which classes a run loads.
 */
final class NotingLoader extends URLClassLoader {
    static final class Definition {
        final String name;
        final Thread thread;
        final long nanos;

        Definition(String name, Thread thread, long nanos) {
            this.name = name;
            this.thread = thread;
            this.nanos = nanos;
        }
    }

    final List<Definition> defined = Collections.synchronizedList(new ArrayList<>());

    NotingLoader() {
        super(new URL[] {codeOf(Run.class), codeOf(JavaClockRun.class), codeOf(Histogram.class),
            codeOf(JsonFactory.class), codeOf(ByteBuf.class), codeOf(ReferenceCounted.class)},
                ClassLoader.getPlatformClassLoader());
    }

    private static URL codeOf(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation();
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> c = super.findClass(name);
        defined.add(new Definition(name, Thread.currentThread(), System.nanoTime()));
        return c;
    }

    /** Runs the command line {@code args} on the Java clock (see {@link JavaClockRun}); returns its exit status. */
    int run(String[] args) throws ReflectiveOperationException {
        return (Integer) loadClass(JavaClockRun.class.getName()).getMethod("run", String[].class)
                .invoke(null, (Object) args);
    }

    /** The names of the classes defined so far. */
    List<String> names() {
        synchronized (defined) {
            return defined.stream().map(d -> d.name).collect(Collectors.toList());
        }
    }
}
