// RunTimeline on times the test gives it: the warm-up's last period ends, and the window opens,
// at the first check at or after the warm-up's end; a period closes at the first check a
// second or more after the last; the run ends at the first check at or after its duration,
// and the totals are the counters at those checks.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "runner.hpp"

namespace cpp_engine {
namespace {

using std::chrono::milliseconds;

class RecordingObserver final : public RunObserver {
public:
    void on_period(const PeriodStats& period) override { periods.push_back(period); }
    std::vector<PeriodStats> periods;
};

Occupancy no_occupancy() { return {}; }

// A timed phase that starts 1 s after the header (the fill phase's time), checked every 300 ms
// with 1,000 packets and 10 ticks lost between checks, 3 of them due in the window once open.
TEST(RunTimeline, PeriodsAndTheWindowStartAndEndAtChecks) {
    RecordingObserver observer;
    const Clock::time_point origin = Clock::now();
    RunTimeline timeline(2.5, 0.5, observer, origin);
    const Clock::time_point start = origin + std::chrono::seconds(1);
    timeline.start(start, no_occupancy);
    std::uint64_t packets = 0;
    std::uint64_t lost = 0;
    std::uint64_t window_lost = 0;
    std::vector<int> ends_at;
    for (int check = 1; check <= 20; ++check) {
        packets += 1'000;
        lost += 10;
        window_lost += check > 2 ? 3 : 0;
        if (timeline.check(start + milliseconds(300 * check), packets, lost, window_lost)) {
            ends_at.push_back(check);
            break;
        }
    }
    ASSERT_EQ(ends_at, std::vector<int>{9}) << "2.7 s: the first check at or after 2.5 s";
    timeline.set_final_counts(9'500, 95, 25);  // the drain after the last check

    // The warm-up's period ends at 0.6 s; the next at 1.8 s, the first check a second later;
    // the last at the end.
    ASSERT_EQ(observer.periods.size(), 3U);
    const std::vector<double> t_s{1.6, 2.8, 3.7};
    const std::vector<double> period_s{0.6, 1.2, 0.9};
    const std::vector<std::uint64_t> period_packets{2'000, 4'000, 3'000};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_NEAR(observer.periods[i].t_s, t_s[i], 1e-9) << i;
        EXPECT_NEAR(observer.periods[i].period_s, period_s[i], 1e-9) << i;
        EXPECT_EQ(observer.periods[i].packets, period_packets[i]) << i;
        EXPECT_EQ(observer.periods[i].lost, period_packets[i] / 100) << i;
        EXPECT_EQ(observer.periods[i].warmup, i == 0) << i;
    }

    const RunTotals totals = timeline.totals();
    EXPECT_NEAR(totals.t_s, 3.7, 1e-9);
    EXPECT_NEAR(*totals.timed_start_s, 1.0, 1e-9);
    EXPECT_NEAR(*totals.window_start_s, 1.6, 1e-9);
    EXPECT_NEAR(totals.measured_s, 2.1, 1e-9);
    EXPECT_EQ(totals.measured_packets, 7'000U) << "from the check at 0.6 s to the one at 2.7 s";
    EXPECT_EQ(totals.packets, 9'500U) << "the final counts";
    EXPECT_EQ(totals.lost, 95U);
    EXPECT_EQ(totals.lost_measured, 25U);
}

// Without a warm-up the window is the timed phase; a stop ends the run at the next check.
TEST(RunTimeline, NoWarmUpAndAStopRequest) {
    RecordingObserver observer;
    const Clock::time_point origin = Clock::now();
    RunTimeline timeline(60, 0, observer, origin);
    timeline.start(origin, no_occupancy);
    EXPECT_FALSE(timeline.check(origin + milliseconds(1'500), 100, 0, 0));
    ASSERT_EQ(observer.periods.size(), 1U);
    EXPECT_FALSE(observer.periods[0].warmup);
    EXPECT_NEAR(observer.periods[0].t_s, 1.5, 1e-9);
    request_stop(15);
    const bool done = timeline.check(origin + milliseconds(1'600), 150, 0, 0);
    request_stop(0);
    EXPECT_TRUE(done);
    const RunTotals totals = timeline.totals();
    EXPECT_EQ(totals.stop_signal, 15);
    EXPECT_NEAR(*totals.window_start_s, 0.0, 1e-9);
    EXPECT_EQ(totals.measured_packets, 150U);
    EXPECT_NEAR(totals.measured_s, 1.6, 1e-9);
}

}  // namespace
}  // namespace cpp_engine
