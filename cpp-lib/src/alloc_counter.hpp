// Allocation counting, in one build only. The engine comes in two builds of the same
// sources:
// - cpp_engine (alloc_counter_off.cpp): the timed build. Nothing replaces operator
//   new/delete, so the model calls the active allocator's own operators, sized delete
//   included, as an ordinary program does; counting() is false and this_thread() zero.
// - cpp_engine_counting (alloc_counter.cpp): the counting build. It replaces every global
//   operator new/delete (forwarding to malloc/free, so the preloaded allocator still
//   serves the memory) and counts per thread: the model runs on one thread, and a
//   thread-local counter costs one unlocked increment, not an atomic one. The timed build
//   runs it as a separate pass to get allocs_per_packet (counting_pass.hpp).
#pragma once

#include <cstdint>

namespace cpp_engine::alloc_counter {

struct Counts {
    std::uint64_t allocations = 0;
    std::uint64_t deallocations = 0;
    std::uint64_t sized_deallocations = 0;  // of deallocations, those given the block's size

    // Blocks allocated and not yet freed, by this thread's count.
    std::int64_t live() const noexcept {
        return static_cast<std::int64_t>(allocations) - static_cast<std::int64_t>(deallocations);
    }
};

// True in the counting build.
bool counting() noexcept;

Counts this_thread() noexcept;

}  // namespace cpp_engine::alloc_counter
