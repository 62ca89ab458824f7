// A pacing clock that the test moves, for BasicTickProducer: one clock tick per ns, and a count
// of its reads, so the test knows when the clock thread has acted on a time it set (the thread
// reads the clock, emits every tick then due, and reads it again). What the thread emits then
// follows from the times the test sets, however the two threads are scheduled.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "native_queue/tick_producer.hpp"

namespace native_queue_test {

class ManualTime {
public:
    // Waits until the clock thread has read the clock twice: it has taken the time it started
    // at (0 unless set before) and emitted tick 0.
    void wait_started() const noexcept { wait_reads(2); }

    // Sets the time to `ns` and waits until the clock thread has emitted every tick due by then.
    void settle_at(std::uint64_t ns) noexcept {
        now_.store(ns);
        wait_reads(reads_.load() + 2);  // the first read after the store sees it, the second follows its ticks
    }

    std::uint64_t now() noexcept {
        reads_.fetch_add(1);
        return now_.load();
    }

private:
    void wait_reads(std::uint64_t reads) const noexcept {
        while (reads_.load() < reads) {
            std::this_thread::yield();
        }
    }

    std::atomic<std::uint64_t> now_{0};
    std::atomic<std::uint64_t> reads_{0};
};

struct ManualPaceClock {
    ManualTime* time;
    std::uint64_t now() const noexcept { return time->now(); }
    static double ticks_per_ns() noexcept { return 1.0; }
};

using ManualTickProducer = native_queue::BasicTickProducer<ManualPaceClock>;

}  // namespace native_queue_test
