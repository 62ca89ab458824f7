// The timed build's side of alloc_counter.hpp: no replacement of operator new/delete, so
// the active allocator's own operators run; nothing is counted.
#include "alloc_counter.hpp"

namespace cpp_engine::alloc_counter {

bool counting() noexcept { return false; }

Counts this_thread() noexcept { return {}; }

}  // namespace cpp_engine::alloc_counter
