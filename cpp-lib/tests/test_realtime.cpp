// Real-time mode: exact loss accounting. A consumer that stalls longer than the tick
// queue can hold certainly loses ticks: the gaps it sees plus the drops after its last tick
// equal the producer's own drop count, and every emitted tick is received, dropped or
// undelivered. A consumer that starts falling behind before the end finds some of the gaps
// only while draining the queue after the end: they are ticks the measured window lost, and
// lost_measured counts them. The window is the ticks due in it: a stall that straddles its
// start loses for it, and delays in it, only those.
//
// The runs take their ticks from a ScriptedClock (scripted_ticks.hpp): every packet costs the
// consumer 250 ns of the clock's time, and a stall or a slow phase costs what the script says,
// so each figure below follows from the script alone, whatever else the machine runs. Ticks
// come every 1 us, tick k due at k us; a consumer that keeps up takes tick k as it falls due
// (it is idle until then) and finishes it 250 ns later, so it is packet k + 1, and the check
// it makes then is at k us + 250 ns. Packet n is sampled for latency when 64 divides n.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "case_params.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "runner.hpp"
#include "scripted_ticks.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

using Pooled = Model<flat_design::Packet, PoolStrategy>;

constexpr std::uint64_t us = 1'000;
constexpr std::uint64_t ms = 1'000'000;
constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();

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

// What the consumer's packets cost on the scripted clock.
struct Script {
    std::uint64_t packet_ns = 250;
    std::uint64_t stall_at_ns = never;  // the first packet begun at or after this time...
    std::uint64_t stall_ns = 0;         // ...costs this much more
    std::uint64_t slow_from_ns = never;  // the packets begun from this time on...
    std::uint64_t slow_packet_ns = 0;    // ...cost this much each
};

// The model, moving the scripted clock on by what each packet costs.
class ScriptedModel {
public:
    ScriptedModel(ScriptedClock& clock, const Script& script)
        : model_(CaseParams::of("A", 0.01), 1), clock_(clock), script_(script) {}

    void step() {
        const std::uint64_t begun = clock_.elapsed_ns();
        model_.step();
        std::uint64_t cost = begun >= script_.slow_from_ns ? script_.slow_packet_ns : script_.packet_ns;
        if (!stalled_ && begun >= script_.stall_at_ns) {
            stalled_ = true;
            cost += script_.stall_ns;
        }
        clock_.advance(cost);
    }

    Occupancy occupancy() const { return model_.occupancy(); }
    const Pooled& model() const { return model_; }

private:
    Pooled model_;
    ScriptedClock& clock_;
    Script script_;
    bool stalled_ = false;
};

struct ScriptedRun {
    TickAccounting ticks;
    RunTotals totals;
    CountingObserver observer;
    std::optional<std::string> conservation_error;
};

// A real-time run of `duration_s` (warm-up `warmup_s`) at 1 us ticks on the scripted clock.
ScriptedRun run_scripted(double duration_s, double warmup_s, const Script& script, std::uint32_t queue_size = 0,
                         std::uint64_t interval_ns = us) {
    ScriptedClock clock(interval_ns);
    ScriptedRun run;
    RunTimeline timeline(duration_s, warmup_s, run.observer, clock.origin());
    ScriptedModel model(clock, script);
    run.ticks = run_realtime(model, RealtimeConfig{interval_ns, -1, -1, queue_size}, timeline, clock.ticks());
    run.totals = timeline.totals();
    run.conservation_error = model.model().conservation_error();
    return run;
}

// A figure read from the latency histogram: HdrHistogram at two significant digits gives the
// highest value of the bucket that holds it.
void expect_histogram_value(std::int64_t exact_ns, std::int64_t reported_ns) {
    EXPECT_GE(reported_ns, exact_ns);
    EXPECT_LE(reported_ns, exact_ns + exact_ns / 100 + 1) << "exact " << exact_ns;
}

void expect_balanced(const ScriptedRun& run) {
    const TickAccounting& ticks = run.ticks;
    EXPECT_EQ(ticks.out_of_order, 0U);
    EXPECT_GE(ticks.trailing_dropped, 0);
    EXPECT_EQ(ticks.gaps + static_cast<std::uint64_t>(ticks.trailing_dropped), ticks.dropped) << ticks.describe();
    EXPECT_EQ(ticks.received + ticks.dropped + ticks.undelivered, ticks.emitted) << ticks.describe();
    EXPECT_EQ(ticks.written, ticks.emitted - ticks.dropped);
    EXPECT_TRUE(ticks.balanced());
    // One packet per received tick; the timeline's loss is the consumer's gap count.
    EXPECT_EQ(run.totals.packets, ticks.received);
    EXPECT_EQ(run.totals.lost, ticks.gaps);
    EXPECT_EQ(run.conservation_error, std::nullopt);
}

