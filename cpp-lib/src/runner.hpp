// The ways of driving the model: the fill phase (flat out until the FIFO is full and the
// store 99 % occupied), then the timed phase, batch (as fast as possible) or real-time
// (one packet per tick of native-queue's clock thread). The timed phase counts packets,
// reports a period each second through a RunObserver, leaves the warm-up out of the
// measured window and, in the counting build, counts the model's allocations in that
// window (what the observer allocates is not counted). Templates over the model type, so
// the per-packet path is monomorphic.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "engine.hpp"
#include "failure.hpp"
#include "latency_meter.hpp"
#include "alloc_counter.hpp"
#include "case_params.hpp"
#include "native_queue/cpu_affinity.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"
#include "processor.hpp"

namespace cpp_engine {

using Clock = std::chrono::steady_clock;

// Packets between two looks at the clock: rare enough to cost nothing per packet, often
// enough (about every 20 to 500 us) for a precise one-second period.
inline constexpr std::uint64_t check_every = 1024;

// Makes the runs end at their next clock check (from a signal handler: async-signal-safe).
void request_stop(int signal) noexcept;
// The signal that asked the run to stop, or 0.
int stop_signal() noexcept;

inline double seconds_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

// What the fill phase did, on the run's clock (t = 0 at the header record).
struct FillResult {
    std::uint64_t packets = 0;
    double start_s = 0;
    double seconds = 0;
};

// The fill phase did not reach its goal by its deadline, or a signal stopped it.
// A fill phase that did not finish: in time (fill_timeout) or before a signal (interrupted).
class FillError : public RunFailure {
public:
    using RunFailure::RunFailure;
};

// The store slots that make the store "filled": 99 % of stored_count, rounded up.
inline std::uint64_t store_fill_goal(std::uint32_t stored_count) noexcept {
    return (std::uint64_t{stored_count} * 99 + 99) / 100;
}

// Packets per store slot after which a store that stopped growing counts as filled: some
// slots may be out of the source's reach (the counter source's indexes cover only 15 of 20
// slots at case A x 0.02); random slots at 95 % occupancy of a 20-slot store miss every free
// one for 64 x 20 packets (some 80 TCP stores) in under 2 % of runs.
inline constexpr std::uint64_t fill_stall_per_slot = 64;

// Runs a model that has made no packet yet flat out until its FIFO has filled (the
// internal_queue_size-th packet pops the oldest) and at least 99 % of its store's slots
// are occupied, or the FIFO is full and the store has not grown for
// fill_stall_per_slot x stored_count packets. Throws FillError past `deadline` or when a
// stop was requested.
// The dummy strategy waits for its FIFO only: its one packet sits in every slot, and the
// packet it parses is the one it has just filled, so with the counter source it stores
// nothing after its first TCP packet, as the published code's dummy (the index draw
// right after the fill shifts the counter by one, and every later sixth draw is odd).
template <class Model>
FillResult run_fill(Model& model, Clock::time_point origin, Clock::time_point deadline) {
    const Clock::time_point start = Clock::now();
    const Occupancy initial = model.occupancy();
    const std::uint64_t store_goal =
            Model::Strategy::shares_one_packet ? 0 : store_fill_goal(initial.stored_count);
    const std::uint64_t stall_packets = fill_stall_per_slot * initial.stored_count;
    std::uint64_t packets = 0;
    std::uint64_t last_stored = 0;
    std::uint64_t since_growth = 0;
    while (packets < initial.fifo_capacity || (model.occupancy().stored < store_goal && since_growth < stall_packets)) {
        model.step();
        if (const std::uint64_t stored = model.occupancy().stored; stored > last_stored ||
                                                                    packets + 1 < initial.fifo_capacity) {
            last_stored = stored;
            since_growth = 0;
        } else {
            ++since_growth;
        }
        if (++packets % check_every == 0) {
            if (const int signal = stop_signal(); signal != 0) {
                throw FillError(Failure::interrupted,
                                "interrupted by signal " + std::to_string(signal) + " during the fill phase");
            }
            if (Clock::now() > deadline) {
                const Occupancy now = model.occupancy();
                throw FillError(Failure::fill_timeout,
                                "the fill phase did not finish in time (--duration-s + " +
                                        std::to_string(static_cast<long long>(fill_grace_s)) + " s): after " +
                                std::to_string(packets) + " packets the store holds " + std::to_string(now.stored) +
                                " of " + std::to_string(now.stored_count) + " slots (it needs " +
                                std::to_string(store_goal) + ")");
            }
        }
    }
    return {packets, seconds_between(origin, start), seconds_between(start, Clock::now())};
}

struct PeriodStats {
    double t_s = 0;       // end of the period on the run's clock (t = 0 at the header record)
    double period_s = 0;  // its length
    std::uint64_t packets = 0;
    std::uint64_t packets_total = 0;
    std::uint64_t lost = 0;
    std::uint64_t lost_total = 0;
    bool warmup = false;  // the period lies inside the warm-up (the last one ends where it ends)
    std::optional<LatencyPercentiles> latency;  // real-time: the period's sampled packets (none in batch)
};

class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void on_period(const PeriodStats& period) = 0;
};

