package allocorpool.echo;

/** What the service does with each event before sending it back. */
public enum EchoMode {
    /** Sends back the object it read the event into, reused for every event: no allocation. */
    REUSE,
    /** Sends back a deep copy: one new 44-byte-field object per event. */
    COPY;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
