// The model run by N processing threads (--threads N), as java-lib's ThreadedBatch: the
// multi-threaded message processor the 2019 article left for later. Each thread has its own
// model (its share of the case: FIFO, store and, except shared-pool, pool) and processes its
// own packets, so that the live set stays the case's whatever N; a packet never leaves the
// thread that made it. Allocation goes through the allocator's per-thread caches (glibc's
// tcache and arenas, jemalloc's, mimalloc's and tcmalloc's own).
//
// Batch: each thread makes packets as fast as it can. Real time: one clock thread feeds the
// threads' input queues in turn (native_queue::FanOut: tick i to thread i % N), each thread
// consuming its own queue as the one-thread loop does (runner.hpp's run_realtime), pinned to
// a CPU of its own, its queue holding the capture delay of its own ticks. Its loss and its
// latency are counted on its own queue's ticks; the run's are their sums.
//
// A thread fills its model and then runs it, so the memory it frees is the memory it took.
// The calling thread only watches: every poll_interval it sums the counts the threads publish
// (packets, lost ticks and, in the counting build, allocations) and gives them to the
// RunTimeline, whose times per packet the records multiply by N (thread time). When the time
// is up the threads stop (real time: the clock stops and each drains its queue) and park,
// alive, until the ThreadedRun is destroyed, so that their models can be read.
//
// A thread that fails (an exhausted pool, a double release, a fill that does not finish)
// stops them all and its error is the run's.
#pragma once

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "failure.hpp"
#include "latency_meter.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"
#include "runner.hpp"

namespace cpp_engine {

inline constexpr std::chrono::milliseconds poll_interval{5};

// The first tick of queue k (of n fed in turn) in the measured window, given how long after the
// clock's tick 0 was due the window starts: the clock's first tick due in the window is
// ceil(since_tick0 / interval), and queue k's tick j is the clock's tick j * n + k.
inline std::uint64_t first_window_tick(std::int64_t since_tick0_ns, std::uint64_t interval_ns, std::uint64_t k,
                                       std::uint64_t n) {
    const auto interval = static_cast<std::int64_t>(interval_ns);
    const auto clock_tick = static_cast<std::uint64_t>(std::max<std::int64_t>(0, (since_tick0_ns + interval - 1) / interval));
    return clock_tick <= k ? 0 : (clock_tick - k + n - 1) / n;
}

template <class Model>
class ThreadedRun {
public:
    // The models, one per thread, stay the caller's and must outlive this.
    explicit ThreadedRun(const std::vector<std::unique_ptr<Model>>& models)
        : models_(models), slots_(models.size()), filled_(static_cast<std::ptrdiff_t>(models.size())) {}

    ThreadedRun(const ThreadedRun&) = delete;
    ThreadedRun& operator=(const ThreadedRun&) = delete;

    // Lets the threads end and waits for them (on every path, a failed one included).
    ~ThreadedRun() {
        stop_.store(true);
        if (realtime_ && realtime_->producer) {
            realtime_->producer->stop();
        }
        set_phase(Phase::exit);
        for (std::thread& thread : threads_) {
            thread.join();
        }
    }

    // Starts the threads, each filling its model (run_fill); returns when all have, with
    // every thread's packets and the phase's wall time; throws the first thread's error.
    FillResult fill(Clock::time_point origin, Clock::time_point deadline) {
        const Clock::time_point start = Clock::now();
        for (std::size_t i = 0; i < models_.size(); ++i) {
            threads_.emplace_back([this, i, origin, deadline] { work(i, origin, deadline); });
        }
        filled_.wait();
        rethrow();
        std::uint64_t packets = 0;
        for (const Slot& slot : slots_) {
            packets += slot.fill_packets;
        }
        return {packets, seconds_between(origin, start), seconds_between(start, Clock::now())};
    }

    // The batch timed phase: the threads run until the timeline says the time is up, then park.
    void run(RunTimeline& timeline) {
        timeline.count_allocations_with([this] { return seen_.allocations; });
        timeline.count_thread_cpu_with([this](std::vector<double>& into) { read_cpu(into); });
        timeline.start(Clock::now(), [this] { return occupancy(); });
        set_phase(Phase::go);
        watch(timeline);
        stop_.store(true);
        wait_parked(std::nullopt);
        rethrow();
    }

