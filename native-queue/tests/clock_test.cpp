// The TSC clock's calibration and the paced producer's average rate: correctness
// checks with loose bounds, not speed targets.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <thread>

#include "native_queue/cpu_affinity.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/tick_producer.hpp"
#include "native_queue/tsc_clock.hpp"

namespace {

using namespace std::chrono_literals;
using namespace native_queue;

TEST(TscClock, CalibratedFrequencyIsPlausible) {
    const double per_ns = ticks_per_ns();
    EXPECT_GE(per_ns, 0.1);
    EXPECT_LE(per_ns, 10.0);
    EXPECT_EQ(per_ns, ticks_per_ns()) << "calibrated once per process";
}

TEST(TscClock, AgreesWithTheSteadyClock) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = now_ticks();
    std::this_thread::sleep_for(50ms);
    const std::uint64_t c1 = now_ticks();
    const auto t1 = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    EXPECT_NEAR(static_cast<double>(c1 - c0) / ticks_per_ns() / ns, 1.0, 0.05);
}

TEST(TickProducer, PacedRateIsRoughlyTheInterval) {
    constexpr std::uint64_t interval_ns = 1000;
    OwnedQueue queue(capacity_for(100, interval_ns));
    QueueConsumer consumer(queue.view());
    auto ignore = [](std::uint32_t) {};
    const auto start = std::chrono::steady_clock::now();
    TickProducer producer(queue.view(), interval_ns);
    while (std::chrono::steady_clock::now() - start < 300ms) {
        consumer.poll(ignore);
    }
    producer.stop();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    do {
        consumer.poll(ignore);
    } while (!consumer.finished());
    const ProducerStats stats = producer.join();
    const double expected = std::chrono::duration<double, std::nano>(elapsed).count() / interval_ns;
    EXPECT_NEAR(static_cast<double>(stats.emitted) / expected, 1.0, 0.25);
}

// Lateness on the producer's own schedule: a tick held 20 ms without being made is at least
// 20 ms later than when it was taken; fresh ticks are taken soon after they are due; an
// unpaced clock has nothing to be late for.
TEST(TickProducer, LatenessOfATickGrowsWhileItWaits) {
    constexpr std::uint64_t interval_ns = 10'000;
    OwnedQueue queue(capacity_for(100, interval_ns));
    QueueConsumer consumer(queue.view());
    std::uint64_t last = 0;
    std::uint64_t taken = 0;
    auto take = [&](std::uint32_t seq) {
        last = seq;
        ++taken;
    };
    TickProducer producer(queue.view(), interval_ns);
    while (taken == 0) {
        consumer.poll(take);
    }
    const std::int64_t first = producer.lateness_ns(last);
    std::this_thread::sleep_for(20ms);
    const std::int64_t waited = producer.lateness_ns(last);
    EXPECT_GE(waited - first, 20'000'000) << first << " -> " << waited;
    while (taken < 10'000) {  // 100 ms of ticks: the 2,000 queued in the wait first, then fresh ones
        consumer.poll(take);
    }
    const std::int64_t caught_up = producer.lateness_ns(last);
    EXPECT_GE(caught_up, 0);
    EXPECT_LT(caught_up, 10'000'000);
    producer.stop();
    do {
        consumer.poll(take);
    } while (!consumer.finished());
    producer.join();

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

TEST(CpuAffinity, PinsOnlyToCpusThatExist) {
    EXPECT_EQ(pin_current_thread(-1), EINVAL);
    EXPECT_EQ(pin_current_thread(configured_cpu_count()), EINVAL);
    int result = -1;
    std::thread([&] { result = pin_current_thread(0); }).join();  // not the test's own thread
    EXPECT_EQ(result, 0);
    EXPECT_GE(usable_cpu_count(), 1);
}

}  // namespace
