// What one dependent load costs over a working set of a given size: the machine check's
// explanation of a machine that runs slower than when it measured the store (a cache or
// memory that answers late shows here before it shows in a collector's pauses).
//
// The loads follow one random cycle through every 8-byte slot (Sattolo's shuffle), so each
// address depends on the previous load and no prefetcher can guess the next one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace allocorpool {

// next[i] is the slot after i on one cycle through all of them.
inline std::vector<std::size_t> random_cycle(std::size_t slots, std::uint64_t seed) {
    std::vector<std::size_t> next(slots);
    for (std::size_t i = 0; i < slots; ++i) next[i] = i;
    std::mt19937_64 random(seed);
    for (std::size_t i = slots - 1; i > 0; --i) {  // Sattolo: j < i, so the permutation is one cycle
        std::uniform_int_distribution<std::size_t> pick(0, i - 1);
        std::swap(next[i], next[pick(random)]);
    }
    return next;
}

// Follows the cycle for `loads` steps from slot 0; returns the slot reached (kept so that the
// compiler cannot drop the loads).
inline std::size_t chase(const std::vector<std::size_t>& next, std::size_t loads) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < loads; ++i) at = next[at];
    return at;
}

}  // namespace allocorpool
