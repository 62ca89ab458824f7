// A cheap monotonic tick counter for busy-wait pacing: the x86-64 time-stamp counter,
// with its frequency calibrated once per process against std::chrono::steady_clock.
// Elsewhere the steady clock itself stands in, at one tick per nanosecond.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#define NATIVE_QUEUE_HAS_TSC 1
#else
#define NATIVE_QUEUE_HAS_TSC 0
#endif

namespace native_queue {

inline constexpr bool has_tsc = NATIVE_QUEUE_HAS_TSC != 0;

// Unserialized on purpose: pacing needs a cheap read, not an instruction barrier.
inline std::uint64_t now_ticks() noexcept {
#if NATIVE_QUEUE_HAS_TSC
    return __rdtsc();
#else
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch())
                                              .count());
#endif
}

namespace detail {

struct ClockPair {
    std::uint64_t ticks;
    std::chrono::steady_clock::time_point time;
};

// Reads both clocks as close together as possible: the steady clock bracketed by two
// tick reads, keeping the tightest of a few tries so a preemption cannot skew a sample.
inline ClockPair read_clock_pair() noexcept {
    ClockPair best{};
    std::uint64_t best_width = UINT64_MAX;
    for (int attempt = 0; attempt < 16; ++attempt) {
        const std::uint64_t before = now_ticks();
        const auto time = std::chrono::steady_clock::now();
        const std::uint64_t after = now_ticks();
        if (after - before < best_width) {
            best_width = after - before;
            best = {before + (after - before) / 2, time};
        }
    }
    return best;
}

inline double calibrate_ticks_per_ns() noexcept {
    if constexpr (!has_tsc) {
        return 1.0;
    }
    constexpr auto calibration_time = std::chrono::milliseconds(30);
    const ClockPair start = read_clock_pair();
    while (std::chrono::steady_clock::now() - start.time < calibration_time) {
        // Busy: a sleep would let frequency-scaling or migration land in the window.
    }
    const ClockPair end = read_clock_pair();
    const auto elapsed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end.time - start.time).count();
    return static_cast<double>(end.ticks - start.ticks) / static_cast<double>(elapsed_ns);
}

}  // namespace detail

// Ticks of now_ticks() per nanosecond; the first call calibrates (about 30 ms, busy).
inline double ticks_per_ns() noexcept {
    static const double calibrated = detail::calibrate_ticks_per_ns();
    return calibrated;
}

}  // namespace native_queue