    // The real-time timed phase: the clock feeds the threads' queues until the timeline says the
    // time is up; then it stops, each thread drains its queue, and the accounts of every queue,
    // summed, are the run's (each queue's must balance on its own: else the run fails).
    TickAccounting run_realtime(const RealtimeConfig& config, RunTimeline& timeline) {
        const std::size_t n = models_.size();
        realtime_ = std::make_unique<Realtime>();
        Realtime& rt = *realtime_;
        rt.interval_ns = config.interval_ns;
        rt.first_consumer_cpu = config.consumer_cpu;
        const std::uint32_t size = config.queue_size != 0
                                           ? config.queue_size
                                           : native_queue::capacity_for(max_capturing_delay_ms, config.interval_ns * n);
        std::vector<native_queue::QueueView> views;
        for (std::size_t k = 0; k < n; ++k) {
            rt.queues.push_back(std::make_unique<native_queue::OwnedQueue>(size));
            rt.latency.push_back(std::make_unique<LatencyRecorder>());
            views.push_back(rt.queues.back()->view());
        }
        LatencyMeter& latency = timeline.latency();
        timeline.count_allocations_with([this] { return seen_.allocations; });
        timeline.count_thread_cpu_with([this](std::vector<double>& into) { read_cpu(into); });
        rt.producer.emplace(views, config.interval_ns, config.producer_cpu);
        timeline.start(Clock::now(), [this] { return occupancy(); });
        rt.window_start = timeline.window_start();
        set_phase(Phase::go);
        watch(timeline, &latency);
        rt.producer->stop();
        wait_parked(Clock::now() + drain_timeout);
        const native_queue::ProducerStats all = rt.producer->join();
        rethrow();
        for (const auto& recorder : rt.latency) {
            recorder->drain_into(latency);
        }
        const std::vector<native_queue::ProducerStats> each = rt.producer->queue_stats();
        TickAccounting sum{size};
        Counts counts;
        for (std::size_t k = 0; k < n; ++k) {
            const native_queue::SequenceTracker& tracker = slots_[k].tracker;
            const TickAccounting one{size, each[k].emitted, each[k].written, each[k].dropped, each[k].undelivered,
                                     tracker.received(), tracker.gaps(),
                                     tracker.trailing_dropped(each[k].emitted, each[k].undelivered),
                                     tracker.out_of_order()};
            if (!one.balanced()) {
                throw RunFailure(Failure::tick_imbalance, "tick accounting of thread " + std::to_string(k) +
                                         "'s queue does not balance: " + one.describe());
            }
            sum.emitted += one.emitted;
            sum.written += one.written;
            sum.dropped += one.dropped;
            sum.undelivered += one.undelivered;
            sum.received += one.received;
            sum.gaps += one.gaps;
            sum.trailing_dropped += one.trailing_dropped;
            const Counts last = slots_[k].read();
            counts.packets += last.packets;
            counts.window_lost += last.window_lost;
        }
        if (sum.emitted != all.emitted) {
            throw RunFailure(Failure::tick_imbalance, "the queues' ticks (" + std::to_string(sum.emitted) + ") are not the clock's (" +
                                     std::to_string(all.emitted) + ")");
        }
        timeline.set_final_counts(counts.packets, sum.gaps, counts.window_lost);
        return sum;
    }

    // The packets of the timed phase made by the slowest thread, times N, over all threads'
    // (1: an even split); null before any packet.
    std::optional<double> smallest_share() const {
        const std::uint64_t all = total_counts().packets;
        if (all == 0) {
            return std::nullopt;
        }
        std::uint64_t least = all;
        for (const Slot& slot : slots_) {
            least = std::min(least, slot.read().packets);
        }
        return static_cast<double>(least) * static_cast<double>(slots_.size()) / static_cast<double>(all);
    }

private:
    enum class Phase : int { fill, go, exit };

    // Each thread's CPU time so far in seconds (its CPU clock, read from this thread), -1 where unreadable.
    void read_cpu(std::vector<double>& into) const {
        into.resize(threads_.size());
        for (std::size_t i = 0; i < threads_.size(); ++i) {
            clockid_t clock{};
            timespec cpu{};
            into[i] = pthread_getcpuclockid(const_cast<std::thread&>(threads_[i]).native_handle(), &clock) == 0 &&
                                      clock_gettime(clock, &cpu) == 0
                              ? static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9
                              : -1.0;
        }
    }

