// The clock thread: emits tick numbers 0, 1, 2, ... (as uint32) into a dual-array queue,
// tick i at start + i * interval, busy-waiting on the TSC (no pause instruction: it can
// cost tens of ns, more than the finest intervals). A producer that falls behind emits the
// missed ticks back to back, so the average rate is exact. Interval 0 means
// as fast as possible. After stop() it publishes what it holds (waiting for the consumer
// at most finish_timeout, so it can never hang) and sets the queue's done flag.
// lateness_ns() tells a consumer how late a tick is on this same schedule, so the metered
// latency of a packet (from when it was due) needs no second clock to agree with this one.
// The clock it paces itself by is a template argument: the TSC, or in tests a clock the test
// moves, so that what the thread emits follows from the test's script. So is where the ticks
// go: one queue, or several in turn (FanOut: one clock feeding several consumers).
#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "native_queue/cpu_affinity.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/tsc_clock.hpp"

namespace native_queue {

// The producer's own counts. Identities: emitted == written + dropped, and in a run whose
// consumer read until finished(): received + dropped + undelivered == emitted.
struct ProducerStats {
    std::uint64_t emitted = 0;      // ticks produced
    std::uint64_t written = 0;      // ticks stored in a slot
    std::uint64_t dropped = 0;      // ticks dropped for lack of room
    std::uint64_t undelivered = 0;  // ticks stored but never published: the consumer stopped reading
    std::uint64_t run_ns = 0;       // time spent ticking, from the first tick to seeing stop()
};

// The pacing clock of the real clock thread: the time-stamp counter (tsc_clock.hpp). A pacing
// clock has now(), a count that never goes back, and ticks_per_ns(), its rate.
struct TscPaceClock {
    std::uint64_t now() const noexcept { return now_ticks(); }
    double ticks_per_ns() const noexcept { return native_queue::ticks_per_ns(); }
};

inline void check_queue(const QueueView& queue) {
    if (queue.slots == nullptr || queue.read_limit == nullptr || queue.done == nullptr || queue.size == 0) {
        throw std::invalid_argument("the queue needs slots, read_limit, done and a positive size");
    }
}

inline void check_queue(const std::vector<QueueView>& queues) {
    if (queues.empty()) {
        throw std::invalid_argument("a fan-out needs at least one queue");
    }
    for (const QueueView& queue : queues) {
        check_queue(queue);
    }
}

// Several queues fed in turn, each by a producer of its own: tick i goes to queue i % n as that
// queue's tick i / n, so that every queue's ticks number 0, 1, 2, ... as a lone queue's do and
// its consumer accounts for them as it would (tick j of queue k is the clock's tick j * n + k).
class FanOut {
public:
    using Queues = std::vector<QueueView>;

    explicit FanOut(const Queues& queues) {
        producers_.reserve(queues.size());
        for (const QueueView& queue : queues) {
            producers_.emplace_back(queue);
        }
        emitted_.assign(queues.size(), 0);
        undelivered_.assign(queues.size(), 0);
    }

    void offer(std::uint32_t /*tick: the queue's own number is sent*/) noexcept {
        producers_[next_].offer(static_cast<std::uint32_t>(emitted_[next_]++));
        if (++next_ == producers_.size()) {
            next_ = 0;
        }
    }

    // Finishes every queue by the same deadline; returns the slots never published, over all.
    std::uint64_t finish(std::chrono::steady_clock::time_point deadline) noexcept {
        std::uint64_t undelivered = 0;
        for (std::size_t k = 0; k < producers_.size(); ++k) {
            undelivered_[k] = producers_[k].finish(deadline);
            undelivered += undelivered_[k];
        }
        return undelivered;
    }

    std::uint64_t written() const noexcept { return sum(&QueueProducer::written); }
    std::uint64_t dropped() const noexcept { return sum(&QueueProducer::dropped); }

    // Each queue's counts (after finish); run_ns is the clock thread's.
    std::vector<ProducerStats> per_queue(std::uint64_t run_ns) const {
        std::vector<ProducerStats> stats(producers_.size());
        for (std::size_t k = 0; k < producers_.size(); ++k) {
            stats[k] = {emitted_[k], producers_[k].written(), producers_[k].dropped(), undelivered_[k], run_ns};
        }
        return stats;
    }

private:
    std::uint64_t sum(std::uint64_t (QueueProducer::*count)() const noexcept) const noexcept {
        std::uint64_t total = 0;
        for (const QueueProducer& producer : producers_) {
            total += (producer.*count)();
        }
        return total;
    }

    std::vector<QueueProducer> producers_;
    std::vector<std::uint64_t> emitted_;
    std::vector<std::uint64_t> undelivered_;
    std::size_t next_ = 0;
};

template <class PaceClock, class Output = QueueProducer>
class BasicTickProducer {
public:
    static constexpr std::chrono::milliseconds default_finish_timeout{2000};
    using Queues = typename Output::Queues;

