// Where packets come from and go back to: the one thing the strategies of the study
// differ in. Each is a template over the packet design; the processing thread is the only
// caller, so nothing is locked.
//
// - dummy: one packet reused for everything, release does nothing: the cost of the test
//   itself.
// - alloc: new/delete of the packet, its buffer included, for every packet.
// - mix: a pool of MIX_POOL_SIZE packets that allocates when empty and deletes what does
//   not fit back.
// - pool: POOL_SIZE packets made up front; running out is an error.
// - shared-pool: with --threads N, one pool of every thread's POOL_SIZE packets that every thread
//   takes from and gives back to, lock-free (SharedPool); each thread holds a view that counts its own.
// - pmr-synchronized: with --threads N, one std::pmr::synchronized_pool_resource every thread
//   allocates from (SyncPmrResource), each thread's view counting its own.
// - pmr: the standard library's general-purpose pool. As alloc, every packet is made and
//   destroyed, but the packet and its buffer come from, and go back to, the size-class
//   pools of a std::pmr::unsynchronized_pool_resource instead of new/delete.
//
// The pool is a small intrusive free list (a LIFO linked through PacketFrame::next_free),
// chosen by bench/pool_choice_bench, which runs the model's acquire/hold/release pattern
// over each candidate (best of 3, 20 M packets, cases A/B/C at scale 0.1, ns per packet,
// AMD EPYC 2 vCPUs, GCC 12 -O3): intrusive list 2.5/5.8/11.9, the original's pointer
// stack 3.1/5.9/11.1, Boost.Pool (boost::pool<>) 2.7/6.2/11.5,
// std::pmr::unsynchronized_pool_resource 35.8/128.7/361.7, malloc/free 18.7/43.3/185.8.
// The list ties with Boost.Pool and the stack, and is the only one that keeps packets
// constructed (buffer attached) with its accounting (capacity, free, in use, the live
// mark) built in and no dependency; pmr is out by a factor of 10 to 30. It stays as a
// strategy of its own: the pool a C++ programmer gets without writing one.
#pragma once

#include <boost/lockfree/stack.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "case_params.hpp"
#include "failure.hpp"
#include "hot_path.hpp"
#include "packet.hpp"

namespace cpp_engine {

// A snapshot of a strategy's accounting: every packet it owns is free or in use.
struct PoolCounts {
    std::uint64_t capacity = 0;
    std::uint64_t free = 0;
    std::uint64_t in_use = 0;

    bool balanced() const noexcept { return free + in_use == capacity; }
};

// A release of a packet that is already free.
class DoubleRelease : public RunFailure {
public:
    explicit DoubleRelease(const std::string& message) : RunFailure(Failure::pool_accounting, message) {}
};

// An acquire from a fixed pool with no free packet.
class PoolExhausted : public RunFailure {
public:
    explicit PoolExhausted(const std::string& message) : RunFailure(Failure::pool_exhausted, message) {}
};

template <class P>
class DummyStrategy {
public:
    static constexpr const char* name = "dummy";
    // The one packet sits in the FIFO and the store many times over: there is no
    // per-packet accounting to check.
    static constexpr bool shares_one_packet = true;
    static constexpr bool is_pool = false;

    explicit DummyStrategy(const CaseParams&) {}

    CPP_ENGINE_HOT P* acquire() noexcept { return &packet_; }
    CPP_ENGINE_HOT void release(P*) noexcept {}
    PoolCounts counts() const noexcept { return {1, 0, 1}; }

private:
    P packet_;
};

template <class P>
class AllocStrategy {
public:
    static constexpr const char* name = "alloc";
    static constexpr bool shares_one_packet = false;
    static constexpr bool is_pool = false;

    explicit AllocStrategy(const CaseParams&) {}

    CPP_ENGINE_HOT P* acquire() {
        ++outstanding_;
        return new P;
    }

    CPP_ENGINE_HOT void release(P* packet) noexcept {
        --outstanding_;
        delete packet;
    }

    // Packets allocated and not yet deleted; none is ever free.
    PoolCounts counts() const noexcept { return {outstanding_, 0, outstanding_}; }

private:
    std::uint64_t outstanding_ = 0;
};

// A pooled packet changing hands: its live mark set as it goes out, checked and cleared as it
// comes back (a packet already free is a double release), and the pool's in-use count kept.
template <class P>
CPP_ENGINE_HOT inline void hand_out(P* packet, std::uint64_t& in_use) noexcept {
    packet->live = true;
    ++in_use;
}

template <class P>
CPP_ENGINE_HOT inline void take_back(P* packet, std::uint64_t& in_use, const char* pool_name) {
    if (!packet->live) [[unlikely]] {
        throw DoubleRelease(std::string(pool_name) + ": double release (the packet is already free)");
    }
    packet->live = false;
    --in_use;
}

// A fixed pool with no free packet: what it holds and what it must.
[[noreturn]] inline void exhausted(const char* pool_name, std::uint64_t capacity, const char* must_hold) {
    throw PoolExhausted(std::string(pool_name) + " exhausted: all " + std::to_string(capacity) +
                        " packets are in use (the pool must hold " + must_hold + ")");
}

// The pool of both pooled strategies (as in the original, mix is the pool with another
// size that may grow).
template <class P>
class FreeListPool {
public:
    static constexpr bool shares_one_packet = false;
    static constexpr bool is_pool = true;