// What the timed phase measured: everything, and the window after the warm-up.
struct RunTotals {
    double t_s = 0;  // the run's clock at its last check
    std::uint64_t packets = 0;  // in the timed phase
    std::uint64_t lost = 0;
    std::uint64_t measured_packets = 0;
    double measured_s = 0;
    std::uint64_t lost_measured = 0;  // gaps among the ticks due in the window, wherever found
    std::uint64_t measured_allocations = 0;
    std::optional<double> measured_cpu_s;  // the process's CPU time (user + sys, every thread) in the window
    // each of the run's own threads' CPU time in the window (the processing thread's, or each of a threaded
    // run's; -1 where its clock cannot be read); empty when the window did not close
    std::vector<double> thread_cpu_s;
    std::optional<double> timed_start_s;
    std::optional<double> window_start_s;
    std::optional<Occupancy> at_window;  // the FIFO and the store when the window opened
    std::optional<LatencySummary> latency;  // real-time: the window's metered latency
    int stop_signal = 0;  // the run was interrupted by this signal
};

// The timed phase's clock: one-second periods, the warm-up boundary, the end, and the
// counters at each (packets, ticks lost, this thread's allocations net of the observer's
// own). Times are on the run's clock, whose t = 0 is `origin` (the header record); the
// duration, the warm-up and the periods count from start().
class RunTimeline {
public:
    RunTimeline(double duration_s, double warmup_s, RunObserver& observer, Clock::time_point origin);

    // The timed phase starts now. `occupancy` is read when the measured window opens.
    void start(Clock::time_point now, std::function<Occupancy()> occupancy);

    // A look at the clock with the current counters; true when the run must end (the
    // duration is over or a stop was requested). Emits the periods that are due.
    bool check(Clock::time_point now, std::uint64_t packets, std::uint64_t lost, std::uint64_t window_lost);

    // Counters after the end (real-time: the ticks drained after stopping the clock), with the
    // gaps among the ticks due in the window (WindowTicks): those found draining count too.
    void set_final_counts(std::uint64_t packets, std::uint64_t lost, std::uint64_t window_lost) noexcept;

    // The allocations counted come from `allocations` instead of the calling thread's counter: a
    // threaded run's, whose worker threads publish their own with their packet counts.
    void count_allocations_with(std::function<std::uint64_t()> allocations) { allocations_ = std::move(allocations); }

    // The CPU time of the run's own threads is read by `read` (a threaded run's: each thread's CPU clock) instead
    // of the calling thread's. It fills its vector in place: read in the window, it allocates nothing.
    void count_thread_cpu_with(std::function<void(std::vector<double>&)> read) { thread_cpu_ = std::move(read); }

    // When the window starts: the warm-up's planned end.
    Clock::time_point window_start() const noexcept { return warmup_end_; }

    // The run's figures as of the last check and the final counts (zero if it never started).
    RunTotals totals() const;

    // A real-time run's latency meter, made on the first call: each period then reports it.
    LatencyMeter& latency();

private:
    struct Mark {
        Clock::time_point time;
        std::uint64_t packets = 0;
        std::uint64_t lost = 0;
        std::uint64_t allocations = 0;
        std::optional<double> cpu_s;  // the process's CPU time so far
    };

    Mark mark(Clock::time_point now, std::uint64_t packets, std::uint64_t lost) const noexcept;
    void emit_period(Clock::time_point now, std::uint64_t packets, std::uint64_t lost, bool warmup);

