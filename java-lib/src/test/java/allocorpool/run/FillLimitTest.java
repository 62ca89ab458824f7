package allocorpool.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import allocorpool.EngineFacts;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The fill phase's limit beyond --duration-s is the one the C++ engine and the study's runner use. */
class FillLimitTest {
    @Test
    void theFillLimitIsTheSharedFact() throws IOException {
        assertEquals(EngineFacts.load().number("fill_limit_s"), Run.FILL_GRACE_S);
    }
}
