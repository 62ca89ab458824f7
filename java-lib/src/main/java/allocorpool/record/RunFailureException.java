package allocorpool.record;

/**
 * A failure whose reason the engine knows: its message for the reader, its {@link Failure} for the
 * summary's {@code failure} field. An IllegalStateException, as the engine's other failures are.
 */
public final class RunFailureException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final Failure failure;

    public RunFailureException(Failure failure, String message) {
        super(message);
        this.failure = failure;
    }

    public Failure failure() {
        return failure;
    }
}
