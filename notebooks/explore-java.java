// ---
// jupyter:
//   jupytext:
//     text_representation:
//       extension: .java
//       format_name: percent
//   kernelspec:
//     display_name: Java 17 (G1)
//     language: java
//     name: java17-g1
// ---

// %% [markdown]
// # Exploring the Java engine from Java
//
// This notebook runs in a JJava kernel: the cells are Java (JShell), executed inside the
// kernel's own JVM, with java-lib's jar on the classpath. The kernel decides the JDK and
// the collector: **Java 17 (G1)** or **Java 25 (generational ZGC)** (Kernel > Change
// Kernel). Nothing here writes records; the study's numbers come from the engine's own
// runs (the Python notebooks). This is for poking at the model: a packet, a batch of
// each strategy, the collector's beans and notifications as they happen, and a short
// flight recording.

// %% tags=["parameters"]
String caseName = "A";
double scale = 0.02;
int warmupPackets = 200_000;
int measuredPackets = 500_000;

// %% [markdown]
// ## Which JVM is this?

// %%
import java.lang.management.*;

System.out.println(System.getProperty("java.vm.name") + " " + Runtime.version());
System.out.println("options: " + ManagementFactory.getRuntimeMXBean().getInputArguments());
for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
    System.out.println("collector bean: " + bean.getName() + ", pools " + String.join(", ", bean.getMemoryPoolNames()));
}

// %% [markdown]
// ## A packet
// The packet source writes IP-like fields into a 1024-byte buffer; parsing reads them back
// into an `IpHeader` with two `Ipv4Address` objects, the temporaries the study's
// allocating strategies create per packet.

// %%
import allocorpool.model.*;
import allocorpool.strategy.*;
import allocorpool.measure.*;

Packet packet = Packet.onHeap();
PacketSource.create("counter", 42).fill(packet);  // the published code's draws; "random" for independent ones
var buffer = packet.buffer();
System.out.println("protocol word 0x" + Integer.toHexString(buffer.getInt()));
IpHeader header = new IpHeader(buffer);
System.out.println(String.format("%d:%d -> %d:%d, transport protocol %d, length %d",
        header.source.address, header.sourcePort, header.destination.address, header.destinationPort,
        header.protocol, buffer.getInt()));

// %% [markdown]
// ## GC notifications, live
// A listener on every collector bean prints each collection as the JVM reports it (every
// concurrent cycle, and every pause of a millisecond or more), while the cells below run.
// G1 reports its pauses, ZGC its cycles and, on separate beans, its short pauses.

// %%
import com.sun.management.GarbageCollectionNotificationInfo;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

NotificationListener printGc = (notification, handback) -> {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) return;
    var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    var gc = info.getGcInfo();
    // ZGC's pauses take well under a millisecond, and there are many: those stay quiet.
    if (GcKind.of(info.getGcName()).equals(GcKind.PAUSE) && gc.getDuration() < 1) return;
    System.out.println(String.format("  [gc] %s #%d: %s (%s), %d ms, %s", info.getGcName(), gc.getId(),
            info.getGcAction(), info.getGcCause(), gc.getDuration(), GcKind.of(info.getGcName())));
};
for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
    ((NotificationEmitter) bean).addNotificationListener(printGc, null, null);
}
System.gc();
Thread.sleep(200);  // notifications arrive shortly after the collection

// %% [markdown]
// ## A small batch of each strategy
// The engine's own loop (`PacketLoop.step`: acquire, fill, process) for every strategy at
// the case's shape scaled down, timed after a warm-up, with the bytes this thread
// allocated (`AllocationMeter`) and the collections in the meantime (`GcMonitor`, the
// engine's listener). Rough numbers from a small run inside a notebook's JVM: the study's
// come from the engine's own runs.

// %%
String batch(String strategy) throws InterruptedException {
    CaseParams params = CaseParams.of(caseName, scale);
    PacketLoop loop = new PacketLoop(Strategies.create(strategy, params), PacketSource.create("counter", 1), params);
    for (int i = 0; i < warmupPackets; i++) loop.step();
    AllocationMeter meter = AllocationMeter.forCurrentThread();
    try (GcMonitor gcs = new GcMonitor()) {
        long bytesBefore = meter.bytes();
        long start = System.nanoTime();
        for (int i = 0; i < measuredPackets; i++) loop.step();
        long elapsed = System.nanoTime() - start;
        long bytes = meter.bytes() - bytesBefore;
        List<GcEvent> events = gcs.drainSettled(1000);
        long pauses = events.stream().filter(e -> e.kind.equals(GcKind.PAUSE)).count();
        long pauseMs = events.stream().filter(e -> e.kind.equals(GcKind.PAUSE)).mapToLong(e -> e.durationMs).sum();
        return String.format("%-12s %7.1f ns/packet %8.1f bytes/packet %4d GC pauses (%d ms)",
                strategy, (double) elapsed / measuredPackets, (double) bytes / measuredPackets, pauses, pauseMs);
    }
}

for (String strategy : Strategies.NAMES) batch(strategy);  // a first pass, for the JIT compiler
for (String strategy : Strategies.NAMES) {
    System.out.println(batch(strategy));
}

// %% [markdown]
// ## A flight recording
// JDK Flight Recorder records the collector's own view of a batch of the allocating
// strategy: each collection with its cause, the sum of its pauses and its longest pause.

// %%
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import java.nio.file.*;

Path recordingFile = Files.createTempFile("explore-java", ".jfr");
try (Recording recording = new Recording()) {
    recording.enable("jdk.GarbageCollection");
    recording.enable("jdk.GCHeapSummary");
    recording.start();
    System.out.println(batch("alloc"));
    recording.stop();
    recording.dump(recordingFile);
}
var events = RecordingFile.readAllEvents(recordingFile);
Files.delete(recordingFile);
var collections = events.stream().filter(e -> e.getEventType().getName().equals("jdk.GarbageCollection")).toList();
System.out.println(collections.size() + " collections recorded, " + events.size() + " events in all");
for (var gc : collections) {
    System.out.println(String.format("  %s #%d (%s): pauses %.2f ms in all, longest %.2f ms",
            gc.getString("name"), gc.getInt("gcId"), gc.getString("cause"),
            gc.getDuration("sumOfPauses").toNanos() / 1e6, gc.getDuration("longestPause").toNanos() / 1e6));
}

// %%
for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
    ((NotificationEmitter) bean).removeNotificationListener(printGc);
    System.out.println(bean.getName() + ": " + bean.getCollectionCount() + " collections, " + bean.getCollectionTime() + " ms");
}