    // Starts the clock thread, pinned to `cpu` unless it is -1. Throws std::invalid_argument
    // for an empty queue or a CPU that does not exist, std::system_error when the thread
    // cannot be created or pinned. The queues' memory must outlive the thread (join()).
    BasicTickProducer(Queues queue, std::uint64_t interval_ns, int cpu = -1,
                      std::chrono::milliseconds finish_timeout = default_finish_timeout, PaceClock clock = {})
        : queue_(std::move(queue)), interval_ns_(interval_ns), cpu_(cpu), finish_timeout_(finish_timeout),
          clock_(clock) {
        check_queue(queue_);
        if (cpu != -1 && !cpu_exists(cpu)) {
            throw std::invalid_argument("producer CPU " + std::to_string(cpu) +
                                        " does not exist; valid: -1 (no pinning) or " + cpu_range_text());
        }
        // Calibrate now rather than on the clock thread's time.
        intervals_per_clock_tick_ =
                interval_ns == 0 ? 0.0 : 1.0 / (static_cast<double>(interval_ns) * clock_.ticks_per_ns());
        std::promise<int> pinned;
        std::future<int> pin_result = pinned.get_future();
        thread_ = std::thread([this, pinned = std::move(pinned)]() mutable { run(pinned); });
        if (const int error = pin_result.get(); error != 0) {
            thread_.join();
            throw std::system_error(error, std::generic_category(),
                                    "cannot pin the producer thread to CPU " + std::to_string(cpu));
        }
    }

    BasicTickProducer(const BasicTickProducer&) = delete;
    BasicTickProducer& operator=(const BasicTickProducer&) = delete;

    ~BasicTickProducer() {
        stop();
        if (thread_.joinable()) {
            thread_.join();
        }
    }

    // Asks the thread to stop ticking and finish the queue; returns at once.
    void stop() noexcept { stop_requested_.store(true, std::memory_order_relaxed); }

    // Waits for the thread, which ends only after stop() and finishing the queue; later
    // calls return the same counts.
    ProducerStats join() {
        if (thread_.joinable()) {
            thread_.join();
        }
        return stats_;
    }

    // A fan-out's counts for each of its queues, after join().
    std::vector<ProducerStats> queue_stats() const
        requires requires(const Output& output) { output.per_queue(0); }
    {
        return queue_stats_;
    }

    // How long ago tick `tick` was due, in ns, read now on the clock thread's own schedule:
    // any thread may call it once it holds that tick (the queue's acquire orders the start
    // before it). 0 when ticks are not paced (interval 0): nothing is ever late.
    std::int64_t lateness_ns(std::uint64_t tick) const noexcept {
        if (interval_ns_ == 0) {
            return 0;
        }
        const double intervals = static_cast<double>(clock_.now() - clock_start_.load(std::memory_order_relaxed)) *
                                 intervals_per_clock_tick_;
        return static_cast<std::int64_t>((intervals - static_cast<double>(tick)) * static_cast<double>(interval_ns_));
    }

private:
    void run(std::promise<int>& pinned) {
        const int pin_error = cpu_ >= 0 ? pin_current_thread(cpu_) : 0;
        pinned.set_value(pin_error);
        if (pin_error != 0) {
            return;
        }
        Output producer(queue_);
        std::uint64_t emitted = 0;
        const auto started = std::chrono::steady_clock::now();
        if (interval_ns_ == 0) {
            while (!stop_requested_.load(std::memory_order_relaxed)) {
                producer.offer(static_cast<std::uint32_t>(emitted++));
            }
        } else {
            // Tick i is due once i intervals have passed since start. Every tick due at a
            // clock read goes out back to back, so the average rate stays exact even when
            // the interval is shorter than a clock read or the thread was preempted.
            // A double counts clock ticks exactly up to 2^53 (weeks of TSC).
            const double intervals_per_clock_tick = intervals_per_clock_tick_;  // a register, not a load per tick
            const PaceClock clock = clock_;
            const std::uint64_t clock_start = clock.now();
            clock_start_.store(clock_start, std::memory_order_relaxed);  // published by the first offer
            while (!stop_requested_.load(std::memory_order_relaxed)) {
                const double intervals = static_cast<double>(clock.now() - clock_start) * intervals_per_clock_tick;
                const std::uint64_t due = static_cast<std::uint64_t>(intervals) + 1;  // ticks 0..due-1 are due
                while (emitted < due) {
                    producer.offer(static_cast<std::uint32_t>(emitted++));
                }
            }
        }
        const auto stopped = std::chrono::steady_clock::now();
        stats_.emitted = emitted;
        stats_.undelivered = producer.finish(stopped + finish_timeout_);
        stats_.written = producer.written();
        stats_.dropped = producer.dropped();
        stats_.run_ns = static_cast<std::uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(stopped - started).count());
        if constexpr (requires { producer.per_queue(0); }) {
            queue_stats_ = producer.per_queue(stats_.run_ns);
        }
    }

    const Queues queue_;
    const std::uint64_t interval_ns_;
    const int cpu_;
    const std::chrono::milliseconds finish_timeout_;
    [[no_unique_address]] const PaceClock clock_;
    double intervals_per_clock_tick_ = 0.0;  // set before the thread starts
    std::atomic<std::uint64_t> clock_start_{0};
    ProducerStats stats_{};  // written by the thread, read after joining it
    std::vector<ProducerStats> queue_stats_;  // a fan-out's, the same
    std::thread thread_;
    // Own cache line: the clock thread polls it every tick.
    alignas(cache_line_bytes) std::atomic<bool> stop_requested_{false};
};

// The clock thread on the TSC.
using TickProducer = BasicTickProducer<TscPaceClock>;
// The clock thread on the TSC feeding several queues in turn.
using FanOutTickProducer = BasicTickProducer<TscPaceClock, FanOut>;

}  // namespace native_queue
