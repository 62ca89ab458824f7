// The machine check's load chase must visit every slot: a cycle that closed early would time a
// working set smaller than the one it names.
#include <gtest/gtest.h>

#include <vector>

#include "memory_latency.hpp"

using allocorpool::chase;
using allocorpool::random_cycle;

TEST(MemoryLatency, TheChaseIsOneCycleThroughEverySlot) {
    for (std::size_t slots : {2u, 3u, 17u, 4096u}) {
        const auto next = random_cycle(slots, 7);
        std::vector<bool> seen(slots, false);
        std::size_t at = 0;
        for (std::size_t step = 0; step < slots; ++step) {
            ASSERT_LT(next[at], slots);
            ASSERT_FALSE(seen[at]) << "slot " << at << " came twice in " << slots;
            seen[at] = true;
            at = next[at];
        }
        EXPECT_EQ(at, 0u) << "the cycle through " << slots << " slots does not return to its start";
        EXPECT_EQ(chase(next, slots), 0u);
    }
}

TEST(MemoryLatency, NoSlotLeadsToItself) {
    const auto next = random_cycle(1000, 3);
    for (std::size_t i = 0; i < next.size(); ++i) EXPECT_NE(next[i], i);
}
