// The sizes of one test case (A, B or C) from the article's table, scaled.
//
// Case A follows the article's table (10,000 / 10,000); the published code used
// 1,000 / 1,000 for INTERNAL_QUEUE_SIZE / STORED_COUNT. `scale` (0 < scale <= 1)
// multiplies every count (rounded, at least 1) so that a small run keeps the shape of a
// full one; MAX_CAPTURING_DELAY_MS is a time and is not scaled. Same rules as java-lib's
// CaseParams.
#pragma once

#include <cstdint>
#include <string>

namespace cpp_engine {

inline constexpr std::uint32_t max_capturing_delay_ms = 100;

struct CaseParams {
    std::string name;
    double scale;
    std::uint32_t pool_size;
    std::uint32_t mix_pool_size;
    std::uint32_t internal_queue_size;
    std::uint32_t stored_count;

    // The case named "A", "B" or "C" at `scale`; throws std::invalid_argument otherwise.
    static CaseParams of(const std::string& name, double scale);
};

}  // namespace cpp_engine
