// The dual-array queue driven by a TickProducer thread, consumed on the test's thread: order,
// no duplicates, and the exact accounting identities
//   consumer gaps + trailing drops == producer drops
//   received + dropped + undelivered == emitted
// for a fast consumer, a slow one that forces drops, and one that stops reading. The slow and
// the stopped consumers' producers are paced by a clock the test sets (manual_pace_clock.hpp),
// so what they drop follows from the test's script, not from how the threads are scheduled.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include "manual_pace_clock.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"

namespace {

using namespace std::chrono_literals;
using native_queue::OwnedQueue;
using native_queue::ProducerStats;
using native_queue::QueueConsumer;
using native_queue::QueueProducer;
using native_queue::SequenceTracker;
using native_queue::TickProducer;
using native_queue_test::ManualPaceClock;
using native_queue_test::ManualTickProducer;
using native_queue_test::ManualTime;

struct Outcome {
    SequenceTracker tracker;
    ProducerStats stats;
};

// Consumes while keep_going(tracker) holds, calling between_polls() after each poll; then
// stops the producer, reads until the queue is finished and joins.
template <class Producer, class KeepGoing, class BetweenPolls>
Outcome consume(OwnedQueue& queue, Producer& producer, KeepGoing keep_going, BetweenPolls between_polls) {
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

// A producer of 1 us ticks on the test's clock.
ManualTickProducer paced_producer(OwnedQueue& queue, ManualTime& time,
                                  std::chrono::milliseconds finish_timeout =
                                          ManualTickProducer::default_finish_timeout) {
    return ManualTickProducer(queue.view(), /*interval_ns=*/1000, /*cpu=*/-1, finish_timeout, ManualPaceClock{&time});
}

// Arrays of 64 and 1 us ticks, read once a millisecond: the first poll takes tick 0. In each
// millisecond r after it, the first of its 1,000 ticks hands the array filled in the millisecond
// before over (in the first, the tick itself: the array is empty), the next 64 fill the other
// array and the rest are dropped, and so is the first when the array it lands in is full. The
// consumer reads each handed-over array, the gap before it being the drops between.
TEST(DualArrayQueue, SlowConsumerLosesTicksAndStillBalances) {
    constexpr std::uint64_t rounds = 10;
    OwnedQueue queue(64);
    ManualTime time;
    ManualTickProducer producer = paced_producer(queue, time);
    time.wait_started();
    std::uint64_t round = 0;
    const Outcome outcome = consume(
            queue, producer, [&](const SequenceTracker&) { return round <= rounds; },
            [&] {
                if (++round <= rounds) {
                    time.settle_at(round * 1'000'000);
                }
            });
    expect_balanced(outcome);
    EXPECT_EQ(outcome.stats.emitted, 1 + rounds * 1'000);
    EXPECT_EQ(outcome.stats.written, 2 + rounds * 64);
    EXPECT_EQ(outcome.stats.dropped, 935 + (rounds - 1) * 936);
    EXPECT_EQ(outcome.tracker.received(), 2 + rounds * 64);
    EXPECT_EQ(outcome.tracker.gaps(), (rounds - 1) * 936) << "the last 935 dropped follow the last tick read";
}

// Nobody reads: tick 0 is handed over at once, ticks 1 to 8 fill the other array and 9 to 20 are
// dropped. After stop() the producer waits its finish timeout for the array to be taken, then
// gives up on those 8 rather than hang.
TEST(DualArrayQueue, FinishIsBoundedWhenTheConsumerStopsReading) {
    constexpr std::uint32_t size = 8;
    OwnedQueue queue(size);
    ManualTime time;
    ManualTickProducer producer = paced_producer(queue, time, /*finish_timeout=*/100ms);
    time.wait_started();
    time.settle_at(20'000);
    const auto stop_time = std::chrono::steady_clock::now();
    producer.stop();
    const ProducerStats stats = producer.join();
    EXPECT_GE(std::chrono::steady_clock::now() - stop_time, 100ms);
    EXPECT_EQ(stats.emitted, 21U);
    EXPECT_EQ(stats.written, 1 + size);  // the published first tick and a full array
    EXPECT_EQ(stats.dropped, 12U);
    EXPECT_EQ(stats.undelivered, size);

    // A late reader still gets the one published tick, and then the queue is finished.
    QueueConsumer consumer(queue.view());
    SequenceTracker tracker;
    EXPECT_EQ(consumer.poll([&](std::uint32_t seq) { tracker.accept(seq); }), 1U);
    EXPECT_TRUE(consumer.finished());
    EXPECT_EQ(tracker.received() + stats.dropped + stats.undelivered, stats.emitted);
}

// QueueProducer::finish with its deadline passed and the consumer holding a batch: it gives up
// at once, counting what it could not hand over.
TEST(DualArrayQueue, FinishPastItsDeadlineLeavesTheBatchUndelivered) {
    OwnedQueue queue(4);
    QueueProducer producer(queue.view());
    for (std::uint32_t seq = 0; seq < 3; ++seq) {
        producer.offer(seq);  // 0 is handed over, 1 and 2 wait
    }
    EXPECT_EQ(producer.finish(std::chrono::steady_clock::now()), 2U);
    QueueConsumer consumer(queue.view());
    EXPECT_EQ(consumer.poll([](std::uint32_t seq) { EXPECT_EQ(seq, 0U); }), 1U);
    EXPECT_TRUE(consumer.finished());
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

// Pinned to CPU 0, it ticks there: tick 0 comes once it has read its clock, whenever it runs.
TEST(TickProducer, RunsPinned) {
    OwnedQueue queue(1024);
    ManualTime time;
    ManualTickProducer producer(queue.view(), /*interval_ns=*/1000, /*cpu=*/0,
                                ManualTickProducer::default_finish_timeout, ManualPaceClock{&time});
    time.wait_started();
    const Outcome outcome = consume(queue, producer, [](const SequenceTracker&) { return false; }, [] {});
    expect_balanced(outcome);
    EXPECT_EQ(outcome.stats.emitted, 1U);
    EXPECT_EQ(outcome.tracker.received(), 1U);
}

}  // namespace
