package allocorpool.echo;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.HdrHistogram.Histogram;

/**
 * One run of the echo: a service and its clients in this JVM, talking over loopback TCP,
 * as in the seed. Writes a header, a periodic record a second (and one at the end of the
 * warm-up), a gc record per collection, and a summary of the measured seconds.
 *
 * <p>The warm-up starts when every client has had its first event back, not when the clients
 * start: a loaded machine can take seconds to carry the first event (class loading, the
 * channels' threads, the JIT), and a window timed from the clients' start would then hold none.
 *
 * <p>The measured window starts when the warm-up ends and ends before the clients stop: the
 * events received in it give the throughput, their round trips the percentiles; allocation,
 * GC and CPU figures are differences over the same window. After it, each client waits for
 * the events it still has in flight, so that sent, received and echoed counts must balance.
 */
final class EchoRun {
    static final double DRAIN_S = 10;
    /** How long the clients may wait for their first event back before the run fails. */
    static final double FIRST_EVENT_S = 30;

    /** Starts the service a run measures (the transport's, or a test's). */
    interface ServiceStarter {
        EchoService start() throws Exception;
    }

    private final EchoOptions options;
    private final RecordWriter out;
    private final ServiceStarter starter;

    EchoRun(EchoOptions options, RecordWriter out) {
        this(options, out, () -> options.transport.start(options.mode, options.buffered));
    }

    EchoRun(EchoOptions options, RecordWriter out, ServiceStarter starter) {
        this.options = options;
        this.out = out;
        this.starter = starter;
    }

    /** A window's starting figures. */
    private static final class Mark {
        long nanos;
        GcWatch.Totals gc;
        Map<Long, Long> allThreads;
        Map<Long, Long> tracked;
        long cpuNs;
    }

    /** The measured window's two ends and the round trips received in it. */
    private static final class Window {
        Mark start;
        Mark end;
        Histogram roundTrips;
    }

    /** What the window's marks need: the clients, the GC watch, the threads followed and the OS. */
    private static final class Probes {
        final List<EchoClient> clients;
        final GcWatch gc;
        final ThreadAllocations allocations = new ThreadAllocations();
        final long[] tracked;
        final com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        Probes(List<EchoClient> clients, GcWatch gc, long[] tracked) {
            this.clients = clients;
            this.gc = gc;
            this.tracked = tracked;
        }

        Mark mark() {
            Mark m = new Mark();
            m.nanos = System.nanoTime();
            m.gc = gc.totals();
            m.allThreads = allocations.snapshotAll();
            m.tracked = allocations.snapshot(tracked);
            m.cpuNs = os.getProcessCpuTime();
            return m;
        }
    }

