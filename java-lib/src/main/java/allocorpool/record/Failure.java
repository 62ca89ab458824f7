package allocorpool.record;

/**
 * Why a run failed, as its summary's {@code failure} field says it: a code the study matches, never the
 * error's text (engine-facts.json lists the codes and what each means; EngineFactsTest checks these against
 * it). The engine throws a {@link RunFailureException} where it knows the reason; {@link #of} reads any
 * throwable.
 */
public enum Failure {
    FILL_TIMEOUT("fill_timeout"),
    HEAP_FULL("heap_full"),
    OUT_OF_MEMORY("out_of_memory"),
    POOL_EXHAUSTED("pool_exhausted"),
    POOL_ACCOUNTING("pool_accounting"),
    TICK_IMBALANCE("tick_imbalance"),
    ENGINE_ERROR("engine_error");

    private final String code;

    Failure(String code) {
        this.code = code;
    }

    /** The code in the summary record. */
    public String code() {
        return code;
    }

    /** The failure a throwable stands for: the first RunFailureException or OutOfMemoryError in its causes. */
    public static Failure of(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RunFailureException) {
                return ((RunFailureException) t).failure();
            }
            if (t instanceof OutOfMemoryError) {
                return OUT_OF_MEMORY;
            }
        }
        return ENGINE_ERROR;
    }
}
