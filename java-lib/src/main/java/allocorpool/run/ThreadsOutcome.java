package allocorpool.run;

import allocorpool.strategy.PoolCounts;
import java.util.List;

/** What the summary reads of a run of several threads (ThreadedRun, HandoffRun) once they stopped. */
interface ThreadsOutcome {
    /** Packets made in the fill phase, every thread's. */
    long fillPackets();

    /** The fill phase's length in seconds (the longest thread's). */
    double fillSeconds();

    /** The smallest thread's packets of the timed phase x N / all threads' (1: an even split). */
    double smallestShare();

    /** The strategies' counts over all threads, checked (null for strategies without counts). */
    PoolCounts checkedCounts();

    /** The packets each processing thread's processor holds now: its live set. */
    List<Long> held();

    /** Releases what every processor holds, once the threads ended and the counts were read. */
    void releaseHeld();
}
