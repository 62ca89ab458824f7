package allocorpool;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A test that leaks Netty buffers on purpose (a run made to fail by a dropped buffer): NettyLeaksFail lets it. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ExpectsNettyLeaks {}
