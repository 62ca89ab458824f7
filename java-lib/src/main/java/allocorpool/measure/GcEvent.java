package allocorpool.measure;

/** One GarbageCollectionNotification, as the listener thread hands it to the run. */
public final class GcEvent {
    public final String bean;
    public final long id;
    public final String action;
    public final String cause;
    /** Start of the event, wall-clock ms (see {@link GcMonitor} for why not GcInfo's own clock). */
    public final long startWallMs;
    public final long durationMs;
    public final String kind;

    public GcEvent(String bean, long id, String action, String cause, long startWallMs, long durationMs) {
        this.bean = bean;
        this.id = id;
        this.action = action;
        this.cause = cause;
        this.startWallMs = startWallMs;
        this.durationMs = durationMs;
        this.kind = GcKind.of(bean);
    }
}
