// Consumer-side accounting of a 32-bit tick sequence: ticks received, ticks missing
// between them (gaps), and, given the producer's counts at the end, the drops after the
// last received tick. The same rules as Java's allocorpool.queue.SequenceTracker.
//
// Sequence numbers wrap at 2^32; a tick is widened to 64 bits by its distance from the
// expected one, so a gap must stay below 2^31 ticks (seconds of loss even at 1 ns).
// A tick that does not move forward (duplicate or reordered) is a broken queue, not a loss.
#pragma once

#include <cstdint>

namespace native_queue {

class SequenceTracker {
public:
    // Records one tick; returns how many ticks were missing right before it.
    // A tick that goes backwards is counted in received() and out_of_order() but moves
    // nothing else, so the accounting identities fail as they should.
    std::uint64_t accept(std::uint32_t seq) noexcept {
        ++received_;
        const std::uint32_t delta = seq - static_cast<std::uint32_t>(expected_);
        if (delta >= half_range) {
            ++out_of_order_;
            return 0;
        }
        gaps_ += delta;
        expected_ += static_cast<std::uint64_t>(delta) + 1;
        return delta;
    }

    std::uint64_t received() const noexcept { return received_; }
    std::uint64_t gaps() const noexcept { return gaps_; }
    std::uint64_t out_of_order() const noexcept { return out_of_order_; }
    bool broken() const noexcept { return out_of_order_ != 0; }

    // Sequence numbers accounted for: the widened last received one plus 1 (0 before any).
    std::uint64_t covered() const noexcept { return expected_; }

    // Drops after the last received tick, which no gap can show:
    // emitted - (last_seq64 + 1) - undelivered. Negative only if the counts disagree.
    std::int64_t trailing_dropped(std::uint64_t emitted, std::uint64_t undelivered) const noexcept {
        return static_cast<std::int64_t>(emitted - expected_ - undelivered);
    }

private:
    static constexpr std::uint32_t half_range = 1U << 31;

    std::uint64_t expected_ = 0;
    std::uint64_t received_ = 0;
    std::uint64_t gaps_ = 0;
    std::uint64_t out_of_order_ = 0;
};

}  // namespace native_queue
