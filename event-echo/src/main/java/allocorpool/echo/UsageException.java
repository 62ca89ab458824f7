package allocorpool.echo;

/** Bad command-line input: the message says what was wrong and what is valid (exit status 2). */
final class UsageException extends Exception {
    UsageException(String message) {
        super(message);
    }
}
