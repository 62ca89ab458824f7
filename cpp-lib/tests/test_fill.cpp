// The fill phase (warm-up by work): before the timed phase the model runs flat out until
// its FIFO has filled and at least 99 % of its store's slots are occupied, and no packet
// longer; a fill that cannot get there by its deadline is an error, not a measurement.
#include <gtest/gtest.h>

#include <chrono>

#include "case_params.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "packet_source.hpp"
#include "runner.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

template <class Source>
void expect_filled_exactly(CaseParams params) {
    params.pool_size = params.internal_queue_size + params.stored_count;  // all it needs
    Model<flat_design::Packet, PoolStrategy, Source> model(params, 3);
    const Clock::time_point origin = Clock::now();
    const FillResult fill = run_fill(model, origin, Clock::now() + std::chrono::minutes(1));
    const Occupancy after = model.occupancy();
    EXPECT_EQ(after.fifo_size, params.internal_queue_size - 1);  // full: its last packet popped the oldest
    EXPECT_GE(after.stored, store_fill_goal(params.stored_count));
    EXPECT_GE(after.store_fill(), 0.99);
    EXPECT_GE(fill.packets, params.internal_queue_size);
    EXPECT_GE(fill.start_s, 0);
    EXPECT_GT(fill.seconds, 0);

    // One packet fewer would not have done: the same model, stopped a packet earlier.
    Model<flat_design::Packet, PoolStrategy, Source> earlier(params, 3);
    for (std::uint64_t i = 0; i + 1 < fill.packets; ++i) {
        earlier.step();
    }
    EXPECT_TRUE(fill.packets - 1 < params.internal_queue_size ||
                earlier.occupancy().stored < store_fill_goal(params.stored_count));
}

TEST(Fill, StopsAtAFullFifoAndA99PercentStore) {
    expect_filled_exactly<CounterSource>(CaseParams::of("A", 1));
    expect_filled_exactly<RandomSource>(CaseParams::of("A", 1));
    expect_filled_exactly<CounterSource>(CaseParams::of("B", 0.05));
    expect_filled_exactly<RandomSource>(CaseParams::of("B", 0.05));
    // A FIFO much longer than the store: the FIFO is what the fill waits for.
    expect_filled_exactly<RandomSource>(with_overrides(CaseParams::of("A", 1), {50'000, 100, std::nullopt}));
}

TEST(Fill, DummyWaitsForItsFifoOnly) {
    // The published code's dummy parses the packet it has just filled: with the counter
    // source its first TCP packet's index draw shifts every later sixth draw to odd values,
    // so it never stores again; the fill phase cannot wait for its store.
    const CaseParams params = CaseParams::of("B", 0.05);
    Model<flat_design::Packet, DummyStrategy, CounterSource> model(params, 1);
    const FillResult fill = run_fill(model, Clock::now(), Clock::now() + std::chrono::minutes(1));
    EXPECT_EQ(fill.packets, params.internal_queue_size);
    for (int i = 0; i < 1'000'000; ++i) {
        model.step();
    }
    EXPECT_EQ(model.occupancy().stored, 1U);
}

TEST(Fill, StoreGoalIs99PercentRoundedUp) {
    EXPECT_EQ(store_fill_goal(1), 1U);
    EXPECT_EQ(store_fill_goal(100), 99U);
    EXPECT_EQ(store_fill_goal(1'000), 990U);
    EXPECT_EQ(store_fill_goal(1'001), 991U);
    EXPECT_EQ(store_fill_goal(495'000), 490'050U);
}

TEST(Fill, AStoreThatStopsGrowingCountsAsFilled) {
    // The counter source's store indexes reach only 15 of case A's 20 slots at scale 0.02:
    // the fill ends once the store has not grown for 64 packets per slot, not never.
    const CaseParams params = CaseParams::of("A", 0.02);
    Model<flat_design::Packet, PoolStrategy, CounterSource> model(params, 1);
    const FillResult fill = run_fill(model, Clock::now(), Clock::now() + std::chrono::minutes(1));
    EXPECT_EQ(model.occupancy().stored, 15U);
    EXPECT_GE(fill.packets, fill_stall_per_slot * params.stored_count);
    // With a FIFO of 1, the first TCP packet's index draw makes every later sixth draw odd:
    // no packet is TCP again, and a store of 7 keeps the one it got.
    CaseParams one = CaseParams::of("A", 1);
    one.internal_queue_size = 1;
    one.stored_count = 7;
    one.pool_size = 8;
    Model<flat_design::Packet, PoolStrategy, CounterSource> stuck(one, 1);
    run_fill(stuck, Clock::now(), Clock::now() + std::chrono::minutes(1));
    EXPECT_EQ(stuck.occupancy().stored, 1U);
}

TEST(Fill, ThatDoesNotFinishInTimeIsAnError) {
    CaseParams params = CaseParams::of("C", 0.01);  // 4,950 slots: tens of thousands of packets
    Model<flat_design::Packet, PoolStrategy, RandomSource> model(params, 1);
    try {
        run_fill(model, Clock::now(), Clock::now());
        FAIL() << "the fill phase finished";
    } catch (const FillError& error) {
        EXPECT_EQ(error.failure(), Failure::fill_timeout);  // the code the summary gives, which the study reads
        EXPECT_NE(std::string(error.what()).find("the fill phase did not finish in time"), std::string::npos)
                << error.what();
        EXPECT_NE(std::string(error.what()).find(" of 4950 slots (it needs 4901)"), std::string::npos)
                << error.what();
    }
}

}  // namespace
}  // namespace cpp_engine
