// One probe of the queue benchmark and its verdict. A probe is loss-free only if both
// sides' counts balance, nothing was dropped or left undelivered, and the consumer kept
// up: when the probe's time was up it had received at least the ticks then due minus one
// array's capacity (the backlog the queue may hold without loss). The last rule catches a
// producer slower than its interval (it emits what is due in ever larger bursts, so it
// did not test that interval) and a consumer that trails the clock without dropping yet.
// The engines' real-time verdict uses the same backlog rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"

namespace queue_bench {

// How a probe's queue was sized: 100 ms of ticks at the probe's interval
// (MAX_CAPTURING_DELAY_MS, the engines' rule), a fixed number of slots per array (the
// original benchmark's 100,000 for C++ to C++), or, for the flat-out probe that measures
// the write cost, a small queue that stays in the cache.
enum class CapacityRule { per_100ms, fixed, flat_out };

inline std::string to_string(CapacityRule rule) {
    switch (rule) {
        case CapacityRule::per_100ms:
            return "delay_100ms";
        case CapacityRule::fixed:
            return "fixed";
        case CapacityRule::flat_out:
            return "flat_out";
    }
    return "unknown";
}

struct Probe {
    CapacityRule rule = CapacityRule::per_100ms;
    std::uint64_t interval_ns = 0;  // 0: flat out
    std::uint32_t queue_size = 0;   // slots per array
    double duration_s = 0;          // from the producer's start to the stop request
    std::uint64_t taken_in_time = 0;  // ticks the consumer had read when the time was up
    native_queue::ProducerStats stats;
    native_queue::SequenceTracker tracker;  // every tick read, the drain after the stop included

    // The ticks the clock made due during the probe (rounded down); none flat out.
    std::optional<std::uint64_t> ticks_due() const {
        if (interval_ns == 0) {
            return std::nullopt;
        }
        return static_cast<std::uint64_t>(duration_s * 1e9 / static_cast<double>(interval_ns));
    }

    std::uint64_t lost() const {
        return tracker.gaps() + static_cast<std::uint64_t>(tracker.trailing_dropped(stats.emitted, stats.undelivered));
    }

    bool balanced() const {
        return !tracker.broken() && tracker.trailing_dropped(stats.emitted, stats.undelivered) >= 0 &&
               lost() == stats.dropped && tracker.received() + stats.dropped + stats.undelivered == stats.emitted;
    }

    bool kept_up() const {
        const std::optional<std::uint64_t> due = ticks_due();
        return !due || taken_in_time + queue_size >= *due;
    }

    bool ok() const { return balanced() && stats.dropped == 0 && stats.undelivered == 0 && kept_up(); }
};

}  // namespace queue_bench
