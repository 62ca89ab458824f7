// The dual-array single-producer/single-consumer queue of 32-bit tick numbers.
//
// Two arrays of `size` slots; the producer fills one while the consumer reads the other.
// One shared word, read_limit, hands a whole array over: the producer stores the count
// it wrote (release), the consumer stores 0 when it has read them (release), and each
// side acquire-loads it before touching the slots. So one cache line crosses between
// the cores per batch, not per element. A second word, done, says the producer has
// published its last batch. The queue works over memory it does not own (Java's direct
// buffers); OwnedQueue provides that memory for C++ to C++ use.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace native_queue {

inline constexpr std::size_t cache_line_bytes = 64;

// Eases a spin-wait on the sibling hyper-thread and the memory bus.
inline void cpu_relax() noexcept {
#if defined(__x86_64__)
    _mm_pause();
#endif
}

// The queue's memory: `slots` holds array 0 then array 1, `size` slots each.
// read_limit and done must start at 0 and be 4-byte aligned, ideally in separate cache lines.
struct QueueView {
    std::uint32_t* slots;
    std::uint32_t* read_limit;
    std::uint32_t* done;
    std::uint32_t size;
};

// The producer's side; used by one thread only.
class alignas(cache_line_bytes) QueueProducer {
public:
    using Queues = QueueView;  // what a clock thread writing through it is given (tick_producer.hpp)

    explicit QueueProducer(QueueView queue) noexcept : queue_(queue), current_(queue.slots) {}

    // Stores seq, or counts a drop when the current array is full; then hands the array
    // over if the consumer has given the other one back.
    void offer(std::uint32_t seq) noexcept {
        if (write_index_ < queue_.size) {
            current_[write_index_++] = seq;
            ++written_;
        } else {
            ++dropped_;
        }
        std::atomic_ref<std::uint32_t> read_limit(*queue_.read_limit);
        // Acquire: the consumer's reads of the other array happen before we overwrite it.
        if (read_limit.load(std::memory_order_acquire) == 0 && write_index_ > 0) {
            publish(read_limit);
        }
    }

    // After the last offer: waits until the consumer is free to take the batch in hand
    // (never past `deadline`, so a consumer that stopped reading cannot hang us), publishes
    // it, then sets done. Returns the slots written but never published (0 in a clean run).
    std::uint64_t finish(std::chrono::steady_clock::time_point deadline) noexcept {
        std::uint64_t undelivered = 0;
        if (write_index_ > 0) {
            std::atomic_ref<std::uint32_t> read_limit(*queue_.read_limit);
            while (read_limit.load(std::memory_order_acquire) != 0) {
                if (std::chrono::steady_clock::now() >= deadline) {
                    undelivered = write_index_;
                    break;
                }
                cpu_relax();
            }
            if (undelivered == 0) {
                publish(read_limit);
            }
        }
        // Release: a consumer that acquire-loads done == 1 also sees the last publish.
        std::atomic_ref<std::uint32_t>(*queue_.done).store(1, std::memory_order_release);
        return undelivered;
    }

    std::uint64_t written() const noexcept { return written_; }
    std::uint64_t dropped() const noexcept { return dropped_; }

private:
    void publish(std::atomic_ref<std::uint32_t>& read_limit) noexcept {
        // Release: the plain slot stores above become visible to the consumer's acquire.
        read_limit.store(write_index_, std::memory_order_release);
        array_ ^= 1U;
        current_ = queue_.slots + static_cast<std::size_t>(array_) * queue_.size;
        write_index_ = 0;
    }

    QueueView queue_;
    std::uint32_t* current_;
    std::uint32_t array_ = 0;
    std::uint32_t write_index_ = 0;
    std::uint64_t written_ = 0;
    std::uint64_t dropped_ = 0;
};

// The consumer's side; used by one thread only.
class alignas(cache_line_bytes) QueueConsumer {
public:
    explicit QueueConsumer(QueueView queue) noexcept : queue_(queue) {}

    // Never blocks: if a batch is published, calls on_tick(seq) for each of its slots,
    // gives the array back and returns the batch length; otherwise returns 0.
    template <class F>
    std::size_t poll(F&& on_tick) {
        std::atomic_ref<std::uint32_t> read_limit(*queue_.read_limit);
        const std::uint32_t limit = read_limit.load(std::memory_order_acquire);
        if (limit == 0) {
            return 0;
        }
        const std::uint32_t* batch = queue_.slots + static_cast<std::size_t>(array_) * queue_.size;
        for (std::uint32_t i = 0; i < limit; ++i) {
            on_tick(batch[i]);
        }
        read_limit.store(0, std::memory_order_release);
        array_ ^= 1U;
        return limit;
    }

    // True once the producer has set done and nothing published is left to read.
    // done is loaded first (acquire) so the producer's last publish is visible to the
    // read_limit load after it.
    bool finished() const noexcept {
        return std::atomic_ref<std::uint32_t>(*queue_.done).load(std::memory_order_acquire) == 1 &&
               std::atomic_ref<std::uint32_t>(*queue_.read_limit).load(std::memory_order_acquire) == 0;
    }

private:
    QueueView queue_;
    std::uint32_t array_ = 0;
};

// The shared words, each in its own cache line: read_limit at offset 0, done at 64,
// the layout Java's control buffer has too.
struct alignas(cache_line_bytes) QueueControl {
    std::uint32_t read_limit = 0;
    std::byte read_limit_line[cache_line_bytes - sizeof(std::uint32_t)]{};
    std::uint32_t done = 0;
    std::byte done_line[cache_line_bytes - sizeof(std::uint32_t)]{};
};
static_assert(sizeof(QueueControl) == 2 * cache_line_bytes);
static_assert(offsetof(QueueControl, done) == cache_line_bytes);

// A queue owning its memory, for C++ to C++ use. One run per queue: the shared words
// are not reset.
class OwnedQueue {
public:
    explicit OwnedQueue(std::uint32_t size)
        : size_(checked_size(size)),
          // Value-initialized: touching every page now keeps page faults out of the run.
          slots_(new std::uint32_t[2 * static_cast<std::size_t>(size)]()),
          control_(std::make_unique<QueueControl>()) {}

    QueueView view() noexcept { return {slots_.get(), &control_->read_limit, &control_->done, size_}; }
    std::uint32_t size() const noexcept { return size_; }

private:
    static std::uint32_t checked_size(std::uint32_t size) {
        if (size == 0) {
            throw std::invalid_argument("queue size must be positive");
        }
        return size;
    }

    std::uint32_t size_;
    std::unique_ptr<std::uint32_t[]> slots_;
    std::unique_ptr<QueueControl> control_;
};

// Slots per array that hold `delay_ms` of ticks at `interval_ns` (at least 1):
// the design's MAX_CAPTURING_DELAY_MS sizing, as Java's DualArrayQueue.capacityFor.
inline std::uint32_t capacity_for(std::uint64_t delay_ms, std::uint64_t interval_ns) {
    if (interval_ns == 0) {
        throw std::invalid_argument("interval must be positive");
    }
    constexpr std::uint64_t max_size = INT32_MAX / 8;  // Java's limit: 2 * size ints in one buffer
    const std::uint64_t slots = delay_ms * 1'000'000 / interval_ns;
    return static_cast<std::uint32_t>(slots < 1 ? 1 : (slots > max_size ? max_size : slots));
}

}  // namespace native_queue
