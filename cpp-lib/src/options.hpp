// The engine's command line: parsing and validation. Every bad, unknown or out-of-range
// value is an error whose message lists the valid ones; the engine exits 2 with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "case_params.hpp"

namespace cpp_engine {

enum class Mode { batch, realtime };

inline constexpr std::uint64_t min_interval_ns = 10;
inline constexpr std::uint64_t max_interval_ns = 1'000'000;
inline constexpr double max_duration_s = 86'400;
inline constexpr double max_capture_delay_ms = 10'000;
inline constexpr std::uint32_t max_threads = 256;  // as java-lib's --threads

struct Options {
    std::string design;     // cpp | flat
    std::string allocator = "glibc";
    std::string case_name;  // A | B | C
    std::string strategy;   // dummy | alloc | mix | pool | pmr | shared-pool
    std::string source = "counter";  // counter | random (packet_source.hpp)
    SizeOverrides sizes;             // --internal-queue-size, --stored-count, --pool-size
    Mode mode = Mode::batch;
    std::optional<std::uint64_t> interval_ns;  // realtime only, required there
    // realtime only: the input queue holds this many ms of ticks per array (MAX_CAPTURING_DELAY_MS);
    // a small profile scales it with the live set, so that a pause fills the same share of it
    double capture_delay_ms = max_capturing_delay_ms;
    double duration_s = 30;
    double warmup_s = 5;
    double scale = 1;
    int producer_cpu = 0;  // realtime only (accepted and unused in batch, as java-lib); -1: not pinned
    int consumer_cpu = 1;  // with --threads N, the first of N consecutive CPUs, one per consumer
    bool count_allocations = true;  // allocs_per_packet in the summary (counting_pass.hpp)
    // N processing threads, each on its own share of the case (threaded_run.hpp); in real time one
    // clock feeds them in turn; 0: the main thread alone (the study's engine)
    std::uint32_t threads = 0;
    // with --threads: every thread a live set of the case's size (weak, the default) or the case's split
    // between them (strong, CaseParams::share)
    bool strong_scaling = false;
    std::int64_t seed = 1;  // any 64-bit integer, as java-lib's long: the same seed draws the same packets
    std::string out = "-";  // "-": standard output
};

struct ParseResult {
    std::optional<Options> options;  // set when the command line is valid
    bool help = false;               // --help was given
    std::string error;               // why it is not valid
};

// Parses the arguments after the program name: "--name value" or "--name=value".
ParseResult parse_options(const std::vector<std::string>& args);

// The run's sizes: the case at its scale, with the overrides applied.
CaseParams run_params(const Options& options);

// Slots per array of the real-time input queue: capture_delay_ms of ticks at the interval
// (at least 1, at most Java's limit, as native_queue::capacity_for); 0 in batch. With N threads,
// each thread's queue, which gets every Nth tick: capture_delay_ms of its own ticks.
std::uint32_t input_queue_size(const Options& options);

std::string usage();

}  // namespace cpp_engine