    FreeListPool(const char* name, std::uint32_t pool_size, bool growable)
        : name_(name), pool_size_(pool_size), growable_(growable) {
        try {
            // Linked in allocation order, so the first packets handed out are the first made.
            PacketFrame** tail = &head_;
            for (std::uint32_t i = 0; i < pool_size; ++i) {
                P* packet = new P;
                *tail = packet;
                tail = &packet->next_free;
                ++capacity_;
                ++free_;
            }
        } catch (...) {
            delete_free_packets();
            throw;
        }
    }

    FreeListPool(const FreeListPool&) = delete;
    FreeListPool& operator=(const FreeListPool&) = delete;

    // Deletes the free packets; those in use belong to whoever holds them.
    ~FreeListPool() { delete_free_packets(); }

    CPP_ENGINE_HOT P* acquire() {
        P* packet;
        if (head_ != nullptr) [[likely]] {
            packet = static_cast<P*>(head_);
            head_ = head_->next_free;
            --free_;
        } else if (growable_) {
            packet = new P;
            ++capacity_;
        } else {
            exhausted(name_, capacity_, "at least internal_queue_size + stored_count packets");
        }
        hand_out(packet, in_use_);
        return packet;
    }

    CPP_ENGINE_HOT void release(P* packet) {
        take_back(packet, in_use_, name_);
        if (free_ < pool_size_) {
            packet->reset();
            packet->next_free = head_;
            head_ = packet;
            ++free_;
        } else {
            delete packet;
            --capacity_;
        }
    }

    PoolCounts counts() const noexcept { return {capacity_, free_, in_use_}; }

private:
    void delete_free_packets() noexcept {
        while (head_ != nullptr) {
            delete static_cast<P*>(std::exchange(head_, head_->next_free));
        }
    }

    const char* name_;
    std::uint32_t pool_size_;
    bool growable_;
    PacketFrame* head_ = nullptr;
    std::uint64_t capacity_ = 0;
    std::uint64_t free_ = 0;
    std::uint64_t in_use_ = 0;
};

template <class P>
class MixStrategy : public FreeListPool<P> {
public:
    static constexpr const char* name = "mix";
    explicit MixStrategy(const CaseParams& params) : FreeListPool<P>(name, params.mix_pool_size, true) {}
};

template <class P>
class PoolStrategy : public FreeListPool<P> {
public:
    static constexpr const char* name = "pool";
    explicit PoolStrategy(const CaseParams& params) : FreeListPool<P>(name, params.pool_size, false) {}
};

// A packet and its buffer from a memory resource (the pmr strategies'), marked live.
template <class P>
CPP_ENGINE_HOT inline P* pmr_acquire(std::pmr::memory_resource& resource, std::uint64_t& outstanding) {
    void* memory = resource.allocate(sizeof(P), alignof(P));
    std::byte* buffer;
    try {
        buffer = static_cast<std::byte*>(resource.allocate(packet_bytes));
    } catch (...) {
        resource.deallocate(memory, sizeof(P), alignof(P));
        throw;
    }
    P* packet = ::new (memory) P(buffer);
    packet->live = true;
    ++outstanding;
    return packet;
}

// A second release is caught while the packet's memory is not yet another packet's:
// the mark is written into the storage as a plain byte once the packet is destroyed
// (a store to the dead packet itself the compiler may drop), and the resource leaves
// it there. After the memory is reused, the model's conservation check finds fewer
// packets in use than the processor holds.
template <class P>
CPP_ENGINE_HOT inline void pmr_release(std::pmr::memory_resource& resource, P* packet, std::uint64_t& outstanding,
                                const char* name) {
    unsigned char* mark = reinterpret_cast<unsigned char*>(&static_cast<PacketFrame*>(packet)->live);
    bool live;
    std::memcpy(&live, mark, sizeof(live));
    if (!live) [[unlikely]] {
        throw DoubleRelease(std::string(name) + ": double release (the packet was already destroyed)");
    }
    --outstanding;
    std::byte* buffer = packet->buffer.release();
    packet->~P();
    constexpr bool freed = false;
    std::memcpy(mark, &freed, sizeof(freed));
    resource.deallocate(buffer, packet_bytes);
    resource.deallocate(packet, sizeof(P), alignof(P));
}

template <class P>
class PmrStrategy {
public:
    static constexpr const char* name = "pmr";
    static constexpr bool shares_one_packet = false;
    static constexpr bool is_pool = false;  // it pools memory, not packets: none is ever free

    // Blocks up to a buffer's size are pooled; chunks come from new/delete and grow as the
    // resource sees fit (the fill phase grows them to the live set).
    explicit PmrStrategy(const CaseParams&)
        : resource_(std::pmr::pool_options{0, packet_bytes}, std::pmr::new_delete_resource()) {}

    PmrStrategy(const PmrStrategy&) = delete;
    PmrStrategy& operator=(const PmrStrategy&) = delete;

