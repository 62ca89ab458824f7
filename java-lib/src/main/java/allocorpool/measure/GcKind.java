package allocorpool.measure;

/**
 * Whether a GarbageCollectorMXBean's events are pauses (the application stood still for
 * the whole duration) or cycles (mostly concurrent work, whose pauses only the GC log
 * shows). Names per JDK and collector are in shared/design/jdk-matrix.md.
 */
public final class GcKind {
    public static final String PAUSE = "pause";
    public static final String CYCLE = "cycle";

    private GcKind() {}

    public static String of(String beanName) {
        switch (beanName) {
            case "ParNew":
            case "G1 Young Generation":
            case "G1 Old Generation":
            case "PS Scavenge":
            case "PS MarkSweep":
            case "Copy":
            case "MarkSweepCompact":
            case "ZGC Pauses":
            case "ZGC Minor Pauses":
            case "ZGC Major Pauses":
            case "Shenandoah Pauses":
                return PAUSE;
            case "ConcurrentMarkSweep":
            case "G1 Concurrent GC":
            case "ZGC": // JDK 11: one bean whose duration is the whole concurrent cycle
            case "ZGC Cycles":
            case "ZGC Minor Cycles":
            case "ZGC Major Cycles":
            case "Shenandoah Cycles":
                return CYCLE;
            default:
                return beanName.contains("Cycles") || beanName.contains("Concurrent") ? CYCLE : PAUSE;
        }
    }
}
