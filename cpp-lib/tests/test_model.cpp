// The model's parts and its buffer conservation: the generator matches java-lib's, the
// source writes what the article describes, every strategy in both designs accounts for
// every packet (free + in use == capacity, in use == FIFO + store) and frees everything
// at the end, and pools detect double release and exhaustion.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "alloc_counter.hpp"
#include "case_params.hpp"
#include "data_source.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "strategies.hpp"
#include "xorshift.hpp"

namespace cpp_engine {
namespace {

TEST(XorShift, MatchesJavaLibSequence) {
    // Values from java-lib's XorShift (same splitmix64 seeding, xorshift64 13/7/17).
    XorShift random(42);
    EXPECT_EQ(random.next(), 0xfb4d394f8eadbd08ULL);
    EXPECT_EQ(random.next(), 0x5eca1bf6459aa472ULL);
    EXPECT_EQ(random.next(), 0x68488c8e0042cdbaULL);
    XorShift bounded(0);
    for (std::uint32_t expected : {409U, 187U, 78U, 965U, 766U}) {
        EXPECT_EQ(bounded.next_below(1024), expected);
    }
}

TEST(CaseParams, ArticleTableAndScaling) {
    const CaseParams a = CaseParams::of("A", 1);
    EXPECT_EQ(a.pool_size, 1'000'000U);
    EXPECT_EQ(a.mix_pool_size, 200'000U);
    EXPECT_EQ(a.internal_queue_size, 10'000U);
    EXPECT_EQ(a.stored_count, 10'000U);
    EXPECT_EQ(CaseParams::of("B", 1).stored_count, 100'000U);
    EXPECT_EQ(CaseParams::of("C", 1).internal_queue_size, 495'000U);
    const CaseParams small = CaseParams::of("C", 0.05);
    EXPECT_EQ(small.pool_size, 50'000U);
    EXPECT_EQ(small.internal_queue_size, 24'750U);
    EXPECT_EQ(CaseParams::of("A", 1e-9).stored_count, 1U);  // rounded, at least 1
    EXPECT_THROW(CaseParams::of("D", 1), std::invalid_argument);
    EXPECT_THROW(CaseParams::of("A", 0), std::invalid_argument);
    EXPECT_THROW(CaseParams::of("A", 1.5), std::invalid_argument);
}

TEST(DataSource, WritesTheArticlesFields) {
    DataSource source(7);
    flat_design::Packet packet;
    int tcp = 0;
    constexpr int packets = 160'000;
    for (int i = 0; i < packets; ++i) {
        source.fill(packet);
        ASSERT_EQ(packet.length, 24U);
        ByteReader in(packet.buffer.get());
        ASSERT_EQ(in.get32(), ip_protocol_word);
        ASSERT_LT(in.get32(), DataSource::addresses);
        ASSERT_LT(in.get32(), DataSource::addresses);
        ASSERT_LT(in.get16(), DataSource::ports);
        ASSERT_LT(in.get16(), DataSource::ports);
        const std::uint32_t protocol = in.get32();
        ASSERT_TRUE(protocol == tcp_protocol || protocol == udp_protocol);
        tcp += protocol == tcp_protocol;
        const std::uint32_t length = in.get32();
        ASSERT_GE(length, 50U);
        ASSERT_LE(length, 113U);
    }
    EXPECT_NEAR(tcp, packets / 16, packets / 16 / 10);  // 1 in 16, within 10 %
}

TEST(Packet, BothDesignsParseTheSameFields) {
    DataSource source_a(3);
    DataSource source_b(3);
    cpp_design::Packet cpp_packet;
    flat_design::Packet flat_packet;
    for (int i = 0; i < 100; ++i) {
        source_a.fill(cpp_packet);
        source_b.fill(flat_packet);
        const cpp_design::IpPacket* cpp_ip = cpp_packet.parse_ip();
        const flat_design::IpPacket* flat_ip = flat_packet.parse_ip();
        ASSERT_NE(cpp_ip, nullptr);
        ASSERT_NE(flat_ip, nullptr);
        EXPECT_EQ(cpp_ip->header->source->address, flat_ip->header.source.address);
        EXPECT_EQ(cpp_ip->header->destination->address, flat_ip->header.destination.address);
        EXPECT_EQ(cpp_ip->header->source_port, flat_ip->header.source_port);
        EXPECT_EQ(cpp_ip->header->destination_port, flat_ip->header.destination_port);
        EXPECT_EQ(cpp_ip->transport_protocol(), flat_ip->transport_protocol());
        EXPECT_EQ(cpp_ip->payload.size(), 24U);
        EXPECT_EQ(cpp_packet.ip_packet(), cpp_ip);
        EXPECT_EQ(flat_packet.ip_packet(), flat_ip);
    }
    // Reset (a packet going back to a pool) drops the parse result; in the cpp design
    // that frees its four objects.
    const std::int64_t live = alloc_counter::this_thread().live();
    cpp_packet.reset();
    flat_packet.reset();
    EXPECT_EQ(cpp_packet.ip_packet(), nullptr);
    EXPECT_EQ(flat_packet.ip_packet(), nullptr);
    EXPECT_EQ(alloc_counter::this_thread().live(), live - 4);
    flat_packet.buffer[0] = std::byte{0xFF};  // not an IP packet any more
    EXPECT_EQ(flat_packet.parse_ip(), nullptr);
}

// Runs `steps` packets through a model of design P and strategy S, checks the
// accounting at the end, and checks that destroying the model frees every block.
template <class P, template <class> class S>
void check_conservation(const CaseParams& params, int steps) {
    const std::int64_t live_before = alloc_counter::this_thread().live();
    {
        Model<P, S> model(params, 11);
        for (int i = 0; i < steps; ++i) {
            model.step();
        }
        const PoolCounts counts = model.strategy().counts();
        EXPECT_EQ(counts.free + counts.in_use, counts.capacity);
        EXPECT_EQ(model.conservation_error(), std::nullopt);
        if constexpr (!S<P>::shares_one_packet) {
            EXPECT_EQ(counts.in_use, model.processor().fifo_size() + model.processor().stored());
            EXPECT_EQ(counts.in_use, model.processor().held());
            EXPECT_GT(model.processor().stored(), 0U);
        } else {
            EXPECT_EQ(counts.capacity, 1U);
        }
    }
    EXPECT_EQ(alloc_counter::this_thread().live(), live_before) << "blocks leaked by " << P::design << " "
                                                                << S<P>::name;
}

template <class P>
void check_all_strategies(const CaseParams& params, int steps) {
    check_conservation<P, DummyStrategy>(params, steps);
    check_conservation<P, AllocStrategy>(params, steps);
    check_conservation<P, MixStrategy>(params, steps);
    check_conservation<P, PoolStrategy>(params, steps);
}

TEST(Conservation, EveryStrategyCppDesign) { check_all_strategies<cpp_design::Packet>(CaseParams::of("B", 0.01), 60'000); }

TEST(Conservation, EveryStrategyFlatDesign) { check_all_strategies<flat_design::Packet>(CaseParams::of("B", 0.01), 60'000); }

TEST(Conservation, CaseCAtScale) {
    // C at 1 %: 4,950 + 4,950 held at most, pool 10,000, mix pool 2,000 (it must grow).
    check_all_strategies<cpp_design::Packet>(CaseParams::of("C", 0.01), 120'000);
    check_all_strategies<flat_design::Packet>(CaseParams::of("C", 0.01), 120'000);
}

TEST(Conservation, MixGrowsBeyondItsPoolAndStaysBalanced) {
    Model<flat_design::Packet, MixStrategy> model(CaseParams::of("C", 0.01), 5);
    for (int i = 0; i < 100'000; ++i) {
        model.step();
    }
    const PoolCounts counts = model.strategy().counts();
    EXPECT_GT(counts.capacity, 2'000U);
    EXPECT_TRUE(counts.balanced());
    EXPECT_EQ(counts.in_use, model.processor().held());
}

TEST(Conservation, DummyCppDesignDoesNotLeakParseObjects) {
    // The original's dummy leaked four objects per packet; here the blocks alive stay flat.
    Model<cpp_design::Packet, DummyStrategy> model(CaseParams::of("A", 0.1), 1);
    for (int i = 0; i < 10'000; ++i) {
        model.step();
    }
    const std::int64_t live = alloc_counter::this_thread().live();
    for (int i = 0; i < 50'000; ++i) {
        model.step();
    }
    EXPECT_EQ(alloc_counter::this_thread().live(), live);
}

template <class P, template <class> class S>
void check_double_release() {
    S<P> strategy(CaseParams::of("A", 0.01));
    P* packet = strategy.acquire();
    strategy.release(packet);
    EXPECT_THROW(strategy.release(packet), DoubleRelease);
    const PoolCounts counts = strategy.counts();
    EXPECT_TRUE(counts.balanced());
    EXPECT_EQ(counts.in_use, 0U);
}

TEST(Pool, DoubleReleaseIsDetected) {
    check_double_release<cpp_design::Packet, PoolStrategy>();
    check_double_release<flat_design::Packet, PoolStrategy>();
    check_double_release<cpp_design::Packet, MixStrategy>();
    check_double_release<flat_design::Packet, MixStrategy>();
}

TEST(Pool, ExhaustionIsAnError) {
    CaseParams params = CaseParams::of("A", 0.01);  // 100 + 100 held at most
    params.pool_size = 50;
    Model<flat_design::Packet, PoolStrategy> model(params, 1);
    EXPECT_THROW(
            {
                for (int i = 0; i < 1'000; ++i) {
                    model.step();
                }
            },
            PoolExhausted);
    EXPECT_EQ(model.strategy().counts().in_use, 50U);
}

TEST(Pool, HandsOutInAllocationOrderAndReusesLastFreed) {
    PoolStrategy<flat_design::Packet> pool(CaseParams::of("A", 0.001));
    flat_design::Packet* first = pool.acquire();
    flat_design::Packet* second = pool.acquire();
    EXPECT_NE(first, second);
    pool.release(first);
    EXPECT_EQ(pool.acquire(), first);  // LIFO: the warmest packet goes out again
    pool.release(first);
    pool.release(second);
    EXPECT_EQ(pool.counts().in_use, 0U);
}

}  // namespace
}  // namespace cpp_engine
