// Batch mode with N processing threads (--threads N), as java-lib's ThreadedBatch: the
// multi-threaded message processor the 2019 article left for later. Each thread has its own
// model (its share of the case: FIFO, store and, except shared-pool, pool) and makes and
// processes its own packets, so that the live set stays the case's whatever N; a packet
// never leaves the thread that made it. Allocation goes through the allocator's per-thread
// caches (glibc's tcache and arenas, jemalloc's, mimalloc's and tcmalloc's own).
//
// A thread fills its model and then runs it, so the memory it frees is the memory it took.
// The calling thread only watches: every poll_interval it sums the packet counts (and, in the
// counting build, the allocation counts) the threads publish every check_every packets and
// gives them to the RunTimeline, whose times per packet the records multiply by N (thread time). When the time is up the threads stop and
// park, alive, until the ThreadedBatch is destroyed, so that their models can be read.
//
// A thread that fails (an exhausted pool, a double release, a fill that does not finish)
// stops them all and its error is the run's.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "runner.hpp"

namespace cpp_engine {

inline constexpr std::chrono::milliseconds poll_interval{5};

template <class Model>
class ThreadedBatch {
public:
    // The models, one per thread, stay the caller's and must outlive this.
    explicit ThreadedBatch(const std::vector<std::unique_ptr<Model>>& models)
        : models_(models), slots_(models.size()), filled_(static_cast<std::ptrdiff_t>(models.size())),
          parked_(static_cast<std::ptrdiff_t>(models.size())) {}

    ThreadedBatch(const ThreadedBatch&) = delete;
    ThreadedBatch& operator=(const ThreadedBatch&) = delete;

    // Lets the threads end and waits for them (on every path, a failed one included).
    ~ThreadedBatch() {
        stop_.store(true);
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

    // The timed phase: the threads run until the timeline says the time is up, then park.
    void run(RunTimeline& timeline) {
        // the snapshot of each look: the timeline's allocations are those of its packets
        timeline.count_allocations_with([this] { return seen_.allocations; });
        timeline.start(Clock::now(), [this] { return occupancy(); });
        set_phase(Phase::go);
        while (!failed_.load()) {
            std::this_thread::sleep_for(poll_interval);
            seen_ = total_counts();
            if (timeline.check(Clock::now(), seen_.packets, 0, 0)) {
                break;
            }
        }
        stop_.store(true);
        parked_.wait();
        rethrow();
    }

    // The packets of the timed phase made by the slowest thread, times N, over all threads'
    // (1: an even split); null before any packet.
    std::optional<double> smallest_share() const {
        const std::uint64_t all = total();
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

    // A thread's packets and allocations since the timed phase began, published together (a
    // sequence lock: the reader takes a pair written at one moment, so that allocations per
    // packet are exact over any window).
    struct Counts {
        std::uint64_t packets = 0;
        std::uint64_t allocations = 0;  // the thread's own, in the counting build (else 0)
    };

    // What a thread publishes, a cache line (and more) apart from its neighbours'.
    struct alignas(128) Slot {
        std::atomic<std::uint64_t> sequence{0};  // odd while the thread writes
        std::atomic<std::uint64_t> packets{0};
        std::atomic<std::uint64_t> allocations{0};
        std::atomic<std::uint64_t> stored{0};
        std::uint64_t fill_packets = 0;
        Occupancy at_fill;

        void publish(Counts counts) noexcept {
            const std::uint64_t next = sequence.load(std::memory_order_relaxed) + 1;
            sequence.store(next, std::memory_order_relaxed);
            std::atomic_thread_fence(std::memory_order_release);
            packets.store(counts.packets, std::memory_order_relaxed);
            allocations.store(counts.allocations, std::memory_order_relaxed);
            sequence.store(next + 1, std::memory_order_release);
        }

        Counts read() const noexcept {
            for (;;) {
                const std::uint64_t before = sequence.load(std::memory_order_acquire);
                const Counts counts{packets.load(std::memory_order_relaxed), allocations.load(std::memory_order_relaxed)};
                std::atomic_thread_fence(std::memory_order_acquire);
                if (before % 2 == 0 && sequence.load(std::memory_order_relaxed) == before) {
                    return counts;
                }
            }
        }
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
        try {
            std::uint64_t made = 0;
            const std::uint64_t allocations_at_go = alloc_counter::this_thread().allocations;
            while (!stop_.load(std::memory_order_relaxed)) {
                for (std::uint64_t i = 0; i < check_every; ++i) {
                    model.step();
                }
                made += check_every;
                slot.publish({made, alloc_counter::this_thread().allocations - allocations_at_go});
                slot.stored.store(model.occupancy().stored, std::memory_order_release);
            }
        } catch (...) {
            fail(std::current_exception());
        }
        parked_.count_down();
        while (phase_.load() != Phase::exit) {
            phase_.wait(Phase::go);
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
        }
        return all;
    }

    std::uint64_t total() const { return total_counts().packets; }

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
    std::latch parked_;
    std::atomic<Phase> phase_{Phase::fill};
    std::atomic<bool> stop_{false};
    std::atomic<bool> failed_{false};
    std::mutex failure_mutex_;
    std::exception_ptr failure_;
    Counts seen_;  // the calling thread's last look at the counts
};

}  // namespace cpp_engine
