// Several processing threads (--threads N): the case split into shares that add up to it, each
// threaded strategy accounting for every packet over the threads after a run (free + in use ==
// capacity, each thread's in use == what its processor holds), the worker threads' allocations
// counted exactly per packet, and the shared pool handing each packet to one thread at a time
// under two threads hammering it, with exhaustion and double release caught. No assertion is
// on time: a busy machine makes fewer packets, never other counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "any_model.hpp"
#include "case_params.hpp"
#include "options.hpp"
#include "packet.hpp"
#include "runner.hpp"
#include "strategies.hpp"
#include "threaded_run.hpp"

namespace cpp_engine {
namespace {

TEST(CaseShare, SharesAddUpToTheCaseAndKeepItsTable) {
    const CaseParams params = CaseParams::of("B", 0.00101);  // 101 packets in the FIFO and the store
    std::uint64_t queue = 0, stored = 0, pool = 0, mix = 0;
    for (std::uint32_t i = 0; i < 3; ++i) {
        const CaseParams share = params.share(i, 3);
        queue += share.internal_queue_size;
        stored += share.stored_count;
        pool += share.pool_size;
        mix += share.mix_pool_size;
        EXPECT_EQ(share.table_internal_queue_size, 100'000U);
        EXPECT_EQ(share.internal_queue_size, i < 2 ? 34U : 33U);  // 101 = 34 + 34 + 33
    }
    EXPECT_EQ(queue, params.internal_queue_size);
    EXPECT_EQ(stored, params.stored_count);
    EXPECT_EQ(pool, params.pool_size);
    EXPECT_EQ(mix, params.mix_pool_size);
    EXPECT_THROW(std::ignore = params.share(3, 3), std::invalid_argument);
    EXPECT_THROW(std::ignore = CaseParams::of("A", 0.001).share(0, 2), std::invalid_argument);  // one packet each
}

class Recorder final : public RunObserver {
public:
    void on_period(const PeriodStats&) override {}
};

// A short threaded batch run of `strategy` on 2 threads (weak scaling unless `strong`); the model, its timeline's
// totals.
std::pair<std::unique_ptr<AnyModel>, RunTotals> run_threaded(const std::string& design, const std::string& strategy,
                                                             bool strong = false) {
    const CaseParams params = CaseParams::of("B", 0.01);
    auto model = make_model(design, strategy, "counter", params, 7, 2, strong);
    Recorder observer;
    const Clock::time_point origin = Clock::now();
    RunTimeline timeline(0.06, 0.02, observer, origin);
    const FillResult fill = model->fill(origin, Clock::now() + std::chrono::minutes(10));
    EXPECT_GE(fill.packets, std::uint64_t{params.internal_queue_size});
    model->run_batch(timeline);
    return {std::move(model), timeline.totals()};
}

class ThreadedStrategies : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ThreadedStrategies, EveryPacketIsAccountedForOverTheThreads) {
    const auto& [design, strategy] = GetParam();
    const auto [model, totals] = run_threaded(design, strategy);
    EXPECT_EQ(model->conservation_error(), std::nullopt);
    const PoolCounts counts = model->counts();
    const Occupancy occupancy = model->occupancy();
    EXPECT_TRUE(counts.balanced());
    EXPECT_EQ(counts.in_use, occupancy.fifo_size + occupancy.stored);  // both FIFOs and stores
    // weak scaling: each thread's FIFO is the case's
    EXPECT_EQ(occupancy.fifo_capacity, 2 * CaseParams::of("B", 0.01).internal_queue_size);
    if (strategy == "shared-pool") {
        EXPECT_EQ(counts.capacity, 2 * CaseParams::of("B", 0.01).pool_size);  // one pool holding both threads' pools
    }
    ASSERT_EQ(totals.thread_cpu_s.size(), 2U) << "one CPU time per thread";
    for (const double seconds : totals.thread_cpu_s) {
        EXPECT_GE(seconds, 0.0);
    }
    const std::optional<double> share = model->thread_share_min();
    if (totals.packets != 0) {
        ASSERT_TRUE(share.has_value());
        EXPECT_GE(*share, 0.0);
        EXPECT_LE(*share, 1.0);  // the slowest thread makes at most an even share
    }
}

INSTANTIATE_TEST_SUITE_P(DesignsAndStrategies, ThreadedStrategies,
                         testing::Combine(testing::Values("cpp", "flat"),
                                          testing::Values("alloc", "pool", "shared-pool", "pmr-synchronized")),
                         [](const auto& info) {
                             std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                             std::erase(name, '-');
                             return name;
                         });

TEST(ThreadedRun, TheWorkerThreadsAllocationsAreCountedExactlyPerPacket) {
    // The tests link the counting build: flat alloc makes a packet and its buffer per packet,
    // a pool nothing; each thread publishes its allocations with its packets, as one pair.
    for (const auto& [strategy, per_packet] : {std::pair{std::string("alloc"), 2U}, std::pair{std::string("pool"), 0U},
                                                std::pair{std::string("shared-pool"), 0U}}) {
        const auto [model, totals] = run_threaded("flat", strategy);
        EXPECT_EQ(totals.measured_allocations, per_packet * totals.measured_packets) << strategy;
    }
}

// Weak scaling gives each of two threads the case's live set (FIFO and store), strong half of it; the pool
// every thread shares holds every thread's pool either way.
TEST(ThreadedRun, WeakScalingKeepsEachThreadsLiveSetStrongSplitsIt) {
    const CaseParams params = CaseParams::of("B", 0.01);
    for (const bool strong : {false, true}) {
        const auto [model, totals] = run_threaded("flat", "shared-pool", strong);
        const Occupancy occupancy = model->occupancy();
        const std::uint32_t threads_per_case = strong ? 1 : 2;
        EXPECT_EQ(occupancy.fifo_capacity, threads_per_case * params.internal_queue_size) << strong;
        EXPECT_EQ(occupancy.stored_count, threads_per_case * params.stored_count) << strong;
        EXPECT_EQ(model->counts().capacity, threads_per_case * params.pool_size) << strong;
        EXPECT_GE(occupancy.fifo_size, threads_per_case * params.internal_queue_size - 2) << "full FIFOs";
        EXPECT_EQ(model->conservation_error(), std::nullopt);
    }
}

// pmr-synchronized: a packet released twice on the standard library's shared resource is an error, as on pmr.
TEST(ThreadedRun, SynchronizedPmrCatchesADoubleRelease) {
    SyncPmrResource shared(0);
    SyncPmrView<flat_design::Packet> view(CaseParams::of("B", 0.01), shared);
    flat_design::Packet* packet = view.acquire();
    EXPECT_EQ(view.counts().in_use, 1U);
    view.release(packet);
    EXPECT_EQ(view.counts().in_use, 0U);
    EXPECT_THROW(view.release(packet), DoubleRelease);
}

TEST(ThreadedRun, OnlyTheThreadedStrategiesRunThreaded) {
    EXPECT_THROW(std::ignore = make_model("flat", "pmr", "counter", CaseParams::of("B", 0.01), 1, 2),
                 std::invalid_argument);
    EXPECT_THROW(std::ignore = make_model("flat", "shared-pool", "counter", CaseParams::of("B", 0.01), 1, 0),
                 std::invalid_argument);
}

TEST(SharedPool, TwoThreadsNeverHoldTheSamePacket) {
    using P = flat_design::Packet;
    SharedPool<P> pool(64);
    std::mutex held_mutex;
    std::unordered_set<P*> held;
    bool duplicate = false;
    auto hammer = [&] {
        SharedPoolView<P> view(CaseParams::of("A", 1), pool);
        std::vector<P*> mine;
        for (int round = 0; round < 20'000; ++round) {
            for (int i = 0; i < 8; ++i) {
                P* packet = view.acquire();
                const std::lock_guard lock(held_mutex);
                duplicate |= !held.insert(packet).second;
                mine.push_back(packet);
            }
            for (P* packet : mine) {
                {
                    const std::lock_guard lock(held_mutex);
                    held.erase(packet);
                }
                view.release(packet);
            }
            mine.clear();
        }
        EXPECT_EQ(view.counts().in_use, 0U);
    };
    std::thread other(hammer);
    hammer();
    other.join();
    EXPECT_FALSE(duplicate);
    EXPECT_EQ(pool.count_free(), 64U);  // every packet back, none twice
}

TEST(SharedPool, ExhaustionAndDoubleReleaseAreErrors) {
    using P = cpp_design::Packet;
    SharedPool<P> pool(2);
    SharedPoolView<P> view(CaseParams::of("A", 1), pool);
    P* first = view.acquire();
    P* second = view.acquire();
    EXPECT_THROW(view.acquire(), PoolExhausted);
    view.release(first);
    EXPECT_THROW(view.release(first), DoubleRelease);
    view.release(second);
    EXPECT_EQ(pool.count_free(), 2U);
    EXPECT_EQ(view.counts().in_use, 0U);
}

// The measured window's first tick of each of n queues fed in turn: queue k's tick j is the
// clock's tick j * n + k, and the window starts with the clock's first tick due in it.
TEST(ThreadedRealtime, EachQueuesWindowStartsAtItsFirstTickDueInIt) {
    EXPECT_EQ(first_window_tick(-5'000, 1'000, 0, 1), 0U) << "a window that began before tick 0";
    EXPECT_EQ(first_window_tick(10'000, 1'000, 0, 1), 10U) << "one queue: the clock's own";
    EXPECT_EQ(first_window_tick(10'500, 1'000, 0, 1), 11U);
    // the clock's tick 10 is queue 0's tick 5 of two, queue 1's first in the window its tick 5 (clock's 11)
    EXPECT_EQ(first_window_tick(10'000, 1'000, 0, 2), 5U);
    EXPECT_EQ(first_window_tick(10'000, 1'000, 1, 2), 5U);
    // of three: clock's 10 is queue 1's tick 3; queue 2's first due is its tick 3 (clock's 11); queue 0's its 4 (12)
    EXPECT_EQ(first_window_tick(10'000, 1'000, 1, 3), 3U);
    EXPECT_EQ(first_window_tick(10'000, 1'000, 2, 3), 3U);
    EXPECT_EQ(first_window_tick(10'000, 1'000, 0, 3), 4U);
    EXPECT_EQ(first_window_tick(1'000, 1'000, 1, 3), 0U) << "the clock's tick 1 is queue 1's first";
}

// A short real-time run of two consumer threads fed by one clock, unpinned: whatever the machine
// does meanwhile (it may lose ticks), each queue's books balance, every tick taken is a packet,
// and the packets are accounted for over the threads. No assertion is on time.
TEST(ThreadedRealtime, EveryQueueBalancesAndEveryTickTakenIsAPacket) {
    for (const std::string strategy : {"alloc", "pool", "shared-pool"}) {
        const CaseParams params = CaseParams::of("B", 0.01);
        auto model = make_model("flat", strategy, "counter", params, 7, 2);
        Recorder observer;
        const Clock::time_point origin = Clock::now();
        RunTimeline timeline(0.3, 0.1, observer, origin);
        model->fill(origin, Clock::now() + std::chrono::minutes(10));
        const TickAccounting ticks = model->run_realtime({20'000, -1, -1, 0}, timeline);
        EXPECT_TRUE(ticks.balanced()) << strategy << ": " << ticks.describe();
        EXPECT_GT(ticks.emitted, 0U);
        EXPECT_EQ(ticks.queue_size, 2'500U) << "100 ms of every other tick of 20 us";
        const RunTotals totals = timeline.totals();
        EXPECT_EQ(totals.packets, ticks.received) << strategy;
        EXPECT_EQ(totals.lost, ticks.gaps) << strategy;
        EXPECT_LE(totals.lost_measured, totals.lost) << strategy;
        EXPECT_EQ(model->conservation_error(), std::nullopt) << strategy;
        EXPECT_TRUE(totals.latency.has_value()) << "the consumers' samples go to the run's meter (test_latency_meter)";
    }
}

std::string rejected(std::vector<std::string> args) {
    const ParseResult result = parse_options(args);
    EXPECT_FALSE(result.options.has_value());
    return result.error;
}

TEST(ThreadedOptions, BadCombinationsNameWhatIsValid) {
    const std::vector<std::string> base{"--design", "flat", "--case", "B", "--scale", "0.01"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    const ParseResult good = parse_options(with({"--strategy", "shared-pool", "--threads", "2"}));
    ASSERT_TRUE(good.options.has_value()) << good.error;
    EXPECT_EQ(good.options->threads, 2U);
    EXPECT_EQ(rejected(with({"--strategy", "alloc", "--threads", "0"})), "--threads: '0' is not valid; valid: 1..256");
    EXPECT_EQ(rejected(with({"--strategy", "shared-pool"})),
              "--strategy: shared-pool is the pool of a threaded run; valid: --threads 1..256 with it (1: one thread on "
              "the shared pool)");
    EXPECT_EQ(rejected(with({"--strategy", "mix", "--threads", "2"})),
              "--strategy: 'mix' does not run threaded; valid with --threads: alloc, pool, shared-pool, pmr-synchronized");
    EXPECT_EQ(rejected(with({"--strategy", "pool", "--scaling", "strong"})), "--scaling: only with --threads N");
    EXPECT_NE(rejected(with({"--strategy", "pool", "--threads", "2", "--scaling", "even"})).find("weak, strong"),
              std::string::npos);
    const ParseResult realtime = parse_options(with({"--strategy", "pool", "--threads", "2", "--mode", "realtime",
                                                     "--interval-ns", "1000", "--consumer-cpu", "-1"}));
    ASSERT_TRUE(realtime.options.has_value()) << realtime.error;
    EXPECT_EQ(input_queue_size(*realtime.options), 50'000U) << "each queue holds 100 ms of its own ticks";
    EXPECT_NE(rejected(with({"--strategy", "alloc", "--threads", "256", "--mode", "realtime", "--interval-ns", "1000",
                             "--producer-cpu", "0", "--consumer-cpu", "1"}))
                      .find("--consumer-cpu: 256 consumer threads need CPUs 1..256, each existing and none the clock's"),
              std::string::npos);
    EXPECT_NE(rejected(with({"--strategy", "alloc", "--threads", "2", "--mode", "realtime", "--interval-ns", "1000",
                             "--producer-cpu", "1", "--consumer-cpu", "0"}))
                      .find("none the clock's (--producer-cpu 1)"),
              std::string::npos);
    EXPECT_NE(rejected(with({"--strategy", "pool", "--threads", "3", "--pool-size", "2000", "--scaling", "strong"}))
                      .find("thread 0 gets 667 < 334 + 334"),
              std::string::npos);
    const ParseResult weak = parse_options(with({"--strategy", "pool", "--threads", "3", "--pool-size", "2000"}));
    ASSERT_TRUE(weak.options.has_value()) << "weak: each thread's pool is the case's 2,000: " << weak.error;
    EXPECT_FALSE(weak.options->strong_scaling);
}

}  // namespace
}  // namespace cpp_engine
