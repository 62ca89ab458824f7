// A cheap, allocation-free pseudo-random generator for the data source and the store's
// replacement index: the same algorithm and seeding as java-lib's allocorpool.model.XorShift
// (splitmix64 of the seed, then Marsaglia's xorshift64 with shifts 13/7/17), so both
// engines draw the same packets from the same seed.
#pragma once

#include <cstdint>

#include "hot_path.hpp"

namespace cpp_engine {

class XorShift {
public:
    explicit XorShift(std::uint64_t seed) noexcept {
        // splitmix64 of the seed: any seed, 0 included, gives a good non-zero state.
        std::uint64_t z = seed + golden_gamma;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        state_ = z == 0 ? golden_gamma : z;
    }

    CPP_ENGINE_HOT std::uint64_t next() noexcept {
        std::uint64_t x = state_;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state_ = x;
        return x;
    }

    // Uniform in [0, bound) for 0 < bound: the high 32 bits scaled by a multiplication.
    CPP_ENGINE_HOT std::uint32_t next_below(std::uint32_t bound) noexcept {
        return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
    }

private:
    static constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ULL;
    std::uint64_t state_;
};

}  // namespace cpp_engine
