// Real-time mode: exact loss accounting with a consumer that stalls longer than the
// tick queue can hold (100 ms of ticks), so drops certainly happen: the gaps the consumer
// sees plus the drops after its last tick equal the producer's own drop count, and every
// emitted tick is received, dropped or undelivered.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "case_params.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "runner.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

class CountingObserver final : public RunObserver {
public:
    void on_period(const PeriodStats& period) override {
        ++periods;
        lost_total = period.lost_total;
    }
    int periods = 0;
    std::uint64_t lost_total = 0;
};

// The model, with one 300 ms stall of the consumer once `stall_after` has elapsed.
class StallingModel {
public:
    StallingModel(std::chrono::milliseconds stall_after)
        : model_(CaseParams::of("A", 0.01), 1), stall_at_(Clock::now() + stall_after) {}

    void step() {
        model_.step();
        if (!stalled_ && Clock::now() >= stall_at_) {
            stalled_ = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
    }

    const Model<flat_design::Packet, PoolStrategy>& model() const { return model_; }

private:
    Model<flat_design::Packet, PoolStrategy> model_;
    Clock::time_point stall_at_;
    bool stalled_ = false;
};

void expect_exact_accounting(std::chrono::milliseconds stall_after, double duration_s) {
    CountingObserver observer;
    RunTimeline timeline(duration_s, 0.2, observer);
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

TEST(Realtime, KeepsUpAtAnEasyRate) {
    CountingObserver observer;
    RunTimeline timeline(1.0, 0.0, observer);
    Model<flat_design::Packet, PoolStrategy> model(CaseParams::of("A", 0.01), 1);
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{10'000, -1, -1}, timeline);
    EXPECT_TRUE(ticks.balanced()) << ticks.describe();
    EXPECT_NEAR(static_cast<double>(ticks.emitted), 100'000.0, 10'000.0);  // 1 s of 10 us ticks
    EXPECT_EQ(ticks.undelivered, 0U);
}

}  // namespace
}  // namespace cpp_engine
