package allocorpool.echo;

/**
 * What client {@code c} sends as its event number {@code n}: every field but the send time
 * follows from (c, n), so the client can check each echoed event field by field, in order.
 */
public final class Events {
    /** "EURUSD" and "EBS" packed as the seed's event packs them: a few characters in a number. */
    static final long SYMBOL = 0x4555_5255_5344L;
    static final int ECN = 0x454253;

    private Events() {}

    public static TopOfBook fill(TopOfBook event, int client, long n, long sendingTimeNs) {
        return event.sendingTimeNs(sendingTimeNs).symbol(SYMBOL).ecn(ECN)
                .bidPrice(1.0 + (n % 10_000) * 1e-4).askPrice(1.0004 + (n % 10_000) * 1e-4)
                .bidQuantity((int) n).askQuantity(client);
    }

    /** Whether an echoed event is client c's event n as sent (its send time is not checked). */
    public static boolean isIntact(TopOfBook event, int client, long n) {
        return event.symbol() == SYMBOL && event.ecn() == ECN
                && event.bidPrice() == 1.0 + (n % 10_000) * 1e-4 && event.askPrice() == 1.0004 + (n % 10_000) * 1e-4
                && event.bidQuantity() == (int) n && event.askQuantity() == client;
    }
}