    // A thread's counts since the timed phase began, published together (a sequence lock: the
    // reader takes a set written at one moment, so that allocations per packet are exact over
    // any window).
    struct Counts {
        std::uint64_t packets = 0;
        std::uint64_t allocations = 0;  // the thread's own, in the counting build (else 0)
        std::uint64_t lost = 0;         // real time: the gaps in its queue's ticks
        std::uint64_t window_lost = 0;  // of those, the ticks due in the measured window
    };

    // What a thread publishes, a cache line (and more) apart from its neighbours'.
    struct alignas(128) Slot {
        std::atomic<std::uint64_t> sequence{0};  // odd while the thread writes
        std::atomic<std::uint64_t> packets{0};
        std::atomic<std::uint64_t> allocations{0};
        std::atomic<std::uint64_t> lost{0};
        std::atomic<std::uint64_t> window_lost{0};
        std::atomic<std::uint64_t> stored{0};
        std::uint64_t fill_packets = 0;
        Occupancy at_fill;
        native_queue::SequenceTracker tracker;  // real time: its queue's, read after the thread parks

        void publish(Counts counts) noexcept {
            const std::uint64_t next = sequence.load(std::memory_order_relaxed) + 1;
            sequence.store(next, std::memory_order_relaxed);
            std::atomic_thread_fence(std::memory_order_release);
            packets.store(counts.packets, std::memory_order_relaxed);
            allocations.store(counts.allocations, std::memory_order_relaxed);
            lost.store(counts.lost, std::memory_order_relaxed);
            window_lost.store(counts.window_lost, std::memory_order_relaxed);
            sequence.store(next + 1, std::memory_order_release);
        }

        Counts read() const noexcept {
            for (;;) {
                const std::uint64_t before = sequence.load(std::memory_order_acquire);
                const Counts counts{packets.load(std::memory_order_relaxed), allocations.load(std::memory_order_relaxed),
                                    lost.load(std::memory_order_relaxed), window_lost.load(std::memory_order_relaxed)};
                std::atomic_thread_fence(std::memory_order_acquire);
                if (before % 2 == 0 && sequence.load(std::memory_order_relaxed) == before) {
                    return counts;
                }
            }
        }
    };

    // A real-time run's queues, clock and latency recorders, set up before the threads go.
    struct Realtime {
        std::uint64_t interval_ns = 0;
        int first_consumer_cpu = -1;  // thread k on this + k; -1: not pinned
        Clock::time_point window_start;
        std::vector<std::unique_ptr<native_queue::OwnedQueue>> queues;
        std::vector<std::unique_ptr<LatencyRecorder>> latency;
        std::optional<native_queue::FanOutTickProducer> producer;
    };

    void work(std::size_t index, Clock::time_point origin, Clock::time_point deadline) {
        Model& model = *models_[index];
        Slot& slot = slots_[index];
        try {
            slot.fill_packets = run_fill(model, origin, deadline).packets;
            slot.at_fill = model.occupancy();
            slot.stored.store(slot.at_fill.stored, std::memory_order_release);
        } catch (...) {
            fail(std::current_exception());
        }
        filled_.count_down();
        phase_.wait(Phase::fill);
        if (phase_.load() == Phase::go) {
            try {
                if (realtime_) {
                    consume(index, model, slot);
                } else {
                    make(model, slot);
                }
            } catch (...) {
                fail(std::current_exception());
            }
        }
        parked_.fetch_add(1);
        while (phase_.load() != Phase::exit) {
            phase_.wait(Phase::go);
        }
    }

    // Batch: packets as fast as the thread makes them, until told to stop.
    void make(Model& model, Slot& slot) {
        std::uint64_t made = 0;
        const std::uint64_t allocations_at_go = alloc_counter::this_thread().allocations;
        while (!stop_.load(std::memory_order_relaxed)) {
            for (std::uint64_t i = 0; i < check_every; ++i) {
                model.step();
            }
            made += check_every;
            slot.publish({made, alloc_counter::this_thread().allocations - allocations_at_go, 0, 0});
            slot.stored.store(model.occupancy().stored, std::memory_order_release);
        }
    }

