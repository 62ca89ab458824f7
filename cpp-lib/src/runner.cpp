// RunTimeline, the stop request, TickAccounting's text and ScopedCpuPin (see runner.hpp).
#include "runner.hpp"

#include <time.h>

#include <atomic>

namespace cpp_engine {

namespace {

std::atomic<int> requested_stop{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

Clock::duration to_duration(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

void request_stop(int signal) noexcept { requested_stop.store(signal, std::memory_order_relaxed); }

int stop_signal() noexcept { return requested_stop.load(std::memory_order_relaxed); }

RunTimeline::RunTimeline(double duration_s, double warmup_s, RunObserver& observer, Clock::time_point origin)
    : duration_(to_duration(duration_s)), warmup_(to_duration(warmup_s)), observer_(observer), origin_(origin) {}

void RunTimeline::start(Clock::time_point now, std::function<Occupancy()> occupancy) {
    occupancy_ = std::move(occupancy);
    run_start_ = now;
    last_check_ = now;
    warmup_end_ = now + warmup_;
    end_ = now + duration_;
    next_period_ = now + std::chrono::seconds(1);
    // sized before the first mark (a window may open with it), so that reading them in the window allocates nothing
    read_thread_cpu(thread_cpu_start_);
    thread_cpu_end_ = thread_cpu_start_;
    last_period_ = mark(now, 0, 0);
    if (warmup_ == Clock::duration::zero()) {
        open_window(now);
    }
}

void RunTimeline::open_window(Clock::time_point now) {
    measure_start_ = last_period_;
    read_thread_cpu(thread_cpu_start_);
    at_window_ = occupancy_();
    next_period_ = now + std::chrono::seconds(1);
}

namespace {

std::optional<double> process_cpu_s() noexcept {
    timespec cpu{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) != 0) {
        return std::nullopt;
    }
    return static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9;
}

}  // namespace

// The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID), -1 where it cannot be read.
static double this_thread_cpu_s() noexcept {
    timespec cpu{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) != 0) {
        return -1;
    }
    return static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9;
}

void RunTimeline::read_thread_cpu(std::vector<double>& into) const {
    if (thread_cpu_) {
        thread_cpu_(into);
    } else {
        into.resize(1);
        into[0] = this_thread_cpu_s();
    }
}

RunTimeline::Mark RunTimeline::mark(Clock::time_point now, std::uint64_t packets, std::uint64_t lost) const noexcept {
    const std::uint64_t allocations = allocations_ ? allocations_()
                                                   : alloc_counter::this_thread().allocations - observer_allocations_;
    return {now, packets, lost, allocations, process_cpu_s()};
}

bool RunTimeline::check(Clock::time_point now, std::uint64_t packets, std::uint64_t lost,
                        std::uint64_t window_lost) {
    last_check_ = now;
    packets_ = packets;
    lost_ = lost;
    window_lost_ = window_lost;
    stop_signal_ = stop_signal();
    const bool done = now >= end_ || stop_signal_ != 0;
    if (!measure_start_ && now >= warmup_end_) {
        // A period closes the warm-up, and the one-second grid restarts here, so that
        // every period lies wholly inside or wholly after the warm-up.
        emit_period(now, packets, lost, true);
        open_window(now);
    } else if (done || now >= next_period_) {
        emit_period(now, packets, lost, !measure_start_);
        while (next_period_ <= now) {
            next_period_ += std::chrono::seconds(1);
        }
    }
    if (done && measure_start_) {
        measure_end_ = last_period_;
        read_thread_cpu(thread_cpu_end_);
    }
    return done;
}

void RunTimeline::emit_period(Clock::time_point now, std::uint64_t packets, std::uint64_t lost, bool warmup) {
    const PeriodStats period{seconds_between(origin_, now),
                             seconds_between(last_period_.time, now),
                             packets - last_period_.packets,
                             packets,
                             lost - last_period_.lost,
                             lost,
                             warmup,
                             latency_ ? latency_->end_period() : std::nullopt};
    last_period_ = mark(now, packets, lost);
    const std::uint64_t before = alloc_counter::this_thread().allocations;
    observer_.on_period(period);
    observer_allocations_ += alloc_counter::this_thread().allocations - before;
}

void RunTimeline::set_final_counts(std::uint64_t packets, std::uint64_t lost, std::uint64_t window_lost) noexcept {
    packets_ = packets;
    lost_ = lost;
    window_lost_ = window_lost;
}

RunTotals RunTimeline::totals() const {
    RunTotals totals;
    if (!run_start_) {
        return totals;
    }
    totals.t_s = seconds_between(origin_, last_check_);
    totals.packets = packets_;
    totals.lost = lost_;
    totals.timed_start_s = seconds_between(origin_, *run_start_);
    if (measure_start_) {
        totals.window_start_s = seconds_between(origin_, measure_start_->time);
        totals.at_window = at_window_;
    }
    if (measure_start_ && measure_end_) {
        totals.measured_packets = measure_end_->packets - measure_start_->packets;
        totals.measured_s = seconds_between(measure_start_->time, measure_end_->time);
        totals.lost_measured = window_lost_;
        totals.measured_allocations = measure_end_->allocations - measure_start_->allocations;
        if (measure_start_->cpu_s && measure_end_->cpu_s) {
            totals.measured_cpu_s = *measure_end_->cpu_s - *measure_start_->cpu_s;
        }
        for (std::size_t i = 0; i < thread_cpu_start_.size() && i < thread_cpu_end_.size(); ++i) {
            const bool read = thread_cpu_start_[i] >= 0 && thread_cpu_end_[i] >= 0;
            totals.thread_cpu_s.push_back(read ? thread_cpu_end_[i] - thread_cpu_start_[i] : -1.0);
        }
    }
    if (latency_) {
        totals.latency = latency_->window();
    }
    totals.stop_signal = stop_signal_;
    return totals;
}

LatencyMeter& RunTimeline::latency() {
    if (!latency_) {
        latency_.emplace();
    }
    return *latency_;
}

std::string TickAccounting::describe() const {
    return "emitted " + std::to_string(emitted) + ", written " + std::to_string(written) + ", dropped " +
           std::to_string(dropped) + ", undelivered " + std::to_string(undelivered) + ", received " +
           std::to_string(received) + ", gaps " + std::to_string(gaps) + ", trailing dropped " +
           std::to_string(trailing_dropped) + ", out of order " + std::to_string(out_of_order);
}

ScopedCpuPin::ScopedCpuPin(int cpu) {
    if (cpu < 0) {
        return;
    }
    if (const int error = ::pthread_getaffinity_np(::pthread_self(), sizeof(saved_), &saved_); error != 0) {
        throw std::system_error(error, std::generic_category(), "cannot read the consumer thread's CPU affinity");
    }
    if (const int error = native_queue::pin_current_thread(cpu); error != 0) {
        throw std::system_error(error, std::generic_category(),
                                "cannot pin the consumer thread to CPU " + std::to_string(cpu));
    }
    pinned_ = true;
}

ScopedCpuPin::~ScopedCpuPin() {
    if (pinned_) {
        ::pthread_setaffinity_np(::pthread_self(), sizeof(saved_), &saved_);
    }
}

}  // namespace cpp_engine
