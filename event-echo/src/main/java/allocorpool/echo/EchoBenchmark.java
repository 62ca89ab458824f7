package allocorpool.echo;

import java.io.PrintStream;

/**
 * The event echo (seed 004): clients send 44-byte TopOfBook events over loopback TCP to a
 * service that sends each one back, as it read it ("reuse") or as a new copy ("copy"), so
 * that the difference between the two modes is one allocation per event.
 *
 * <p>Exit status: 0 when the run is sound, 1 when it is not (the summary says why), 2 for
 * bad options (the message names the valid values).
 */
public final class EchoBenchmark {
    private EchoBenchmark() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream stdout, PrintStream stderr) {
        EchoOptions options;
        try {
            options = EchoOptions.parse(args);
        } catch (UsageException e) {
            stderr.println("error: " + e.getMessage());
            stderr.println(EchoOptions.USAGE);
            return 2;
        }
        if (options.help) {
            stdout.println(EchoOptions.USAGE);
            return 0;
        }
        try (RecordWriter out = options.out == null ? RecordWriter.to(stdout) : RecordWriter.to(options.out)) {
            return new EchoRun(options, out).run() ? 0 : 1;
        } catch (Exception e) {
            e.printStackTrace(stderr);
            return 1;
        }
    }
}