    /** Runs; returns true when the run is sound (every event back intact, counts balanced). */
    boolean run() throws Exception {
        long originMs = System.currentTimeMillis();
        long originNs = System.nanoTime();
        writeHeader();
        Map<String, Object> summary = RecordWriter.record("summary");
        List<String> problems = new ArrayList<>();
        try (GcWatch gc = new GcWatch(originMs);
             EchoService service = starter.start()) {
            List<EchoClient> clients = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < options.clients; i++) {
                EchoClient client = new EchoClient(i, service.connect(), options.window);
                clients.add(client);
                Thread thread = new Thread(client, "echo-client-" + i);
                thread.setDaemon(true);
                threads.add(thread);
            }
            awaitServiceThreads(service, options.clients);
            Probes probes = new Probes(clients, gc, trackedThreads(service, threads));
            threads.forEach(Thread::start);
            long clientsStartNs = System.nanoTime();
            summary.put("setup_s", (clientsStartNs - originNs) / 1e9);
            awaitFirstEvents(clients);
            // The warm-up and the measured seconds count from here, once every client's events flow.
            long flowingNs = System.nanoTime();
            summary.put("first_event_s", (flowingNs - clientsStartNs) / 1e9);
            Window window = measure(probes, originNs, flowingNs);
            account(summary, problems, service, probes, threads, window);
        } catch (Exception e) {
            problems.add(e.toString());
        }
        summary.put("status", problems.isEmpty() ? "ok" : "error");
        summary.put("error", problems.isEmpty() ? null : String.join("; ", problems));
        summary.put("t_s", (System.nanoTime() - originNs) / 1e9);
        out.write(summary);
        return problems.isEmpty();
    }

    private void writeHeader() throws Exception {
        Map<String, Object> header = RunFacts.header("echo");
        header.put("transport", options.transport.label());
        header.put("mode", options.mode.label());
        header.put("clients", options.clients);
        header.put("window", options.window);
        header.put("buffered", options.transport == Transport.CHRONICLE ? options.buffered : null);
        header.put("chronicle_pauser", options.transport == Transport.CHRONICLE ? ChronicleEcho.yieldingPauser() : null);
        header.put("duration_s", options.durationS);
        header.put("warmup_s", options.warmupS);
        header.put("event_bytes", TopOfBook.LENGTH_BYTES);
        out.write(header);
    }

    /**
     * The warm-up and the measured seconds: a periodic record each second and at the warm-up's end, the
     * window's marks at its two ends; a client's failure ends the run.
     */
    private Window measure(Probes probes, long originNs, long flowingNs) throws Exception {
        List<EchoClient> clients = probes.clients;
        TreeSet<Double> ends = new TreeSet<>();
        double total = options.warmupS + options.durationS;
        for (double t = 1; t < total; t++) {
            ends.add(t);
        }
        ends.add(options.warmupS);
        ends.add(total);
        ends.remove(0.0);
        Window window = new Window();
        if (options.warmupS == 0) {
            window.start = probes.mark();
            histograms(clients);
        }
        double previous = (flowingNs - originNs) / 1e9;
        long previousReceived = 0;
        for (double t : ends) {
            sleepUntil(flowingNs + (long) (t * 1e9));
            if (t == options.warmupS && window.start == null) {
                window.start = probes.mark();
                histograms(clients);
            }
            if (t == total) {
                window.end = probes.mark();
                window.roundTrips = histograms(clients);
            }
            long received = received(clients);
            Map<String, Object> periodic = RecordWriter.record("periodic");
            double period = (System.nanoTime() - originNs) / 1e9 - previous;
            periodic.put("t_s", previous + period);
            periodic.put("period_s", period);
            periodic.put("events", received - previousReceived);
            periodic.put("events_total", received);
            periodic.put("events_per_s", (received - previousReceived) / period);
            periodic.put("warmup", t <= options.warmupS);
            out.write(periodic);
            probes.gc.drain().forEach(out::write);
            previous += period;
            previousReceived = received;
            for (EchoClient client : clients) {
                if (client.failure() != null) {
                    throw new IllegalStateException("a client failed: " + client.failure(), client.failure());
                }
            }
        }
        return window;
    }

    /**
     * Stops the clients, waits for the events in flight, and puts the window's figures and the counts in the
     * summary: a changed event, unbalanced counts or an empty window is a problem of the run.
     */
    private void account(Map<String, Object> summary, List<String> problems, EchoService service, Probes probes,
                         List<Thread> threads, Window window) throws Exception {
        long deadline = System.nanoTime() + (long) (DRAIN_S * 1e9);
        probes.clients.forEach(c -> c.stop(deadline));
        for (Thread thread : threads) {
            thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 1000));
        }
        long sent = 0, received = 0, corrupt = 0;
        for (EchoClient client : probes.clients) {
            sent += client.sent();
            received += client.received();
            corrupt += client.corrupt();
            if (client.failure() != null) {
                problems.add("a client failed: " + client.failure());
            }
        }
        long echoed = awaitEchoed(service, sent);
        probes.gc.drain().forEach(out::write);
        summarise(summary, window.start, window.end, window.roundTrips, probes.tracked, service.threadIds());
        summary.put("sent", sent);
        summary.put("received", received);
        summary.put("echoed", echoed);
        summary.put("corrupt", corrupt);
        if (corrupt > 0) {
            problems.add(corrupt + " event(s) came back changed or out of order");
        }
        if (received != sent || echoed != sent) {
            problems.add("counts do not balance: sent " + sent + ", echoed " + echoed + ", received " + received);
        }
        if (((Number) summary.get("events")).longValue() == 0) {
            problems.add("no event came back in the measured window");
        }
    }

    /** Waits for each connection's service thread to start, so its allocations can be followed. */
    private static void awaitServiceThreads(EchoService service, int connections) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (service.threadIds().length < connections) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the echo service started " + service.threadIds().length
                        + " connection thread(s) of " + connections);
            }
            Thread.sleep(1);
        }
    }

    /** Waits until every client has had an event back; a client's failure or the deadline fails the run. */
    private static void awaitFirstEvents(List<EchoClient> clients) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (FIRST_EVENT_S * 1e9);
        for (EchoClient client : clients) {
            while (client.received() == 0) {
                if (client.failure() != null) {
                    throw new IllegalStateException("a client failed: " + client.failure(), client.failure());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no event came back to a client within " + FIRST_EVENT_S
                            + " s of the clients' start");
                }
                Thread.sleep(1);
            }
        }
    }

    private static long[] trackedThreads(EchoService service, List<Thread> clients) {
        long[] serviceIds = service.threadIds();
        long[] ids = new long[serviceIds.length + clients.size()];
        System.arraycopy(serviceIds, 0, ids, 0, serviceIds.length);
        for (int i = 0; i < clients.size(); i++) {
            ids[serviceIds.length + i] = clients.get(i).getId();
        }
        return ids;
    }

    private static long received(List<EchoClient> clients) {
        long sum = 0;
        for (EchoClient client : clients) {
            sum += client.received();
        }
        return sum;
    }

    /** The clients' round trips since the last call, merged. */
    private static Histogram histograms(List<EchoClient> clients) {
        Histogram merged = new Histogram(EchoClient.HIGHEST_TRACKABLE_NS, 3);
        for (EchoClient client : clients) {
            merged.add(client.roundTripsSinceLastCall());
        }
        return merged;
    }

    private static long awaitEchoed(EchoService service, long sent) throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        long echoed = service.echoed();
        while (echoed != sent && System.nanoTime() < deadline) {
            Thread.sleep(1);
            echoed = service.echoed();
        }
        return echoed;
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        for (long left; (left = nanos - System.nanoTime()) > 0; ) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    private void summarise(Map<String, Object> s, Mark start, Mark end, Histogram roundTrips, long[] tracked,
                           long[] serviceThreads) {
        double seconds = (end.nanos - start.nanos) / 1e9;
        // Every event received is recorded once, in the interval histogram of its moment: the
        // histograms taken at the window's two ends count its events exactly (the clients'
        // published counters lag by up to a loop turn).
        long events = roundTrips.getTotalCount();
        double eventsPerS = events / seconds;
        s.put("transport", options.transport.label());
        s.put("mode", options.mode.label());
        s.put("clients", options.clients);
        s.put("measured_s", seconds);
        s.put("events", events);
        s.put("events_per_s", eventsPerS);
        // The seed counts each event twice (sent and received) and takes clients x 2 / that rate
        // as the average latency: the time one client spends per event.
        s.put("messages_per_s", 2 * eventsPerS);
        s.put("seed_latency_ns", events > 0 ? options.clients * 1e9 / eventsPerS : null);
        s.put("rtt_mean_ns", roundTrips.getTotalCount() > 0 ? roundTrips.getMean() : null);
        for (double[] p : new double[][] {{50, 50}, {90, 90}, {99, 99}, {99.9, 999}}) {
            s.put("rtt_p" + (int) p[1] + "_ns", roundTrips.getTotalCount() > 0 ? roundTrips.getValueAtPercentile(p[0]) : null);
        }
        s.put("rtt_max_ns", roundTrips.getTotalCount() > 0 ? roundTrips.getMaxValue() : null);
        GcWatch.Totals gc = end.gc.minus(start.gc);
        s.put("gc_pauses", gc.pauses);
        s.put("gc_pause_ms", gc.pauseMs);
        s.put("gc_cycles", gc.cycles);
        s.put("gc_cycle_ms", gc.cycleMs);
        s.put("gc_pauses_per_min", gc.pauses * 60 / seconds);
        s.put("gc_pause_ms_per_min", gc.pauseMs * 60 / seconds);
        s.put("gc_cycles_per_min", gc.cycles * 60 / seconds);
        s.put("gc_pause_pct", gc.pauseMs / 10.0 / seconds);
        long all = ThreadAllocations.between(start.allThreads, end.allThreads);
        long service = ThreadAllocations.between(start.tracked, end.tracked, serviceThreads);
        long trackedBytes = ThreadAllocations.between(start.tracked, end.tracked, tracked);
        s.put("alloc_bytes", all);
        s.put("alloc_bytes_per_s", all / seconds);
        s.put("alloc_bytes_per_event", events > 0 ? (double) all / events : null);
        s.put("service_alloc_bytes_per_event", events > 0 ? (double) service / events : null);
        s.put("client_alloc_bytes_per_event", events > 0 ? (double) (trackedBytes - service) / events : null);
        double cpuS = (end.cpuNs - start.cpuNs) / 1e9;
        s.put("process_cpu_s", cpuS);
        s.put("cpus_busy", cpuS / seconds);
    }
}
