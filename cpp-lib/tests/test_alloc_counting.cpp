// Allocation counting (the tests link the counting build's operator new/delete): what
// each design and strategy allocates per packet once the FIFO is full (the flat design
// with a pool allocates nothing at all, the direct translation allocates its four parse
// objects, alloc adds the packet and its buffer, pmr takes both from its own chunks), and
// that the model's deletes pass the block's size, so that in the timed build the
// allocator's sized free runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "alloc_counter.hpp"
#include "case_params.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "packet_source.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

struct PerPacket {
    double allocations;
    double deallocations;
};

// Allocations per packet after `warmup` packets (FIFO full, store filling).
template <class P, template <class> class S>
PerPacket per_packet(const CaseParams& params, int warmup, int measured) {
    Model<P, S> model(params, 1);
    for (int i = 0; i < warmup; ++i) {
        model.step();
    }
    const alloc_counter::Counts before = alloc_counter::this_thread();
    for (int i = 0; i < measured; ++i) {
        model.step();
    }
    const alloc_counter::Counts after = alloc_counter::this_thread();
    return {static_cast<double>(after.allocations - before.allocations) / measured,
            static_cast<double>(after.deallocations - before.deallocations) / measured};
}

const CaseParams params = CaseParams::of("A", 0.1);  // 100 + 100 held, mix pool 20,000
constexpr int warmup = 50'000;
constexpr int measured = 200'000;

TEST(AllocationCount, CountsOperatorNewAndDelete) {
    const alloc_counter::Counts before = alloc_counter::this_thread();
    void* block = ::operator new(16);  // called directly: a new-expression may be elided
    std::vector<int> vector(10);
    ::operator delete(block);
    const alloc_counter::Counts after = alloc_counter::this_thread();
    EXPECT_EQ(after.allocations - before.allocations, 2U);
    EXPECT_EQ(after.deallocations - before.deallocations, 1U);
}

TEST(AllocationCount, ThisIsTheCountingBuild) { EXPECT_TRUE(alloc_counter::counting()); }

TEST(AllocationCount, DeletesGiveTheAllocatorTheSize) {
    const alloc_counter::Counts before = alloc_counter::this_thread();
    // The packet (sized delete) and its buffer (delete[] of bytes: unsized); through a
    // volatile pointer, or the compiler may elide the pair.
    flat_design::Packet* volatile made = new flat_design::Packet;
    delete made;
    cpp_design::Packet packet;
    RandomSource source(1);
    source.fill(packet);
    ASSERT_NE(packet.parse_ip(), nullptr);
    packet.reset();  // frees the four parse objects, each with its size
    const alloc_counter::Counts after = alloc_counter::this_thread();
    EXPECT_EQ(after.deallocations - before.deallocations, 6U);
    EXPECT_EQ(after.sized_deallocations - before.sized_deallocations, 5U);
}

TEST(AllocationCount, FlatPoolAllocatesNothingAfterWarmUp) {
    const PerPacket count = per_packet<flat_design::Packet, PoolStrategy>(params, warmup, measured);
    EXPECT_EQ(count.allocations, 0.0);
    EXPECT_EQ(count.deallocations, 0.0);
}

TEST(AllocationCount, FlatMixAndDummyAllocateNothingAfterWarmUp) {
    EXPECT_EQ((per_packet<flat_design::Packet, MixStrategy>(params, warmup, measured).allocations), 0.0);
    EXPECT_EQ((per_packet<flat_design::Packet, DummyStrategy>(params, warmup, measured).allocations), 0.0);
}

TEST(AllocationCount, FlatAllocAllocatesPacketAndBuffer) {
    const PerPacket count = per_packet<flat_design::Packet, AllocStrategy>(params, warmup, measured);
    EXPECT_EQ(count.allocations, 2.0);
    EXPECT_NEAR(count.deallocations, 2.0, 0.01);  // the store's replacements come in bursts
}

TEST(AllocationCount, CppAllocAllocatesPacketBufferAndFourParseObjects) {
    const PerPacket count = per_packet<cpp_design::Packet, AllocStrategy>(params, warmup, measured);
    EXPECT_GT(count.allocations, 0.0);
    EXPECT_EQ(count.allocations, 6.0);
    EXPECT_NEAR(count.deallocations, 6.0, 0.05);
}

TEST(AllocationCount, CppPoolAndDummyAllocateTheFourParseObjects) {
    const PerPacket pool = per_packet<cpp_design::Packet, PoolStrategy>(params, warmup, measured);
    EXPECT_EQ(pool.allocations, 4.0);
    EXPECT_NEAR(pool.deallocations, 4.0, 0.05);
    // Dummy re-parses its one packet: each parse frees the previous result (no leak).
    const PerPacket dummy = per_packet<cpp_design::Packet, DummyStrategy>(params, warmup, measured);
    EXPECT_EQ(dummy.allocations, 4.0);
    EXPECT_EQ(dummy.deallocations, 4.0);
}

// The standard library's pool resource serves the packet and its buffer from its own
// chunks: once they hold the live set, the flat design calls new/delete for nothing, and
// the direct translation for its four parse objects only.
TEST(AllocationCount, PmrServesPacketAndBufferFromItsChunks) {
    // its first packets make its chunks (from new), a few blocks at a time
    const PerPacket growing = per_packet<flat_design::Packet, PmrStrategy>(params, 0, 1'000);
    EXPECT_GT(growing.allocations, 0.0);
    EXPECT_LT(growing.allocations, 1.0);
    const PerPacket flat = per_packet<flat_design::Packet, PmrStrategy>(params, warmup, measured);
    EXPECT_EQ(flat.allocations, 0.0);
    EXPECT_EQ(flat.deallocations, 0.0);
    const PerPacket cpp = per_packet<cpp_design::Packet, PmrStrategy>(params, warmup, measured);
    EXPECT_EQ(cpp.allocations, 4.0);
    EXPECT_NEAR(cpp.deallocations, 4.0, 0.05);
}

}  // namespace
}  // namespace cpp_engine