    void open_window(Clock::time_point now);

    Clock::duration duration_;
    Clock::duration warmup_;
    RunObserver& observer_;
    Clock::time_point origin_;
    std::function<Occupancy()> occupancy_;
    std::optional<Clock::time_point> run_start_;
    Clock::time_point last_check_;
    Clock::time_point warmup_end_;
    Clock::time_point end_;
    Clock::time_point next_period_;
    Mark last_period_;
    std::optional<Mark> measure_start_;
    std::optional<Mark> measure_end_;
    std::optional<Occupancy> at_window_;
    std::optional<LatencyMeter> latency_;
    std::uint64_t packets_ = 0;
    std::uint64_t lost_ = 0;
    std::uint64_t window_lost_ = 0;
    std::uint64_t observer_allocations_ = 0;
    std::function<std::uint64_t()> allocations_;
    std::function<void(std::vector<double>&)> thread_cpu_;
    std::vector<double> thread_cpu_start_;
    std::vector<double> thread_cpu_end_;
    int stop_signal_ = 0;

    void read_thread_cpu(std::vector<double>& into) const;
};

template <class Model>
void run_batch(Model& model, RunTimeline& timeline) {
    std::uint64_t packets = 0;
    timeline.start(Clock::now(), [&model] { return model.occupancy(); });
    do {
        for (std::uint64_t i = 0; i < check_every; ++i) {
            model.step();
        }
        packets += check_every;
    } while (!timeline.check(Clock::now(), packets, 0, 0));
}

// The ticks of the measured window: those due from its start, whenever the consumer takes them
// or finds them missing, so that a pause straddling the start loses for the window only what
// was due in it.
class WindowTicks {
public:
    bool set() const noexcept { return first_ != unset; }

    // The window starts at tick `first` (widened), the first one due in it.
    void set_start(std::uint64_t first) noexcept { first_ = first; }

    // A tick was taken after `missing` gaps, the next expected tick having been `expected`.
    void count(std::uint64_t expected, std::uint64_t missing) noexcept {
        if (missing != 0 && expected + missing > first_) {
            lost_ += expected + missing - std::max(expected, first_);
        }
    }

    bool contains(std::uint64_t tick) const noexcept { return tick >= first_; }
    std::uint64_t lost() const noexcept { return lost_; }

private:
    static constexpr std::uint64_t unset = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t first_ = unset;
    std::uint64_t lost_ = 0;
};

struct RealtimeConfig {
    std::uint64_t interval_ns = 0;
    int producer_cpu = -1;  // -1: not pinned
    int consumer_cpu = -1;
    std::uint32_t queue_size = 0;  // slots per array; 0: 100 ms of ticks (MAX_CAPTURING_DELAY_MS)
};

// Both sides' counts of a real-time run. Exact accounting means
// gaps + trailing_dropped == dropped and received + dropped + undelivered == emitted.
struct TickAccounting {
    std::uint32_t queue_size = 0;  // slots per array
    std::uint64_t emitted = 0;
    std::uint64_t written = 0;
    std::uint64_t dropped = 0;
    std::uint64_t undelivered = 0;
    std::uint64_t received = 0;
    std::uint64_t gaps = 0;
    std::int64_t trailing_dropped = 0;
    std::uint64_t out_of_order = 0;

    bool balanced() const noexcept {
        return out_of_order == 0 && trailing_dropped >= 0 &&
               gaps + static_cast<std::uint64_t>(trailing_dropped) == dropped &&
               received + dropped + undelivered == emitted;
    }

    std::string describe() const;
};

// Pins the calling thread to `cpu` (unless -1) and restores its previous affinity.
class ScopedCpuPin {
public:
    explicit ScopedCpuPin(int cpu);
    ScopedCpuPin(const ScopedCpuPin&) = delete;
    ScopedCpuPin& operator=(const ScopedCpuPin&) = delete;
    ~ScopedCpuPin();

private:
    cpu_set_t saved_{};
    bool pinned_ = false;
};

// How long the consumer keeps draining after stopping the clock thread; the producer
// itself gives up on a consumer after native_queue's finish timeout (2 s).
inline constexpr std::chrono::seconds drain_timeout{10};

