// The dual-array queue driven by a real TickProducer thread, consumed on the test's
// thread: order, no duplicates, and the exact accounting identities
//   consumer gaps + trailing drops == producer drops
//   received + dropped + undelivered == emitted
// for a fast consumer, a slow one that forces drops, and one that stops reading.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"

namespace {

using namespace std::chrono_literals;
using native_queue::OwnedQueue;
using native_queue::ProducerStats;
using native_queue::QueueConsumer;
using native_queue::SequenceTracker;
using native_queue::TickProducer;

struct Outcome {
    SequenceTracker tracker;
    ProducerStats stats;
};

// Consumes while keep_going(tracker) holds, calling between_polls() after each poll; then
// stops the producer, reads until the queue is finished and joins.
template <class KeepGoing, class BetweenPolls>
Outcome consume(OwnedQueue& queue, TickProducer& producer, KeepGoing keep_going, BetweenPolls between_polls) {
    QueueConsumer consumer(queue.view());
    Outcome outcome;
    auto on_tick = [&](std::uint32_t seq) { outcome.tracker.accept(seq); };
    while (keep_going(outcome.tracker)) {
        consumer.poll(on_tick);
        between_polls();
    }
    producer.stop();
    do {
        consumer.poll(on_tick);
    } while (!consumer.finished());
    outcome.stats = producer.join();
    return outcome;
}

void expect_balanced(const Outcome& outcome) {
    const SequenceTracker& tracker = outcome.tracker;
    const ProducerStats& stats = outcome.stats;
    EXPECT_FALSE(tracker.broken()) << tracker.out_of_order() << " ticks duplicated or reordered";
    EXPECT_EQ(stats.emitted, stats.written + stats.dropped);
    EXPECT_EQ(stats.undelivered, 0U);
    EXPECT_EQ(static_cast<std::int64_t>(tracker.gaps()) + tracker.trailing_dropped(stats.emitted, stats.undelivered),
              static_cast<std::int64_t>(stats.dropped));
    EXPECT_EQ(tracker.received() + stats.dropped + stats.undelivered, stats.emitted);
}

TEST(DualArrayQueue, HundredMillionTicksFlatOutArriveInOrderAndBalance) {
    constexpr std::uint64_t target = 100'000'000;
    OwnedQueue queue(1U << 14);
    TickProducer producer(queue.view(), /*interval_ns=*/0);
    const Outcome outcome = consume(
            queue, producer, [&](const SequenceTracker& t) { return t.received() < target && !t.broken(); },
            [] {});
    expect_balanced(outcome);
    EXPECT_GE(outcome.tracker.received(), target);
}

TEST(DualArrayQueue, SlowConsumerLosesTicksAndStillBalances) {
    OwnedQueue queue(64);
    TickProducer producer(queue.view(), /*interval_ns=*/1000);  // 1000 ticks per ms of sleep
    const auto end = std::chrono::steady_clock::now() + 300ms;
    const Outcome outcome = consume(
            queue, producer, [&](const SequenceTracker&) { return std::chrono::steady_clock::now() < end; },
            [] { std::this_thread::sleep_for(1ms); });
    expect_balanced(outcome);
    EXPECT_GT(outcome.stats.dropped, 0U);
    EXPECT_GT(outcome.tracker.gaps(), 0U);
    EXPECT_GT(outcome.tracker.received(), 0U);
}

TEST(DualArrayQueue, FinishIsBoundedWhenTheConsumerStopsReading) {
    constexpr std::uint32_t size = 8;
    OwnedQueue queue(size);
    TickProducer producer(queue.view(), /*interval_ns=*/0, /*cpu=*/-1, /*finish_timeout=*/100ms);
    std::this_thread::sleep_for(100ms);  // no one reads: the first tick is published, then arrays fill
    const auto stop_time = std::chrono::steady_clock::now();
    producer.stop();
    const ProducerStats stats = producer.join();
    EXPECT_LT(std::chrono::steady_clock::now() - stop_time, 1s);
    EXPECT_EQ(stats.written, 1 + size);  // the published first tick and a full array
    EXPECT_EQ(stats.undelivered, size);
    EXPECT_EQ(stats.emitted, stats.written + stats.dropped);

    // A late reader still gets the one published tick, and then the queue is finished.
    QueueConsumer consumer(queue.view());
    SequenceTracker tracker;
    EXPECT_EQ(consumer.poll([&](std::uint32_t seq) { tracker.accept(seq); }), 1U);
    EXPECT_TRUE(consumer.finished());
    EXPECT_EQ(tracker.received() + stats.dropped + stats.undelivered, stats.emitted);
}

TEST(DualArrayQueue, ConsumerSeesNothingBeforeThePublish) {
    OwnedQueue queue(4);
    QueueConsumer consumer(queue.view());
    EXPECT_EQ(consumer.poll([](std::uint32_t) { FAIL() << "no tick was published"; }), 0U);
    EXPECT_FALSE(consumer.finished());
}

TEST(TickProducer, RejectsACpuThatDoesNotExist) {
    OwnedQueue queue(4);
    EXPECT_THROW(TickProducer(queue.view(), 0, 1 << 20), std::invalid_argument);
    EXPECT_THROW(TickProducer(queue.view(), 0, -2), std::invalid_argument);
}

TEST(TickProducer, RunsPinned) {
    OwnedQueue queue(1024);
    TickProducer producer(queue.view(), /*interval_ns=*/1000, /*cpu=*/0);
    const auto end = std::chrono::steady_clock::now() + 50ms;
    const Outcome outcome = consume(
            queue, producer, [&](const SequenceTracker&) { return std::chrono::steady_clock::now() < end; }, [] {});
    expect_balanced(outcome);
    EXPECT_GT(outcome.stats.emitted, 0U);
}

}  // namespace
