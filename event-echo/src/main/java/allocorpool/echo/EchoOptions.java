package allocorpool.echo;

import java.nio.file.Path;
import java.nio.file.Paths;

/** The echo run's command line. */
final class EchoOptions {
    static final String USAGE = String.join("\n",
            "usage: java -jar event-echo.jar [options]",
            "  --transport chronicle|nio  Chronicle Wire channels or plain NIO (default chronicle)",
            "  --mode reuse|copy          send back the event read, or a new copy of it (default reuse)",
            "  --clients N                client connections, each on its own thread, 1 to 64 (default 1)",
            "  --window N                 events in flight per client, 1 to 65536 (default 256)",
            "  --buffered on|off          chronicle: a writer thread per channel batches writes (default on)",
            "  --duration-s S             measured seconds, after the warm-up (default 10)",
            "  --warmup-s S               seconds before measuring, counted from the first event back (default 2)",
            "  --out FILE                 JSON Lines records (event-echo/README.md); default: standard output",
            "  --help                     this text");

    Transport transport = Transport.CHRONICLE;
    EchoMode mode = EchoMode.REUSE;
    int clients = 1;
    int window = 256;
    boolean buffered = true;
    double durationS = 10;
    double warmupS = 2;
    Path out;
    boolean help;

    static EchoOptions parse(String... args) throws UsageException {
        EchoOptions o = new EchoOptions();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--help":
                case "-h":
                    o.help = true;
                    continue;
                case "--transport":
                    o.transport = Args.choice(option, Args.value(args, i++), Transport.class);
                    break;
                case "--mode":
                    o.mode = Args.choice(option, Args.value(args, i++), EchoMode.class);
                    break;
                case "--clients":
                    o.clients = Args.integer(option, Args.value(args, i++), 1, 64);
                    break;
                case "--window":
                    o.window = Args.integer(option, Args.value(args, i++), 1, 65536);
                    break;
                case "--buffered":
                    o.buffered = Args.onOff(option, Args.value(args, i++));
                    break;
                case "--duration-s":
                    o.durationS = Args.seconds(option, Args.value(args, i++), 0.1);
                    break;
                case "--warmup-s":
                    o.warmupS = Args.seconds(option, Args.value(args, i++), 0);
                    break;
                case "--out":
                    o.out = Paths.get(Args.value(args, i++));
                    break;
                default:
                    throw new UsageException("unknown option " + option + "; valid: --transport, --mode, --clients, "
                            + "--window, --buffered, --duration-s, --warmup-s, --out, --help");
            }
        }
        return o;
    }
}
