// LatencyMeter: a period's percentiles, only the ticks due in the window in the summary,
// nothing sampled is no figure, and values out of range are clamped. LatencyRecorder: a consumer
// thread's samples reach the run's meter, each once, however its recording and the watcher's
// draining interleave.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <thread>

#include "latency_meter.hpp"

namespace cpp_engine {
namespace {

void expect_near_percent(std::int64_t expected, std::int64_t actual) {
    EXPECT_NEAR(static_cast<double>(actual), static_cast<double>(expected), expected / 100.0 + 1) << expected;
}

TEST(LatencyMeter, APeriodGivesItsPercentilesAndOnlyTicksDueInTheWindowReachTheSummary) {
    LatencyMeter meter;
    for (std::int64_t us = 1; us <= 100'000; ++us) {
        meter.record(us * 1000, false);  // 1 us .. 100 ms, evenly
    }
    const auto warmup = meter.end_period();
    ASSERT_TRUE(warmup);
    expect_near_percent(50'000'000, warmup->p50_ns);
    expect_near_percent(99'000'000, warmup->p99_ns);
    expect_near_percent(99'900'000, warmup->p999_ns);
    expect_near_percent(100'000'000, warmup->max_ns);

    meter.record(30'000'000, false);  // taken in the window's time, due before it
    meter.record(2'000, true);
    meter.record(4'000, true);
    const auto measured = meter.end_period();
    ASSERT_TRUE(measured);
    expect_near_percent(30'000'000, measured->max_ns);

    const LatencySummary window = meter.window();
    EXPECT_EQ(window.samples, 2U) << "ticks due before the window are not in it";
    ASSERT_TRUE(window.percentiles);
    expect_near_percent(4'000, window.percentiles->max_ns);
    EXPECT_EQ(window.sample_every, latency_sample_every);
}

TEST(LatencyMeter, AnEmptyPeriodHasNoFigureAndValuesOutOfRangeAreClamped) {
    LatencyMeter meter;
    EXPECT_FALSE(meter.end_period());
    EXPECT_FALSE(meter.window().percentiles);
    meter.record(-5, true);  // a clock read a hair before the due time: on time
    meter.record(std::numeric_limits<std::int64_t>::max(), true);
    const auto clamped = meter.end_period();
    ASSERT_TRUE(clamped);
    EXPECT_EQ(clamped->p50_ns, 0);
    EXPECT_GE(clamped->max_ns, 3'600'000'000'000);
}

TEST(LatencyRecorder, AConsumersSamplesReachTheMeterOnceEach) {
    LatencyMeter meter;
    LatencyRecorder recorder;
    recorder.record(30'000'000, false);
    recorder.record(2'000, true);
    recorder.record(4'000, true);
    recorder.drain_into(meter);
    recorder.drain_into(meter);  // nothing new: nothing added
    const auto period = meter.end_period();
    ASSERT_TRUE(period);
    expect_near_percent(30'000'000, period->max_ns);
    EXPECT_EQ(meter.window().samples, 2U);
    expect_near_percent(4'000, meter.window().percentiles->max_ns);
}

TEST(LatencyRecorder, SamplesRecordedWhileTheWatcherDrainsAreAllCounted) {
    constexpr std::uint64_t samples = 200'000;
    LatencyMeter meter;
    LatencyRecorder recorder;
    std::atomic<bool> done{false};
    std::thread consumer([&] {
        for (std::uint64_t i = 0; i < samples; ++i) {
            recorder.record(static_cast<std::int64_t>(1'000 + i % 1'000), true);
        }
        done.store(true);
    });
    while (!done.load()) {
        recorder.drain_into(meter);
    }
    consumer.join();
    recorder.drain_into(meter);
    EXPECT_EQ(meter.window().samples, samples);
}

}  // namespace
}  // namespace cpp_engine
