// Real-time mode: exact loss accounting. A consumer that stalls longer than the tick
// queue can hold (100 ms of ticks) certainly loses ticks: the gaps it sees plus the drops
// after its last tick equal the producer's own drop count, and every emitted tick is
// received, dropped or undelivered. A consumer that starts falling behind in the last
// 100 ms finds some of the gaps only while draining the queue after the end: they are
// ticks the measured window lost, and lost_measured counts them. The window is the ticks due
// in it: a stall that straddles its start loses for it, and delays in it, only those.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "case_params.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "runner.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

using Pooled = Model<flat_design::Packet, PoolStrategy>;

class CountingObserver final : public RunObserver {
public:
    void on_period(const PeriodStats& period) override {
        ++periods;
        lost_total = period.lost_total;
        if (period.warmup) {
            lost_at_window_open = period.lost_total;
        }
        if (period.latency) {
            latency_max_ns = std::max(latency_max_ns, period.latency->max_ns);
        }
    }
    int periods = 0;
    std::int64_t latency_max_ns = 0;  // of every period
    std::uint64_t lost_total = 0;  // as of the last period, emitted at the run's last check
    std::uint64_t lost_at_window_open = 0;
};

// The model, with one stall of the consumer (300 ms unless told) once `stall_after` has elapsed.
class StallingModel {
public:
    explicit StallingModel(std::chrono::milliseconds stall_after,
                           std::chrono::milliseconds stall = std::chrono::milliseconds(300))
        : model_(CaseParams::of("A", 0.01), 1), stall_at_(Clock::now() + stall_after), stall_(stall) {}

    void step() {
        model_.step();
        if (!stalled_ && Clock::now() >= stall_at_) {
            stalled_ = true;
            std::this_thread::sleep_for(stall_);
        }
    }

    Occupancy occupancy() const { return model_.occupancy(); }
    const Pooled& model() const { return model_; }

private:
    Pooled model_;
    Clock::time_point stall_at_;
    std::chrono::milliseconds stall_;
    bool stalled_ = false;
};

void expect_exact_accounting(std::chrono::milliseconds stall_after, double duration_s) {
    CountingObserver observer;
    RunTimeline timeline(duration_s, 0.2, observer, Clock::now());
    StallingModel model(stall_after);
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{1000, -1, -1}, timeline);
    const RunTotals totals = timeline.totals();

    EXPECT_EQ(ticks.queue_size, 100'000U);  // 100 ms of 1 us ticks
    EXPECT_GT(ticks.dropped, 0U) << ticks.describe();
    EXPECT_EQ(ticks.out_of_order, 0U);
    EXPECT_GE(ticks.trailing_dropped, 0);
    EXPECT_EQ(ticks.gaps + static_cast<std::uint64_t>(ticks.trailing_dropped), ticks.dropped) << ticks.describe();
    EXPECT_EQ(ticks.received + ticks.dropped + ticks.undelivered, ticks.emitted) << ticks.describe();
    EXPECT_EQ(ticks.written, ticks.emitted - ticks.dropped);
    EXPECT_TRUE(ticks.balanced());
    // One packet per received tick; the timeline's loss is the consumer's gap count.
    EXPECT_EQ(totals.packets, ticks.received);
    EXPECT_EQ(totals.lost, ticks.gaps);
    EXPECT_GE(observer.periods, 1);
    EXPECT_EQ(model.model().conservation_error(), std::nullopt);
}

TEST(Realtime, StalledConsumerLosesTicksAndAccountingIsExact) {
    expect_exact_accounting(std::chrono::milliseconds(400), 1.5);
}

TEST(Realtime, StallAtTheEndIsAccountedAsTrailingOrGaps) {
    // The stall spans the end of the run: the drops may come after the last tick received.
    expect_exact_accounting(std::chrono::milliseconds(1000), 1.1);
}

// The model, three times slower than a 1 us clock from 100 ms before the end of a run of
// `duration` on (its first packet starts the count).
class FallingBehindModel {
public:
    explicit FallingBehindModel(std::chrono::duration<double> duration)
        : model_(CaseParams::of("A", 0.01), 1),
          slow_after_(std::chrono::duration_cast<Clock::duration>(duration - std::chrono::milliseconds(100))) {}

    void step() {
        const Clock::time_point now = Clock::now();
        if (!first_step_) {
            first_step_ = now;
        }
        model_.step();
        if (now - *first_step_ >= slow_after_) {
            while (Clock::now() - now < std::chrono::microseconds(3)) {
            }
        }
    }

    Occupancy occupancy() const { return model_.occupancy(); }

private:
    Pooled model_;
    Clock::duration slow_after_;
    std::optional<Clock::time_point> first_step_;
};

