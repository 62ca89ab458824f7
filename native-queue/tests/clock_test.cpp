// The TSC clock's calibration, and the paced producer on a clock the test sets: which ticks
// it emits when, and how late a tick is. Correctness, not speed: the producer's speed is
// queue_bench's to measure.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <thread>

#include "manual_pace_clock.hpp"
#include "native_queue/cpu_affinity.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"
#include "native_queue/tsc_clock.hpp"

namespace {

using namespace std::chrono_literals;
using namespace native_queue;
using native_queue_test::ManualPaceClock;
using native_queue_test::ManualTickProducer;
using native_queue_test::ManualTime;

TEST(TscClock, CalibratedFrequencyIsPlausible) {
    const double per_ns = ticks_per_ns();
    EXPECT_GE(per_ns, 0.1);
    EXPECT_LE(per_ns, 10.0);
    EXPECT_EQ(per_ns, ticks_per_ns()) << "calibrated once per process";
}

// Both clocks read bracketed, the tightest of several tries (as the calibration reads them), so
// that a preemption between two reads cannot skew the comparison.
TEST(TscClock, AgreesWithTheSteadyClock) {
    const detail::ClockPair start = detail::read_clock_pair();
    std::this_thread::sleep_for(50ms);
    const detail::ClockPair end = detail::read_clock_pair();
    const double ns = std::chrono::duration<double, std::nano>(end.time - start.time).count();
    EXPECT_NEAR(static_cast<double>(end.ticks - start.ticks) / ticks_per_ns() / ns, 1.0, 0.05);
}

// Paced by a clock the test sets: tick i is due once i intervals have passed, the thread emits
// every tick due as soon as it sees the time, back to back when many fell due at once, and
// nothing more. A 4,096-slot queue whose consumer waits for a jump of 5 ms (5,000 ticks) drops
// what does not fit.
TEST(TickProducer, EmitsTheTicksDueOnItsClockAndNoMore) {
    ManualTime time;
    OwnedQueue queue(4096);
    QueueConsumer consumer(queue.view());
    SequenceTracker tracker;
    auto take = [&](std::uint32_t seq) { tracker.accept(seq); };
    ManualTickProducer producer(queue.view(), /*interval_ns=*/1000, -1, ManualTickProducer::default_finish_timeout,
                                ManualPaceClock{&time});
    time.wait_started();
    EXPECT_EQ(consumer.poll(take), 1U) << "tick 0, due at once";
    time.settle_at(999);
    EXPECT_EQ(consumer.poll(take), 0U) << "tick 1 is not due yet";
    time.settle_at(1000);
    EXPECT_EQ(consumer.poll(take), 1U) << "tick 1";
    // Ticks 2 to 5,000: tick 2 is handed over at once, 3 to 4,098 fill the other array, the
    // 902 after them are dropped.
    time.settle_at(5'000'500);
    EXPECT_EQ(consumer.poll(take), 1U) << "tick 2";
    producer.stop();
    do {
        consumer.poll(take);
    } while (!consumer.finished());
    const ProducerStats stats = producer.join();
    EXPECT_EQ(stats.emitted, 5'001U);
    EXPECT_EQ(stats.written, 3U + 4'096U);
    EXPECT_EQ(stats.dropped, 902U);
    EXPECT_EQ(stats.undelivered, 0U);
    EXPECT_EQ(tracker.received(), 4'099U);
    EXPECT_EQ(tracker.gaps(), 0U);
    EXPECT_EQ(tracker.trailing_dropped(stats.emitted, stats.undelivered), 902);
}

// Lateness on the producer's own schedule: tick k is due k intervals after the first, so a tick
// held while the clock moves on is that much later; an unpaced clock has nothing to be late for.
TEST(TickProducer, LatenessOfATickIsHowLongSinceItFellDue) {
    constexpr std::uint64_t interval_ns = 10'000;
    ManualTime time;
    OwnedQueue queue(capacity_for(100, interval_ns));
    QueueConsumer consumer(queue.view());
    ManualTickProducer producer(queue.view(), interval_ns, -1, ManualTickProducer::default_finish_timeout,
                                ManualPaceClock{&time});
    time.wait_started();
    EXPECT_EQ(producer.lateness_ns(0), 0);
    time.settle_at(20'000'000);  // 20 ms: ticks 1 to 2,000 fall due
    EXPECT_EQ(producer.lateness_ns(0), 20'000'000);
    EXPECT_EQ(producer.lateness_ns(1'500), 5'000'000);
    EXPECT_EQ(producer.lateness_ns(2'000), 0);
    time.settle_at(20'004'000);
    EXPECT_EQ(producer.lateness_ns(2'000), 4'000);
    producer.stop();
    do {
        consumer.poll([](std::uint32_t) {});
    } while (!consumer.finished());
    EXPECT_EQ(producer.join().emitted, 2'001U);

    OwnedQueue flat_out_queue(1024);
    TickProducer flat_out(flat_out_queue.view(), 0);
    EXPECT_EQ(flat_out.lateness_ns(0), 0);
    flat_out.stop();
    QueueConsumer drain(flat_out_queue.view());
    do {
        drain.poll([](std::uint32_t) {});
    } while (!drain.finished());
    flat_out.join();
}

// The same on the TSC: a tick held 20 ms is at least that much later (less 1 % for the
// calibration), however long the sleep really took.
TEST(TickProducer, LatenessOnTheTscGrowsWhileATickWaits) {
    constexpr std::uint64_t interval_ns = 10'000;
    OwnedQueue queue(capacity_for(100, interval_ns));
    QueueConsumer consumer(queue.view());
    TickProducer producer(queue.view(), interval_ns);
    while (consumer.poll([](std::uint32_t) {}) == 0) {
    }
    const std::int64_t first = producer.lateness_ns(0);
    std::this_thread::sleep_for(20ms);
    const std::int64_t waited = producer.lateness_ns(0);
    EXPECT_GE(waited - first, 19'800'000) << first << " -> " << waited;
    producer.stop();
    do {
        consumer.poll([](std::uint32_t) {});
    } while (!consumer.finished());
    producer.join();
}

TEST(CpuAffinity, PinsOnlyToCpusThatExist) {
    EXPECT_EQ(pin_current_thread(-1), EINVAL);
    EXPECT_EQ(pin_current_thread(configured_cpu_count()), EINVAL);
    int result = -1;
    std::thread([&] { result = pin_current_thread(0); }).join();  // not the test's own thread
    EXPECT_EQ(result, 0);
    EXPECT_GE(usable_cpu_count(), 1);
}

}  // namespace
