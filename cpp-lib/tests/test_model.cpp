// The model's parts and its buffer conservation: the counter source makes the published
// code's packets and store indexes (checked by hand), the random source the spec's test
// vectors, the case table and its overrides, every strategy in both designs accounts for
// every packet (free + in use == capacity, in use == FIFO + store) and frees everything
// at the end, and pools detect double release and exhaustion.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>

#include "alloc_counter.hpp"
#include "case_params.hpp"
#include "model.hpp"
#include "packet.hpp"
#include "packet_source.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

// The fields of a filled packet, read back from its wire format.
struct Fields {
    std::uint32_t length;
    std::uint32_t source_address;
    std::uint32_t destination_address;
    std::uint32_t source_port;
    std::uint32_t destination_port;
    bool tcp;

    bool operator==(const Fields&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Fields& f) {
    return out << "{length " << f.length << ", src " << f.source_address << ", dst " << f.destination_address
               << ", sport " << f.source_port << ", dport " << f.destination_port << (f.tcp ? ", TCP}" : ", UDP}");
}

Fields read_fields(const PacketFrame& packet) {
    EXPECT_EQ(packet.length, 24U);
    ByteReader in(packet.buffer.get());
    EXPECT_EQ(in.get32(), ip_protocol_word);
    Fields fields{};
    fields.source_address = in.get32();
    fields.destination_address = in.get32();
    fields.source_port = in.get16();
    fields.destination_port = in.get16();
    const std::uint32_t protocol = in.get32();
    EXPECT_TRUE(protocol == tcp_protocol || protocol == udp_protocol) << protocol;
    fields.tcp = protocol == tcp_protocol;
    fields.length = in.get32();
    return fields;
}

TEST(CounterSource, FirstPacketsByHand) {
    // Packet k draws counter values 6k+1..6k+6 (no packet is processed yet):
    // length 50 + (6k+1) % 64, then 6k+2, 6k+3, 6k+4, 6k+5 % 1024, TCP iff (6k+6) % 16 == 0.
    CounterSource source(12345);  // the seed is ignored
    flat_design::Packet packet;
    const Fields expected[] = {
            {51, 2, 3, 4, 5, false},     // 6 % 16 != 0
            {57, 8, 9, 10, 11, false},   //
            {63, 14, 15, 16, 17, false}, //
    };
    for (const Fields& fields : expected) {
        source.fill(packet);
        EXPECT_EQ(read_fields(packet), fields);
    }
    for (int k = 3; k < 7; ++k) {
        source.fill(packet);
        EXPECT_FALSE(read_fields(packet).tcp) << k;
    }
    source.fill(packet);  // packet 7: draws 43..48, and 48 % 16 == 0
    EXPECT_EQ(read_fields(packet), (Fields{93, 44, 45, 46, 47, true}));
    EXPECT_EQ(source.counter(), 48U);
    EXPECT_EQ(source.store_index(packet, 5), 49U % 5);  // the next value of the same counter
}

TEST(CounterSource, ThroughTheFifoByHand) {
    // FIFO of 4, store of 5. Packets 0..10 draw 1..66 as above; packet 7 (TCP) leaves the
    // FIFO when packet 10 enters it, so its store index is the next value, 67 % 5 = 2; packet
    // 11 then draws 68..73: length 50 + 68 % 64 = 54, src 69, dst 70, sport 71, dport 72,
    // UDP (73 % 16 = 9).
    CaseParams params = CaseParams::of("A", 1);
    params.internal_queue_size = 4;
    params.stored_count = 5;
    Model<flat_design::Packet, PoolStrategy, CounterSource> model(params, 1);
    for (int k = 0; k <= 9; ++k) {
        model.step();
    }
    EXPECT_EQ(model.processor().stored(), 0U);
    model.step();  // packet 10 in, packet 7 processed
    EXPECT_EQ(model.processor().stored(), 1U);
    ASSERT_NE(model.processor().stored_at(2), nullptr);
    EXPECT_EQ(read_fields(*model.processor().stored_at(2)), (Fields{93, 44, 45, 46, 47, true}));
    model.step();  // packet 11
    EXPECT_EQ(read_fields(*model.processor().newest()), (Fields{54, 69, 70, 71, 72, false}));
}

TEST(CounterSource, TcpShareAndStoreFillWithTheArticlesCaseA) {
    // The published code's dynamics: an odd number of pending index draws makes every
    // sixth draw odd (no TCP), an even number gives 1 in 8, so the share settles near 1 in 16.
    Model<flat_design::Packet, PoolStrategy, CounterSource> model(CaseParams::of("A", 1), 1);
    constexpr int packets = 1'000'000;
    int tcp = 0;
    for (int i = 0; i < packets; ++i) {
        model.step();
        tcp += read_fields(*model.processor().newest()).tcp;
    }
    EXPECT_EQ(model.processor().stored(), 1'000U);  // every slot reached
    EXPECT_NEAR(static_cast<double>(tcp) / packets, 1.0 / 16, 0.01);
}

TEST(RandomSource, SpecTestVectors) {
    // Seed 1: the vectors both engines check.
    RandomSource source(1);
    EXPECT_EQ(source.draw(0, RandomSource::length_field), 0x7ab40e090f363a7dULL);
    flat_design::Packet packet;
    const std::pair<Fields, std::uint32_t> first[] = {
            {{80, 767, 381, 448, 977, false}, 59576},
            {{61, 322, 903, 527, 546, false}, 20182},
            {{84, 84, 513, 514, 486, false}, 35073},
    };
    for (std::uint64_t p = 0; p < 3; ++p) {
        source.fill(packet);
        EXPECT_EQ(packet.number, p);
        EXPECT_EQ(read_fields(packet), first[p].first) << p;
        EXPECT_EQ(source.store_index(packet, 100'000), first[p].second) << p;
    }
    while (packet.number < 1'000'000) {
        source.fill(packet);
    }
    EXPECT_EQ(read_fields(packet), (Fields{94, 704, 836, 872, 357, false}));
    EXPECT_EQ(source.store_index(packet, 100'000), 66718U);
}

TEST(RandomSource, FieldsInRangeAndTcpOneIn16) {
    RandomSource source(7);
    flat_design::Packet packet;
    int tcp = 0;
    constexpr int packets = 160'000;
    for (int i = 0; i < packets; ++i) {
        source.fill(packet);
        const Fields fields = read_fields(packet);
        ASSERT_LT(fields.source_address, source_addresses);
        ASSERT_LT(fields.destination_address, source_addresses);
        ASSERT_LT(fields.source_port, source_ports);
        ASSERT_LT(fields.destination_port, source_ports);
        ASSERT_GE(fields.length, 50U);
        ASSERT_LE(fields.length, 113U);
        tcp += fields.tcp;
    }
    EXPECT_NEAR(tcp, packets / 16, packets / 16 / 10);  // 1 in 16, within 10 %
}

TEST(CaseParams, CaseTableScalingAndOverrides) {
    const CaseParams a = CaseParams::of("A", 1);
    EXPECT_EQ(a.pool_size, 1'000'000U);
    EXPECT_EQ(a.mix_pool_size, 200'000U);
    EXPECT_EQ(a.internal_queue_size, 1'000U);  // as the published code ran case A
    EXPECT_EQ(a.stored_count, 1'000U);
    EXPECT_EQ(CaseParams::of("B", 1).stored_count, 100'000U);
    EXPECT_EQ(CaseParams::of("C", 1).internal_queue_size, 495'000U);
    const CaseParams small = CaseParams::of("C", 0.05);
    EXPECT_EQ(small.pool_size, 50'000U);
    EXPECT_EQ(small.internal_queue_size, 24'750U);
    EXPECT_EQ(small.table_internal_queue_size, 495'000U);
    EXPECT_EQ(CaseParams::of("A", 1e-9).stored_count, 1U);  // rounded, at least 1
    EXPECT_THROW(CaseParams::of("D", 1), std::invalid_argument);
    EXPECT_THROW(CaseParams::of("A", 0), std::invalid_argument);
    EXPECT_THROW(CaseParams::of("A", 1.5), std::invalid_argument);

    const CaseParams table_a = with_overrides(CaseParams::of("A", 0.5), {10'000, 10'000, std::nullopt});
    EXPECT_EQ(table_a.internal_queue_size, 10'000U);
    EXPECT_EQ(table_a.stored_count, 10'000U);
    EXPECT_EQ(table_a.pool_size, 500'000U);  // scaled, not overridden
    EXPECT_EQ(table_a.table_internal_queue_size, 1'000U);
    EXPECT_EQ(table_a.table_stored_count, 1'000U);
    EXPECT_EQ(with_overrides(CaseParams::of("B", 1), {std::nullopt, 7, 10'000'000}).pool_size, 10'000'000U);
}

TEST(Packet, BothDesignsParseTheSameFields) {
    RandomSource source_a(3);
    RandomSource source_b(3);
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
    check_conservation<P, PmrStrategy>(params, steps);
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
    check_double_release<cpp_design::Packet, PmrStrategy>();
    check_double_release<flat_design::Packet, PmrStrategy>();
}

TEST(Pool, ExhaustionIsAnError) {
    CaseParams params = CaseParams::of("A", 0.01);  // 10 + 10 held at most
    params.pool_size = 12;
    Model<flat_design::Packet, PoolStrategy> model(params, 1);
    EXPECT_THROW(
            {
                for (int i = 0; i < 1'000; ++i) {
                    model.step();
                }
            },
            PoolExhausted);
    EXPECT_EQ(model.strategy().counts().in_use, 12U);
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
