// LatencyMeter: a period's percentiles, only the periods inside the window in the summary,
// nothing sampled is no figure, and values out of range are clamped.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "latency_meter.hpp"

namespace cpp_engine {
namespace {

void expect_near_percent(std::int64_t expected, std::int64_t actual) {
    EXPECT_NEAR(static_cast<double>(actual), static_cast<double>(expected), expected / 100.0 + 1) << expected;
}

TEST(LatencyMeter, APeriodGivesItsPercentilesAndOnlyWindowPeriodsReachTheSummary) {
    LatencyMeter meter;
    for (std::int64_t us = 1; us <= 100'000; ++us) {
        meter.record(us * 1000);  // 1 us .. 100 ms, evenly
    }
    const auto warmup = meter.end_period(false);
    ASSERT_TRUE(warmup);
    expect_near_percent(50'000'000, warmup->p50_ns);
    expect_near_percent(99'000'000, warmup->p99_ns);
    expect_near_percent(99'900'000, warmup->p999_ns);
    expect_near_percent(100'000'000, warmup->max_ns);

    meter.record(2'000);
    meter.record(4'000);
    const auto measured = meter.end_period(true);
    ASSERT_TRUE(measured);
    expect_near_percent(4'000, measured->max_ns);

    const LatencySummary window = meter.window();
    EXPECT_EQ(window.samples, 2U) << "the warm-up period is not in the window";
    ASSERT_TRUE(window.percentiles);
    expect_near_percent(4'000, window.percentiles->max_ns);
    EXPECT_EQ(window.sample_every, latency_sample_every);
}

TEST(LatencyMeter, AnEmptyPeriodHasNoFigureAndValuesOutOfRangeAreClamped) {
    LatencyMeter meter;
    EXPECT_FALSE(meter.end_period(true));
    EXPECT_FALSE(meter.window().percentiles);
    meter.record(-5);  // a clock read a hair before the due time: on time
    meter.record(std::numeric_limits<std::int64_t>::max());
    const auto clamped = meter.end_period(true);
    ASSERT_TRUE(clamped);
    EXPECT_EQ(clamped->p50_ns, 0);
    EXPECT_GE(clamped->max_ns, 3'600'000'000'000);
}

}  // namespace
}  // namespace cpp_engine
