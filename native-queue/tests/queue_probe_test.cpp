// The queue benchmark's verdict on a probe: loss-free means balanced, nothing dropped or
// undelivered, and kept up (received by the end >= ticks due - one array's capacity).
#include <gtest/gtest.h>

#include <cstdint>

#include "../bench/queue_probe.hpp"

namespace {

using queue_bench::CapacityRule;
using queue_bench::Probe;

// A probe at 20 ns for 10 ms (500,000 ticks due) over arrays of 100,000 slots, whose
// consumer had read `taken_in_time` ticks when the time was up and, by the end of the
// drain, every tick emitted but the `dropped` first ones after tick 5.
Probe probe(std::uint64_t emitted, std::uint64_t taken_in_time, std::uint64_t dropped = 0) {
    Probe probe;
    probe.rule = CapacityRule::fixed;
    probe.interval_ns = 20;
    probe.queue_size = 100'000;
    probe.duration_s = 0.01;
    probe.taken_in_time = taken_in_time;
    probe.stats.emitted = emitted;
    probe.stats.written = emitted - dropped;
    probe.stats.dropped = dropped;
    for (std::uint64_t seq = 0; seq < emitted; ++seq) {
        if (seq <= 5 || seq > 5 + dropped) {
            probe.tracker.accept(static_cast<std::uint32_t>(seq));
        }
    }
    return probe;
}

TEST(QueueProbe, TicksDueFromDurationAndInterval) {
    EXPECT_EQ(probe(0, 0).ticks_due(), 500'000U);
    Probe flat_out = probe(0, 0);
    flat_out.interval_ns = 0;
    EXPECT_FALSE(flat_out.ticks_due().has_value());
    EXPECT_TRUE(flat_out.kept_up());
}

TEST(QueueProbe, KeptUpWithinOneArrayIsOk) {
    const Probe good = probe(500'000, 450'000);
    EXPECT_TRUE(good.balanced());
    EXPECT_TRUE(good.kept_up());
    EXPECT_TRUE(good.ok());
    EXPECT_TRUE(probe(500'000, 400'000).ok());  // exactly one array behind
}

TEST(QueueProbe, FallingBehindWithoutLossIsNotOk) {
    // Nothing dropped, but the consumer trailed the clock by more than one array
    // (the dual-array queue holds up to two without dropping).
    const Probe behind = probe(500'000, 399'999);
    EXPECT_TRUE(behind.balanced());
    EXPECT_EQ(behind.lost(), 0U);
    EXPECT_FALSE(behind.kept_up());
    EXPECT_FALSE(behind.ok());
}

TEST(QueueProbe, SlowProducerIsNotOk) {
    // A producer slower than the interval emits 25 % fewer ticks than were due: no loss,
    // but the interval was not tested.
    const Probe slow = probe(375'000, 375'000);
    EXPECT_EQ(slow.lost(), 0U);
    EXPECT_FALSE(slow.ok());
}

TEST(QueueProbe, AnyDropIsNotOk) {
    const Probe dropped = probe(500'000, 499'999, 1);
    EXPECT_TRUE(dropped.balanced());
    EXPECT_EQ(dropped.lost(), 1U);
    EXPECT_TRUE(dropped.kept_up());
    EXPECT_FALSE(dropped.ok());
}

}  // namespace
