// One clock thread feeding several queues in turn (FanOut): each queue's ticks number 0, 1, 2, ...,
// tick j of queue k being the clock's tick j * n + k, and each queue's books balance on their own
// as a lone queue's do. The clock is the test's (manual_pace_clock.hpp): what each queue gets
// and drops follows from the times the test sets, however the threads are scheduled.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "manual_pace_clock.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"

namespace {

using native_queue::FanOut;
using native_queue::OwnedQueue;
using native_queue::ProducerStats;
using native_queue::QueueConsumer;
using native_queue::QueueView;
using native_queue::SequenceTracker;
using native_queue_test::ManualPaceClock;
using native_queue_test::ManualTime;

using ManualFanOut = native_queue::BasicTickProducer<ManualPaceClock, FanOut>;

struct Queues {
    explicit Queues(std::size_t n, std::uint32_t size) {
        for (std::size_t k = 0; k < n; ++k) {
            owned.push_back(std::make_unique<OwnedQueue>(size));
            views.push_back(owned.back()->view());
        }
    }
    std::vector<std::unique_ptr<OwnedQueue>> owned;
    std::vector<QueueView> views;
};

// Stops the clock, then reads every queue until each is finished, keeping what each received.
std::vector<std::vector<std::uint32_t>> drain(Queues& queues, ManualFanOut& producer,
                                              std::vector<SequenceTracker>& trackers) {
    std::vector<QueueConsumer> consumers(queues.views.begin(), queues.views.end());
    std::vector<std::vector<std::uint32_t>> received(consumers.size());
    producer.stop();
    bool all_finished = false;
    while (!all_finished) {
        all_finished = true;
        for (std::size_t k = 0; k < consumers.size(); ++k) {
            consumers[k].poll([&](std::uint32_t seq) {
                trackers[k].accept(seq);
                received[k].push_back(seq);
            });
            all_finished = all_finished && consumers[k].finished();
        }
    }
    return received;
}

// 30 ticks of 1 us over three queues with room for them all: ten each, numbered 0 to 9.
TEST(FanOut, EachQueueGetsEveryNthTickNumberedFromZero) {
    Queues queues(3, 64);
    ManualTime time;
    ManualFanOut producer(queues.views, /*interval_ns=*/1000, /*cpu=*/-1, ManualFanOut::default_finish_timeout,
                          ManualPaceClock{&time});
    time.wait_started();
    time.settle_at(29'000);  // ticks 0 to 29 are due
    std::vector<SequenceTracker> trackers(3);
    const auto received = drain(queues, producer, trackers);
    const ProducerStats all = producer.join();
    const std::vector<ProducerStats> each = producer.queue_stats();
    ASSERT_EQ(each.size(), 3U);
    EXPECT_EQ(all.emitted, 30U);
    for (std::size_t k = 0; k < 3; ++k) {
        std::vector<std::uint32_t> expected(10);
        for (std::uint32_t j = 0; j < 10; ++j) {
            expected[j] = j;
        }
        EXPECT_EQ(received[k], expected) << "queue " << k;
        EXPECT_EQ(each[k].emitted, 10U);
        EXPECT_EQ(each[k].dropped, 0U);
        EXPECT_EQ(trackers[k].gaps(), 0U);
    }
}

// Queues of 4 slots that nobody reads until the end: of each queue's 20 ticks the first is handed
// over, the next 4 fill the other array and 15 are dropped, whatever queue it is; each queue's
// gaps and trailing drops then add up to its own drop count, and the sums to the clock's.
TEST(FanOut, EveryQueueBalancesOnItsOwn) {
    constexpr std::size_t n = 2;
    Queues queues(n, 4);
    ManualTime time;
    ManualFanOut producer(queues.views, /*interval_ns=*/1000, /*cpu=*/-1, ManualFanOut::default_finish_timeout,
                          ManualPaceClock{&time});
    time.wait_started();
    time.settle_at(39'000);  // 40 ticks: 20 per queue
    std::vector<SequenceTracker> trackers(n);
    drain(queues, producer, trackers);
    const ProducerStats all = producer.join();
    const std::vector<ProducerStats> each = producer.queue_stats();
    std::uint64_t dropped = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const ProducerStats& stats = each[k];
        EXPECT_EQ(stats.emitted, 20U);
        EXPECT_EQ(stats.written, 5U) << "the published first tick and a full array";
        EXPECT_EQ(stats.dropped, 15U);
        EXPECT_EQ(stats.undelivered, 0U);
        EXPECT_EQ(static_cast<std::int64_t>(trackers[k].gaps()) +
                          trackers[k].trailing_dropped(stats.emitted, stats.undelivered),
                  static_cast<std::int64_t>(stats.dropped));
        EXPECT_EQ(trackers[k].received() + stats.dropped, stats.emitted);
        dropped += stats.dropped;
    }
    EXPECT_EQ(all.dropped, dropped);
    EXPECT_EQ(all.emitted, 40U);
}

TEST(FanOut, RefusesNoQueues) {
    EXPECT_THROW(native_queue::FanOutTickProducer(std::vector<QueueView>{}, 1000), std::invalid_argument);
}

}  // namespace