// A 300 ms stall from 400 ms, behind arrays of 100 ms (100,000 ticks). The stalled packet is
// tick 400,000; in its stall ticks 400,001 to 700,000 fall due: the first 100,000 fill the
// producer's array, the other 200,000 are dropped, and so is tick 700,001, due when the idle
// consumer next looks, before the full array is handed over. The consumer then finds the gap
// of 200,001 after tick 500,000, catches up, and the run ends at tick 1,500,000.
TEST(Realtime, StalledConsumerLosesTicksAndAccountingIsExact) {
    const ScriptedRun run = run_scripted(1.5, 0.2, {.stall_at_ns = 400 * ms, .stall_ns = 300 * ms});
    expect_balanced(run);
    EXPECT_EQ(run.ticks.queue_size, 100'000U);  // 100 ms of 1 us ticks
    EXPECT_EQ(run.ticks.emitted, 1'500'001U);
    EXPECT_EQ(run.ticks.dropped, 200'001U) << run.ticks.describe();
    EXPECT_EQ(run.ticks.gaps, 200'001U);
    EXPECT_EQ(run.ticks.trailing_dropped, 0);
    EXPECT_EQ(run.ticks.undelivered, 0U);
    EXPECT_EQ(run.totals.lost_measured, 200'001U) << "all due after the warm-up";
    EXPECT_EQ(run.observer.lost_at_window_open, 0U);
    EXPECT_EQ(run.observer.periods, 3) << "the warm-up's, one second after it, and the end's";
}

// The stall spans the end: from 1,000 ms for 300 ms in a run of 1.1 s. Of the 300,000 ticks due
// in it, 100,000 wait in the producer's array and are drained after the end; the 200,000 dropped
// after them come after the last tick received, so no gap shows them: they are trailing drops.
TEST(Realtime, StallAtTheEndIsAccountedAsTrailingDrops) {
    const ScriptedRun run = run_scripted(1.1, 0.2, {.stall_at_ns = 1'000 * ms, .stall_ns = 300 * ms});
    expect_balanced(run);
    EXPECT_EQ(run.ticks.emitted, 1'300'001U);
    EXPECT_EQ(run.ticks.received, 1'100'001U);
    EXPECT_EQ(run.ticks.dropped, 200'000U) << run.ticks.describe();
    EXPECT_EQ(run.ticks.gaps, 0U);
    EXPECT_EQ(run.ticks.trailing_dropped, 200'000);
    EXPECT_EQ(run.ticks.undelivered, 0U);
    EXPECT_EQ(run.totals.lost_measured, 0U);
}

// Three times slower than the clock (3 us a packet) for the last 100 ms, behind arrays of 2,000
// slots: once the batches fill the array, each batch of 2,000 takes 6 ms, in which the next
// 2,000 ticks are written and 4,000 dropped, and one more is dropped when the array is handed
// over; the consumer finds those 4,001 as the gap before the batch after. At the end the
// producer's last array still waits behind such a gap: the consumer finds it while draining,
// and the 4,000 dropped after that array are trailing.
TEST(Realtime, FallingBehindInTheLast100MsCountsTheGapsFoundDraining) {
    const ScriptedRun run =
            run_scripted(1.0, 0.2, {.slow_from_ns = 900 * ms, .slow_packet_ns = 3 * us}, /*queue_size=*/2'000);
    expect_balanced(run);
    const RunTotals& totals = run.totals;
    const CountingObserver& observer = run.observer;
    EXPECT_EQ(totals.lost - observer.lost_total, 4'001U) << "the gap found draining: " << run.ticks.describe();
    EXPECT_EQ(run.ticks.trailing_dropped, 4'000);
    EXPECT_EQ(observer.lost_at_window_open, 0U);
    EXPECT_EQ(totals.lost_measured, totals.lost) << "every gap is due in the window, those found draining too";
    EXPECT_GT(totals.lost_measured, observer.lost_total);
}

// A 50 ms stall from 700 ms that the 100 ms queue bridges: nothing is lost, and the metered
// latency shows the stall, while the median is that of a consumer that keeps up (a packet
// finished 250 ns after its tick fell due). The stalled packet is packet 700,001 (not sampled);
// the 50,001 ticks due by the time the consumer looks again are taken from 750,001 us on, the
// i-th (tick 700,000 + i) 250 ns apart, so it is 50,001,000 - 750 i ns late; the first sampled
// is packet 700,032 (i = 31). The window samples packets 200,001 to 1,500,001: 20,312 of them.
TEST(Realtime, TheMeteredLatencyShowsAStallThatLosesNothing) {
    const ScriptedRun run = run_scripted(1.5, 0.2, {.stall_at_ns = 700 * ms, .stall_ns = 50 * ms});
    expect_balanced(run);
    EXPECT_EQ(run.ticks.dropped, 0U) << run.ticks.describe();
    EXPECT_EQ(run.ticks.emitted, 1'500'001U);
    const RunTotals& totals = run.totals;
    EXPECT_EQ(totals.measured_packets, 1'300'000U) << "from the check after packet 200,001 to the end";
    EXPECT_NEAR(totals.measured_s, 1.3, 1e-9);
    ASSERT_TRUE(totals.latency && totals.latency->percentiles);
    const LatencyPercentiles& late = *totals.latency->percentiles;
    expect_histogram_value(50'001'000 - 750 * 31, late.max_ns);
    expect_histogram_value(250, late.p50_ns);
    EXPECT_EQ(totals.latency->sample_every, 64U);
    EXPECT_EQ(totals.latency->samples, 20'312U);
}

// A 60 ms stall from 450 ms, 50 ms before the window's start (0.5 s, tick 500,000): the queue
// bridges it, and tick 450,000 + i is taken 60,001,000 - 750 i ns late. A period shows the
// stall through its first sampled packet, 450,048 (i = 47); the window only through tick
// 500,031 (packet 500,032, i = 50,031), the first of its own ticks sampled.
TEST(Realtime, TheWindowsLatencyIsThatOfTheTicksDueInIt) {
    const ScriptedRun run = run_scripted(1.0, 0.5, {.stall_at_ns = 450 * ms, .stall_ns = 60 * ms});
    expect_balanced(run);
    EXPECT_EQ(run.ticks.dropped, 0U) << run.ticks.describe();
    expect_histogram_value(60'001'000 - 750 * 47, run.observer.latency_max_ns);
    ASSERT_TRUE(run.totals.latency && run.totals.latency->percentiles);
    expect_histogram_value(60'001'000 - 750 * 50'031, run.totals.latency->percentiles->max_ns);
}

// A 200 ms stall from 350 ms, 150 ms before the window's start, behind arrays of 10 ms: of the
// ticks due in it (350,001 to 550,000) the first 10,000 are written and the rest dropped, and
// so is tick 550,001 at the hand-over. The consumer finds the gap of 190,001 after the window
// opened (at its first check, 550 ms), but only the ticks of it due in the window, 500,000 to
// 550,001, are its loss.
TEST(Realtime, TheWindowLosesOnlyTheTicksDueInIt) {
    const ScriptedRun run =
            run_scripted(1.0, 0.5, {.stall_at_ns = 350 * ms, .stall_ns = 200 * ms}, /*queue_size=*/10'000);
    expect_balanced(run);
    EXPECT_EQ(run.ticks.dropped, 190'001U) << run.ticks.describe();
    EXPECT_EQ(run.observer.lost_at_window_open, 0U);
    EXPECT_EQ(run.totals.lost - run.observer.lost_at_window_open, 190'001U)
            << "the gap is found in the window's time";
    EXPECT_EQ(run.totals.lost_measured, 50'002U);
}

// 10 us ticks for 1 s: the consumer takes every one as it falls due, the last at 1 s.
TEST(Realtime, KeepsUpAtAnEasyRate) {
    const ScriptedRun run = run_scripted(1.0, 0.0, {}, 0, 10 * us);
    expect_balanced(run);
    EXPECT_EQ(run.ticks.queue_size, 10'000U);  // 100 ms of 10 us ticks
    EXPECT_EQ(run.ticks.emitted, 100'001U);
    EXPECT_EQ(run.ticks.dropped, 0U);
    EXPECT_EQ(run.ticks.undelivered, 0U);
    EXPECT_EQ(run.totals.measured_packets, 100'001U);
}

// The same loop on native-queue's clock thread: what it loses depends on the machine, but the
// books balance whatever it is.
TEST(Realtime, OnTheClockThreadTheBooksBalance) {
    CountingObserver observer;
    RunTimeline timeline(0.3, 0.1, observer, Clock::now());
    Pooled model(CaseParams::of("A", 0.01), 1);
    const TickAccounting ticks = run_realtime(model, RealtimeConfig{10 * us, -1, -1}, timeline);
    const RunTotals totals = timeline.totals();
    EXPECT_TRUE(ticks.balanced()) << ticks.describe();
    EXPECT_GT(ticks.emitted, 0U);
    EXPECT_EQ(ticks.written, ticks.emitted - ticks.dropped);
    EXPECT_EQ(totals.packets, ticks.received);
    EXPECT_EQ(totals.lost, ticks.gaps);
    EXPECT_EQ(model.conservation_error(), std::nullopt);
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