    // Real time: a packet per tick of the thread's own queue, until the clock has stopped and
    // the queue is drained (or the run failed).
    void consume(std::size_t index, Model& model, Slot& slot) {
        Realtime& rt = *realtime_;
        const std::size_t n = models_.size();
        const ScopedCpuPin pin(rt.first_consumer_cpu < 0 ? -1 : rt.first_consumer_cpu + static_cast<int>(index));
        native_queue::QueueConsumer consumer(rt.queues[index]->view());
        native_queue::SequenceTracker& tracker = slot.tracker;
        LatencyRecorder& latency = *rt.latency[index];
        const native_queue::FanOutTickProducer& clock = *rt.producer;
        WindowTicks window;
        std::uint64_t packets = 0;
        const std::uint64_t allocations_at_go = alloc_counter::this_thread().allocations;
        auto publish = [&] {
            if (!window.set() && tracker.received() != 0) {
                const std::int64_t since_tick0 =
                        clock.lateness_ns(0) -
                        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - rt.window_start).count();
                window.set_start(first_window_tick(since_tick0, rt.interval_ns, index, n));
            }
            slot.publish({packets, alloc_counter::this_thread().allocations - allocations_at_go, tracker.gaps(),
                          window.lost()});
            slot.stored.store(model.occupancy().stored, std::memory_order_release);
        };
        auto on_tick = [&](std::uint32_t seq) {
            const std::uint64_t expected = tracker.covered();
            window.count(expected, tracker.accept(seq));
            model.step();
            if (++packets % latency_sample_every == 0) {
                const std::uint64_t tick = tracker.covered() - 1;
                latency.record(clock.lateness_ns(tick * n + index), window.contains(tick));
            }
            if (packets % check_every == 0) {
                publish();
            }
        };
        while (!stop_.load(std::memory_order_relaxed)) {
            if (consumer.poll(on_tick) == 0) {
                publish();
                if (consumer.finished()) {
                    break;
                }
            }
        }
    }

    // The calling thread's watch over the timed phase: every poll_interval, the threads' counts
    // (and, in real time, their latency samples) to the timeline, until it says the time is up.
    void watch(RunTimeline& timeline, LatencyMeter* latency = nullptr) {
        while (!failed_.load()) {
            std::this_thread::sleep_for(poll_interval);
            if (latency != nullptr) {
                for (const auto& recorder : realtime_->latency) {
                    recorder->drain_into(*latency);
                }
            }
            seen_ = total_counts();
            if (timeline.check(Clock::now(), seen_.packets, seen_.lost, seen_.window_lost)) {
                break;
            }
        }
    }

    // Until every thread has parked; past `deadline` the threads are told to stop, and the run fails.
    void wait_parked(std::optional<Clock::time_point> deadline) {
        while (parked_.load() < models_.size()) {
            if (deadline && Clock::now() > *deadline && !stop_.load()) {
                fail(std::make_exception_ptr(std::runtime_error(
                        "the consumer threads did not drain their queues within 10 s of the clock stopping")));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    void set_phase(Phase phase) {
        phase_.store(phase);
        phase_.notify_all();
    }

    void fail(std::exception_ptr error) {
        {
            const std::lock_guard lock(failure_mutex_);
            if (!failure_) {
                failure_ = error;
            }
        }
        failed_.store(true);
        stop_.store(true);
    }

    void rethrow() {
        const std::lock_guard lock(failure_mutex_);
        if (failure_) {
            std::rethrow_exception(failure_);
        }
    }

    // Every thread's published counts, summed.
    Counts total_counts() const {
        Counts all;
        for (const Slot& slot : slots_) {
            const Counts one = slot.read();
            all.packets += one.packets;
            all.allocations += one.allocations;
            all.lost += one.lost;
            all.window_lost += one.window_lost;
        }
        return all;
    }

    // Every thread's FIFO and store together, as they last published them.
    Occupancy occupancy() const {
        Occupancy all;
        for (const Slot& slot : slots_) {
            all.fifo_size += slot.at_fill.fifo_size;
            all.fifo_capacity += slot.at_fill.fifo_capacity;
            all.stored += slot.stored.load(std::memory_order_acquire);
            all.stored_count += slot.at_fill.stored_count;
        }
        return all;
    }

    const std::vector<std::unique_ptr<Model>>& models_;
    std::vector<Slot> slots_;
    std::vector<std::thread> threads_;
    std::latch filled_;
    std::atomic<std::size_t> parked_{0};
    std::atomic<Phase> phase_{Phase::fill};
    std::atomic<bool> stop_{false};
    std::atomic<bool> failed_{false};
    std::mutex failure_mutex_;
    std::exception_ptr failure_;
    std::unique_ptr<Realtime> realtime_;  // set before the threads go, in real time only
    Counts seen_;  // the calling thread's last look at the counts
};

}  // namespace cpp_engine
