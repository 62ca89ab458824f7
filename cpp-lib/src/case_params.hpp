// The sizes of one test case (A, B or C), scaled and possibly overridden.
//
// Internal queue / store: A 1,000 / 1,000 (what the published code ran for every case-A
// figure the article prints; its table says 10,000 / 10,000, reachable with the
// overrides), B 100,000 / 100,000, C 495,000 / 495,000; POOL_SIZE 1,000,000 and
// MIX_POOL_SIZE 200,000. `scale` (0 < scale <= 1) multiplies every count (rounded, at
// least 1) so that a small run keeps the shape of a full one; MAX_CAPTURING_DELAY_MS is a
// time and is not scaled. The overrides (--internal-queue-size, --stored-count,
// --pool-size) replace the scaled values with absolute counts. Same rules as java-lib's
// CaseParams.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cpp_engine {

inline constexpr std::uint32_t max_capturing_delay_ms = 100;
// The largest count an override may give (the article's "ten million buffers").
inline constexpr std::uint32_t max_override_count = 10'000'000;

struct CaseParams {
    std::string name;
    double scale;
    std::uint32_t pool_size;
    std::uint32_t mix_pool_size;
    std::uint32_t internal_queue_size;
    std::uint32_t stored_count;
    // The case's own sizes, unscaled and not overridden (the header's params.case_table).
    std::uint32_t table_internal_queue_size;
    std::uint32_t table_stored_count;

    // The case named "A", "B" or "C" at `scale`; throws std::invalid_argument otherwise.
    static CaseParams of(const std::string& name, double scale);

    // Thread `index`'s share when `threads` threads split the case (--threads): each count
    // divided as evenly as whole packets allow (the shares add up to the count); the table's
    // sizes stay the case's. Throws std::invalid_argument for an index outside the threads or
    // a FIFO or store smaller than the threads. As java-lib's CaseParams.share.
    CaseParams share(std::uint32_t index, std::uint32_t threads) const;
};

struct SizeOverrides {
    std::optional<std::uint32_t> internal_queue_size;
    std::optional<std::uint32_t> stored_count;
    std::optional<std::uint32_t> pool_size;
};

// `params` with the given absolute counts in place of the scaled ones.
CaseParams with_overrides(CaseParams params, const SizeOverrides& overrides);

}  // namespace cpp_engine
