package allocorpool;

import allocorpool.run.Run;
import allocorpool.run.RunConfig;
import allocorpool.run.TickSourceFactory;

/**
 * The Java engine's entry point: parse the command line, run, exit with 0 (ok), 1 (the
 * run failed: its summary says why) or 2 (bad command line).
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        if (Options.wantsHelp(args)) {
            System.out.print(Options.usage());
            System.exit(0);
        }
        RunConfig config;
        try {
            config = Options.parse(args);
        } catch (Options.UsageException e) {
            System.err.println("alloc-or-pool: " + e.getMessage());
            System.err.println("run with --help for the options");
            System.exit(2);
            return;
        }
        System.exit(Run.execute(config, TickSourceFactory.NATIVE, System.err));
    }
}
