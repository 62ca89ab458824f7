// A clock thread without a thread, for run_realtime's tests: time is a number the test moves
// (the consumer's model advances it by what each packet costs; an idle consumer waits for the
// next tick), and as it moves the ticks due by then are offered into the real dual-array queue,
// tick i at i intervals, back to back when several fell due, as native-queue's TickProducer
// offers them. Everything runs on the test's thread, so a run's accounting follows from its
// script alone, whatever else the machine runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "native_queue/dual_array_queue.hpp"
#include "native_queue/tick_producer.hpp"
#include "runner.hpp"

namespace cpp_engine {

class ScriptedClock {
public:
    explicit ScriptedClock(std::uint64_t interval_ns) : interval_ns_(interval_ns) {
        if (interval_ns == 0) {
            throw std::invalid_argument("a scripted clock needs a positive interval");
        }
    }

    ScriptedClock(const ScriptedClock&) = delete;
    ScriptedClock& operator=(const ScriptedClock&) = delete;

    // t = 0 on the run's clock: give it to the RunTimeline as its origin.
    Clock::time_point origin() const noexcept { return origin_; }
    Clock::time_point now() const noexcept { return origin_ + std::chrono::nanoseconds(elapsed_ns_); }
    std::uint64_t elapsed_ns() const noexcept { return elapsed_ns_; }

    // Time passes: every tick due by the end of it is offered, unless the producer was stopped.
    void advance(std::uint64_t ns) noexcept {
        elapsed_ns_ += ns;
        offer_due();
    }

    // The tick source for run_realtime's factory argument: the clock's own producer side.
    class Ticks {
    public:
        Ticks(ScriptedClock& clock, native_queue::QueueView queue) : clock_(clock) { clock_.attach(queue); }
        Ticks(const Ticks&) = delete;
        Ticks& operator=(const Ticks&) = delete;
        ~Ticks() { clock_.producer_.reset(); }

        Clock::time_point now() const noexcept { return clock_.now(); }
        std::int64_t lateness_ns(std::uint64_t tick) const noexcept {
            return static_cast<std::int64_t>(clock_.elapsed_ns_ - clock_.start_ns_) -
                   static_cast<std::int64_t>(tick * clock_.interval_ns_);
        }
        void idle() noexcept { clock_.idle(); }
        void stop() noexcept { clock_.stopped_ = true; }
        native_queue::ProducerStats join() const noexcept { return clock_.stats(); }

    private:
        ScriptedClock& clock_;
    };

    auto ticks() {
        return [this](native_queue::QueueView queue) { return Ticks(*this, queue); };
    }

private:
    void attach(native_queue::QueueView queue) {
        producer_.emplace(queue);
        start_ns_ = elapsed_ns_;
        emitted_ = 0;
        stopped_ = false;
        finished_ = false;
        undelivered_ = 0;
        offer_due();  // tick 0 is due at once
    }

    void offer_due() noexcept {
        if (!producer_ || stopped_) {
            return;
        }
        const std::uint64_t due = (elapsed_ns_ - start_ns_) / interval_ns_ + 1;  // ticks 0..due-1
        while (emitted_ < due) {
            producer_->offer(static_cast<std::uint32_t>(emitted_++));
        }
    }

    // The consumer found no batch (so it holds none): a running clock makes it wait for the next
    // tick; a stopped one finishes the queue, publishing what it holds, as TickProducer does.
    void idle() noexcept {
        if (!stopped_) {
            elapsed_ns_ = start_ns_ + emitted_ * interval_ns_;
            offer_due();
        } else if (!finished_) {
            undelivered_ = producer_->finish(std::chrono::steady_clock::now());
            finished_ = true;
        }
    }

    native_queue::ProducerStats stats() const noexcept {
        native_queue::ProducerStats stats;
        stats.emitted = emitted_;
        stats.written = producer_->written();
        stats.dropped = producer_->dropped();
        stats.undelivered = undelivered_;
        stats.run_ns = elapsed_ns_ - start_ns_;
        return stats;
    }

    const std::uint64_t interval_ns_;
    const Clock::time_point origin_ = Clock::now();
    std::uint64_t elapsed_ns_ = 0;
    std::uint64_t start_ns_ = 0;
    std::optional<native_queue::QueueProducer> producer_;
    std::uint64_t emitted_ = 0;
    std::uint64_t undelivered_ = 0;
    bool stopped_ = false;
    bool finished_ = false;
};

}  // namespace cpp_engine