TEST(Realtime, FallingBehindInTheLast100MsCountsTheGapsFoundDraining) {
    // Arrays of 2,000 slots (2 ms of 1 us ticks): once slow, every batch the consumer
    // takes starts after a gap, including the batch it drains after the end.
    constexpr double duration_s = 1.0;
    CountingObserver observer;
    RunTimeline timeline(duration_s, 0.2, observer, Clock::now());
    FallingBehindModel model{std::chrono::duration<double>(duration_s)};
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{1000, -1, -1, 2'000}, timeline);
    const RunTotals totals = timeline.totals();

    ASSERT_TRUE(ticks.balanced()) << ticks.describe();
    const std::uint64_t found_draining = totals.lost - observer.lost_total;
    ASSERT_GT(found_draining, 0U) << "the consumer found no gap while draining: " << ticks.describe();
    EXPECT_EQ(totals.lost_measured, totals.lost - observer.lost_at_window_open);
    EXPECT_GT(totals.lost_measured, observer.lost_total - observer.lost_at_window_open);
}

// A 50 ms stall that the 100 ms queue bridges: nothing is lost, and the metered latency shows
// the stall (the packets queued behind it were late by up to its length), while the median
// stays that of a consumer that keeps up.
TEST(Realtime, TheMeteredLatencyShowsAStallThatLosesNothing) {
    CountingObserver observer;
    RunTimeline timeline(1.5, 0.2, observer, Clock::now());
    StallingModel model(std::chrono::milliseconds(700), std::chrono::milliseconds(50));
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{1000, -1, -1}, timeline);
    const RunTotals totals = timeline.totals();
    ASSERT_TRUE(ticks.balanced()) << ticks.describe();
    EXPECT_EQ(ticks.dropped, 0U) << ticks.describe();
    ASSERT_TRUE(totals.latency && totals.latency->percentiles);
    const LatencyPercentiles& late = *totals.latency->percentiles;
    EXPECT_GE(late.max_ns, 45'000'000) << "the stall's 50 ms";
    EXPECT_LT(late.max_ns, 1'000'000'000);
    EXPECT_LT(late.p50_ns, late.max_ns / 10) << "most packets are not behind the stall";
    EXPECT_EQ(totals.latency->sample_every, 64U);
    EXPECT_NEAR(static_cast<double>(totals.latency->samples), totals.measured_packets / 64.0,
                2.0 * 64 + totals.measured_packets / 100.0);
}

// A 60 ms stall from 50 ms before the window's start: the queue bridges it, the periods show
// it, and the window's latency is that of its own ticks, late by at most the ~10 ms of the
// stall inside it.
TEST(Realtime, TheWindowsLatencyIsThatOfTheTicksDueInIt) {
    CountingObserver observer;
    RunTimeline timeline(1.0, 0.5, observer, Clock::now());
    StallingModel model(std::chrono::milliseconds(450), std::chrono::milliseconds(60));
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{1000, -1, -1}, timeline);
    const RunTotals totals = timeline.totals();
    ASSERT_TRUE(ticks.balanced()) << ticks.describe();
    EXPECT_EQ(ticks.dropped, 0U) << ticks.describe();
    EXPECT_GE(observer.latency_max_ns, 55'000'000) << "a period shows the 60 ms stall";
    ASSERT_TRUE(totals.latency && totals.latency->percentiles);
    EXPECT_LT(totals.latency->percentiles->max_ns, 40'000'000);
}

// A 200 ms stall from 150 ms before the window's start, behind arrays of 10 ms: the producer
// drops most of its ticks and the consumer finds the gaps after the start, but only those due
// in the window (up to 50 ms of ticks: the stall counts from the model's making, a little
// before the timed phase) are its loss.
TEST(Realtime, TheWindowLosesOnlyTheTicksDueInIt) {
    CountingObserver observer;
    RunTimeline timeline(1.0, 0.5, observer, Clock::now());
    StallingModel model(std::chrono::milliseconds(350), std::chrono::milliseconds(200));
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{1000, -1, -1, 10'000}, timeline);
    const RunTotals totals = timeline.totals();
    ASSERT_TRUE(ticks.balanced()) << ticks.describe();
    EXPECT_GT(ticks.dropped, 150'000U) << ticks.describe();
    EXPECT_GT(totals.lost - observer.lost_at_window_open, 150'000U) << "the gaps are found in the window's time";
    EXPECT_GT(totals.lost_measured, 5'000U);
    EXPECT_LT(totals.lost_measured, 55'000U);
}

TEST(Realtime, KeepsUpAtAnEasyRate) {
    CountingObserver observer;
    RunTimeline timeline(1.0, 0.0, observer, Clock::now());
    Pooled model(CaseParams::of("A", 0.01), 1);
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{10'000, -1, -1}, timeline);
    EXPECT_TRUE(ticks.balanced()) << ticks.describe();
    EXPECT_NEAR(static_cast<double>(ticks.emitted), 100'000.0, 10'000.0);  // 1 s of 10 us ticks
    EXPECT_EQ(ticks.undelivered, 0U);
}

TEST(Realtime, UnbalancedAccountsAreDescribed) {
    TickAccounting ticks{100, 1'000, 990, 10, 0, 990, 7, 3, 0};
    EXPECT_TRUE(ticks.balanced()) << ticks.describe();
    ticks.gaps = 6;  // a gap the producer did not drop
    EXPECT_FALSE(ticks.balanced());
    EXPECT_NE(ticks.describe().find("gaps 6, trailing dropped 3"), std::string::npos) << ticks.describe();
    ticks.gaps = 7;
    ticks.out_of_order = 1;
    EXPECT_FALSE(ticks.balanced());
}

}  // namespace
}  // namespace cpp_engine