    CPP_ENGINE_HOT P* acquire() { return pmr_acquire<P>(resource_, outstanding_); }

    CPP_ENGINE_HOT void release(P* packet) { pmr_release(resource_, packet, outstanding_, name); }

    PoolCounts counts() const noexcept { return {outstanding_, 0, outstanding_}; }

private:
    std::pmr::unsynchronized_pool_resource resource_;
    std::uint64_t outstanding_ = 0;
};

// The one resource of a threaded run's pmr-synchronized strategy: the standard library's
// thread-safe pool (std::pmr::synchronized_pool_resource: libstdc++ keeps a pool per thread for
// the blocks it frees and takes a lock for what those lack), blocks up to a buffer's size pooled.
class SyncPmrResource {
public:
    explicit SyncPmrResource(std::uint32_t /*pool_size: it grows as needed*/)
        : resource_(std::pmr::pool_options{0, packet_bytes}, std::pmr::new_delete_resource()) {}

    std::pmr::memory_resource& resource() noexcept { return resource_; }

private:
    std::pmr::synchronized_pool_resource resource_;
};

// A thread's side of the synchronized resource, as PmrStrategy is of its own: it counts the
// packets its thread holds.
template <class P>
class SyncPmrView {
public:
    using Shared = SyncPmrResource;
    static constexpr const char* name = "pmr-synchronized";
    static constexpr bool shares_one_packet = false;
    static constexpr bool is_pool = false;

    SyncPmrView(const CaseParams&, SyncPmrResource& shared) : resource_(&shared.resource()) {}

    CPP_ENGINE_HOT P* acquire() { return pmr_acquire<P>(*resource_, outstanding_); }

    CPP_ENGINE_HOT void release(P* packet) { pmr_release(*resource_, packet, outstanding_, name); }

    PoolCounts counts() const noexcept { return {outstanding_, 0, outstanding_}; }

private:
    std::pmr::memory_resource* resource_;
    std::uint64_t outstanding_ = 0;
};

// The one pool of a threaded run's shared-pool strategy: pool_size packets made up front,
// owned here, their free ones in a lock-free stack (Boost.Lockfree: a Treiber stack whose
// tagged pointers rule out ABA; its nodes are made with it, and bounded_push never allocates).
// Every thread pops and pushes concurrently; counting the free packets is for a quiescent
// pool only (before the threads start or after they stopped).
template <class P>
class SharedPool {
public:
    explicit SharedPool(std::uint32_t pool_size) : free_(pool_size) {
        packets_.reserve(pool_size);
        for (std::uint32_t i = 0; i < pool_size; ++i) {
            packets_.push_back(std::make_unique<P>());
            if (!free_.bounded_push(packets_.back().get())) {
                throw std::logic_error("shared pool: no node for packet " + std::to_string(i));
            }
        }
    }

    SharedPool(const SharedPool&) = delete;
    SharedPool& operator=(const SharedPool&) = delete;

    // A free packet, or null when every one is in use.
    CPP_ENGINE_HOT P* pop() noexcept {
        P* packet = nullptr;
        return free_.pop(packet) ? packet : nullptr;
    }

    CPP_ENGINE_HOT void push(P* packet) {
        if (!free_.bounded_push(packet)) [[unlikely]] {
            throw std::logic_error("shared pool: more packets given back than it holds");
        }
    }

    std::uint64_t capacity() const noexcept { return packets_.size(); }

    // The free packets, counted by taking them all out and putting them back: quiescent only.
    std::uint64_t count_free() {
        std::vector<P*> taken;
        P* packet = nullptr;
        while (free_.pop(packet)) {
            taken.push_back(packet);
        }
        for (P* back : taken) {
            push(back);
        }
        return taken.size();
    }

private:
    std::vector<std::unique_ptr<P>> packets_;
    boost::lockfree::stack<P*> free_;  // its nodes reserved up front (a fixed-size one holds 65,535 at most)
};

// A thread's side of the shared pool: acquire pops, release pushes, and the view counts the
// packets its thread holds (every one in use: the free ones are the pool's).
template <class P>
class SharedPoolView {
public:
    using Shared = SharedPool<P>;
    static constexpr const char* name = "shared-pool";
    static constexpr bool shares_one_packet = false;
    static constexpr bool is_pool = true;

    SharedPoolView(const CaseParams&, SharedPool<P>& pool) : pool_(&pool) {}

    CPP_ENGINE_HOT P* acquire() {
        P* packet = pool_->pop();
        if (packet == nullptr) [[unlikely]] {
            exhausted(name, pool_->capacity(), "every thread's internal_queue_size + stored_count packets");
        }
        hand_out(packet, in_use_);
        return packet;
    }

    CPP_ENGINE_HOT void release(P* packet) {
        take_back(packet, in_use_, name);
        packet->reset();
        pool_->push(packet);
    }

    PoolCounts counts() const noexcept { return {in_use_, 0, in_use_}; }

private:
    SharedPool<P>* pool_;
    std::uint64_t in_use_ = 0;
};

}  // namespace cpp_engine
