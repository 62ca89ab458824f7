// Counts of the calling thread's operator new / operator delete calls. alloc_counter.cpp
// replaces the global operators (forwarding to malloc/free, so whatever allocator serves
// malloc serves C++ allocations too) and counts per thread: the model runs on one thread,
// and a thread-local counter costs one unlocked increment, not an atomic one.
#pragma once

#include <cstdint>

namespace cpp_engine::alloc_counter {

struct Counts {
    std::uint64_t allocations = 0;
    std::uint64_t deallocations = 0;

    // Blocks allocated and not yet freed, by this thread's count.
    std::int64_t live() const noexcept {
        return static_cast<std::int64_t>(allocations) - static_cast<std::int64_t>(deallocations);
    }
};

Counts this_thread() noexcept;

}  // namespace cpp_engine::alloc_counter
