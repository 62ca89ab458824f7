// The allocation-counting pass of the timed build: allocs_per_packet without counting
// in the timed run. It runs the counting build that sits beside this executable
// (cpp_engine_counting) on the same model (design, strategy, source, case, sizes, seed,
// allocator), in batch mode: its fill phase, then counting_pass_seconds(options) measured,
// and reads allocations per packet from its summary. The count is a property of the model's
// steps, the same in batch and real time, and over any window past the fill.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "failure.hpp"
#include "options.hpp"

namespace cpp_engine {

inline constexpr double counting_pass_s = 1.0;

// The pass's measured seconds: counting_pass_s, or the timed run's own duration where shorter (a
// test's run of a fraction of a second is not followed by a pass of a second).
inline double counting_pass_seconds(const Options& options) {
    return options.duration_s < counting_pass_s ? options.duration_s : counting_pass_s;
}
inline constexpr const char* counting_build_name = "cpp_engine_counting";

struct AllocationCount {
    double per_packet = 0;
    std::uint64_t packets = 0;  // the packets counted over
};

class CountingPassError : public RunFailure {
public:
    explicit CountingPassError(const std::string& message) : RunFailure(Failure::counting_pass, message) {}
};

// Throws CountingPassError when the counting build is missing or its run fails.
AllocationCount count_allocations(const Options& options);

}  // namespace cpp_engine