// Where a real-time run's ticks and time come from: native-queue's clock thread, and the steady
// clock. run_realtime takes its tick source from a factory, so that a test can give one of its
// own that emits the ticks on the consumer's thread, on a clock it moves itself (a template
// argument: the measured path calls these members inline).
class ClockThreadTicks {
public:
    ClockThreadTicks(native_queue::QueueView queue, const RealtimeConfig& config)
        : producer_(queue, config.interval_ns, config.producer_cpu) {}

    static Clock::time_point now() noexcept { return Clock::now(); }
    std::int64_t lateness_ns(std::uint64_t tick) const noexcept { return producer_.lateness_ns(tick); }
    // The consumer found no batch: it polls again at once, the clock thread runs on its own.
    void idle() noexcept {}
    void stop() noexcept { producer_.stop(); }
    native_queue::ProducerStats join() { return producer_.join(); }

private:
    native_queue::TickProducer producer_;
};

// Runs the timed phase on the ticks of `make_ticks(queue)`, a tick source with the members of
// ClockThreadTicks, made after the queue and the consumer's pinning.
template <class Model, class MakeTicks>
TickAccounting run_realtime(Model& model, const RealtimeConfig& config, RunTimeline& timeline,
                            MakeTicks&& make_ticks) {
    native_queue::OwnedQueue queue(config.queue_size != 0
                                           ? config.queue_size
                                           : native_queue::capacity_for(max_capturing_delay_ms, config.interval_ns));
    const ScopedCpuPin pin(config.consumer_cpu);
    native_queue::QueueConsumer consumer(queue.view());
    native_queue::SequenceTracker tracker;
    LatencyMeter& latency = timeline.latency();
    std::uint64_t packets = 0;
    bool ending = false;
    // Made after the queue: on every exit path the clock thread is stopped and joined before
    // the queue's memory goes.
    auto ticks = make_ticks(queue.view());
    WindowTicks window;
    auto check = [&] {
        const Clock::time_point now = ticks.now();
        if (!window.set() && tracker.received() != 0) {
            // The producer's schedule starts with its first tick: tick k is due k intervals later.
            const std::int64_t since_tick0 =
                    ticks.lateness_ns(0) - std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   now - timeline.window_start()).count();
            const auto interval = static_cast<std::int64_t>(config.interval_ns);
            window.set_start(interval == 0 ? tracker.covered()
                                           : static_cast<std::uint64_t>(std::max<std::int64_t>(
                                                     0, (since_tick0 + interval - 1) / interval)));
        }
        return timeline.check(now, packets, tracker.gaps(), window.lost());
    };
    auto on_tick = [&](std::uint32_t seq) {
        const std::uint64_t expected = tracker.covered();
        window.count(expected, tracker.accept(seq));
        model.step();
        if (++packets % latency_sample_every == 0) {
            const std::uint64_t tick = tracker.covered() - 1;
            latency.record(ticks.lateness_ns(tick), window.contains(tick));
        }
        if (packets % check_every == 0 && !ending) {
            ending = check();
        }
    };
    timeline.start(ticks.now(), [&model] { return model.occupancy(); });
    while (!ending) {
        if (consumer.poll(on_tick) == 0) {
            ending = check();
            if (!ending) {
                ticks.idle();
            }
        }
    }
    ticks.stop();
    const Clock::time_point deadline = ticks.now() + drain_timeout;
    while (!consumer.finished()) {
        if (consumer.poll(on_tick) == 0) {
            if (ticks.now() > deadline) {
                throw std::runtime_error("the tick producer did not finish within 10 s of being stopped");
            }
            ticks.idle();
        }
    }
    const native_queue::ProducerStats stats = ticks.join();
    timeline.set_final_counts(packets, tracker.gaps(), window.lost());
    return {queue.size(),
            stats.emitted,
            stats.written,
            stats.dropped,
            stats.undelivered,
            tracker.received(),
            tracker.gaps(),
            tracker.trailing_dropped(stats.emitted, stats.undelivered),
            tracker.out_of_order()};
}

// The timed phase on native-queue's clock thread.
template <class Model>
TickAccounting run_realtime(Model& model, const RealtimeConfig& config, RunTimeline& timeline) {
    return run_realtime(model, config, timeline,
                        [&config](native_queue::QueueView queue) { return ClockThreadTicks(queue, config); });
}

}  // namespace cpp_engine
