// SequenceTracker: gap counting, 32-bit wrap-around, trailing drops, and flagging of
// ticks that do not move forward.
#include <gtest/gtest.h>

#include <cstdint>

#include "native_queue/sequence_tracker.hpp"

namespace {

using native_queue::SequenceTracker;

TEST(SequenceTracker, InOrderTicksHaveNoGaps) {
    SequenceTracker tracker;
    for (std::uint32_t seq = 0; seq < 1000; ++seq) {
        EXPECT_EQ(tracker.accept(seq), 0U);
    }
    EXPECT_EQ(tracker.received(), 1000U);
    EXPECT_EQ(tracker.gaps(), 0U);
    EXPECT_EQ(tracker.covered(), 1000U);
    EXPECT_FALSE(tracker.broken());
}

TEST(SequenceTracker, CountsGapsIncludingLeadingOnes) {
    SequenceTracker tracker;
    EXPECT_EQ(tracker.accept(5), 5U);  // ticks 0..4 lost before the first received
    EXPECT_EQ(tracker.accept(6), 0U);
    EXPECT_EQ(tracker.accept(10), 3U);
    EXPECT_EQ(tracker.received(), 3U);
    EXPECT_EQ(tracker.gaps(), 8U);
    EXPECT_EQ(tracker.covered(), 11U);
    EXPECT_FALSE(tracker.broken());
}

TEST(SequenceTracker, WidensAcrossThe32BitWrap) {
    SequenceTracker tracker;
    tracker.accept(0x7FFF'FFFFU);  // gap of 2^31 - 1: the largest a tracker accepts
    tracker.accept(0xFFFF'FFFEU);
    tracker.accept(0xFFFF'FFFFU);
    tracker.accept(0U);  // tick 2^32
    tracker.accept(1U);
    tracker.accept(3U);  // tick 2^32 + 2 lost
    EXPECT_FALSE(tracker.broken());
    EXPECT_EQ(tracker.received(), 6U);
    EXPECT_EQ(tracker.gaps(), 0x7FFF'FFFFULL + 0x7FFF'FFFEULL + 1);
    EXPECT_EQ(tracker.covered(), (1ULL << 32) + 4);
    EXPECT_EQ(tracker.received() + tracker.gaps(), tracker.covered());
}

TEST(SequenceTracker, TrailingDropsAreWhatFollowsTheLastReceivedTick) {
    SequenceTracker tracker;
    tracker.accept(0);
    tracker.accept(1);
    tracker.accept(4);  // last received: covered = 5
    EXPECT_EQ(tracker.trailing_dropped(/*emitted=*/12, /*undelivered=*/3), 4);
    EXPECT_EQ(SequenceTracker{}.trailing_dropped(10, 3), 7);  // nothing received
}

TEST(SequenceTracker, FlagsADuplicate) {
    SequenceTracker tracker;
    tracker.accept(0);
    tracker.accept(1);
    EXPECT_EQ(tracker.accept(1), 0U);
    EXPECT_TRUE(tracker.broken());
    EXPECT_EQ(tracker.out_of_order(), 1U);
    EXPECT_EQ(tracker.covered(), 2U);
}

TEST(SequenceTracker, FlagsAReorderedTick) {
    SequenceTracker tracker;
    tracker.accept(0);
    tracker.accept(2);  // looks like a gap of one...
    tracker.accept(1);  // ...until the missing tick arrives late
    EXPECT_TRUE(tracker.broken());
    EXPECT_EQ(tracker.out_of_order(), 1U);
}

TEST(SequenceTracker, FlagsAStepBackAcrossTheWrap) {
    SequenceTracker tracker;
    tracker.accept(0x7FFF'FFFFU);
    tracker.accept(0xFFFF'FFFEU);
    tracker.accept(0U);
    tracker.accept(0xFFFF'FFFFU);  // before tick 2^32, which was already seen
    EXPECT_TRUE(tracker.broken());
}

}  // namespace
