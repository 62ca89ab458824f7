// The packet processor: an internal FIFO that keeps INTERNAL_QUEUE_SIZE packets alive,
// then parsing of the oldest one, and a store of STORED_COUNT TCP packets (a stand-in for
// a TCP stream reconstructor). Non-TCP packets are freed right after parsing; a TCP
// packet replaces the store slot the packet source picks (packet_source.hpp) and the
// packet it replaces is freed. Same rules as java-lib's Processor.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "case_params.hpp"
#include "hot_path.hpp"
#include "packet.hpp"

namespace cpp_engine {

// A fixed ring of pointers: unlike std::queue over std::deque (the original's), it never
// allocates after construction.
template <class T>
class RingFifo {
public:
    explicit RingFifo(std::uint32_t capacity) : slots_(std::make_unique<T[]>(capacity)), capacity_(capacity) {}

    // The caller keeps size() < capacity().
    CPP_ENGINE_HOT void push(T value) noexcept {
        slots_[tail_] = value;
        tail_ = tail_ + 1 == capacity_ ? 0 : tail_ + 1;
        ++size_;
    }

    CPP_ENGINE_HOT T pop() noexcept {
        T value = slots_[head_];
        head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
        --size_;
        return value;
    }

    // The value pushed last; the caller keeps size() > 0.
    T newest() const noexcept { return slots_[tail_ == 0 ? capacity_ - 1 : tail_ - 1]; }

    std::uint32_t size() const noexcept { return size_; }
    std::uint32_t capacity() const noexcept { return capacity_; }

private:
    std::unique_ptr<T[]> slots_;
    std::uint32_t capacity_;
    std::uint32_t head_ = 0;
    std::uint32_t tail_ = 0;
    std::uint32_t size_ = 0;
};

// How full the FIFO and the store are. Between two packets a full FIFO holds
// internal_queue_size - 1 packets: the step that fills it pops the oldest.
struct Occupancy {
    std::uint32_t fifo_size = 0;
    std::uint32_t fifo_capacity = 0;  // internal_queue_size
    std::uint64_t stored = 0;         // occupied store slots
    std::uint32_t stored_count = 0;

    double fifo_fill() const noexcept { return static_cast<double>(fifo_size) / fifo_capacity; }
    double store_fill() const noexcept { return static_cast<double>(stored) / stored_count; }
};

template <class P, class Strategy, class Source>
class Processor {
public:
    Processor(Strategy& strategy, Source& source, const CaseParams& params)
        : strategy_(strategy), source_(source), fifo_(params.internal_queue_size), store_(params.stored_count, nullptr) {}

    Processor(const Processor&) = delete;
    Processor& operator=(const Processor&) = delete;

    // Gives every held packet back, so the strategy can account for (and free) them all.
    ~Processor() {
        while (fifo_.size() != 0) {
            strategy_.release(fifo_.pop());
        }
        for (P*& packet : store_) {
            if (packet != nullptr) {
                strategy_.release(std::exchange(packet, nullptr));
            }
        }
    }

    // Queues a filled packet; once the FIFO is full, processes the oldest one.
    CPP_ENGINE_HOT void accept(P* packet) {
        fifo_.push(packet);
        if (fifo_.size() >= fifo_.capacity()) {
            process(fifo_.pop());
        }
    }

    // Packets held right now: in the FIFO plus in the store.
    std::uint64_t held() const noexcept { return static_cast<std::uint64_t>(fifo_.size()) + stored_; }
    std::uint32_t fifo_size() const noexcept { return fifo_.size(); }
    std::uint64_t stored() const noexcept { return stored_; }
    // The packet in store slot `index` (null when empty), and the packet queued last.
    const P* stored_at(std::uint32_t index) const noexcept { return store_[index]; }
    const P* newest() const noexcept { return fifo_.newest(); }
    Occupancy occupancy() const noexcept {
        return {fifo_.size(), fifo_.capacity(), stored_, static_cast<std::uint32_t>(store_.size())};
    }

private:
    CPP_ENGINE_HOT void process(P* packet) {
        const auto* ip = packet->parse_ip();
        if (ip == nullptr) {
            strategy_.release(packet);
            return;
        }
        if (ip->transport_protocol() == tcp_protocol) {
            const std::uint32_t index = source_.store_index(*packet, static_cast<std::uint32_t>(store_.size()));
            if (P* old = std::exchange(store_[index], packet); old != nullptr) {
                strategy_.release(old);
            } else {
                ++stored_;
            }
        } else {
            strategy_.release(packet);
        }
    }

    Strategy& strategy_;
    Source& source_;
    RingFifo<P*> fifo_;
    std::vector<P*> store_;
    std::uint64_t stored_ = 0;
};

}  // namespace cpp_engine
