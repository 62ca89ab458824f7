// The two packet sources (`--source`): what fills each acquired packet and picks the
// store slot a TCP packet replaces. Both fill the same fields, in the same layout, and
// allocate nothing; java-lib's sources make the same packets for the same seed.
//
// - counter: the published code's draws, exactly. One counter; each field, and the
//   store index, is the counter's next value modulo its range. Cheap, and with the FIFO
//   in between the store index advances in small strides (a sweep that caches serve
//   well), not the random replacement the article describes.
// - random: what the article describes. Every field of packet p is an independent
//   stateless hash of (seed, p, field), so the CPU can overlap the draws, and the store
//   index is uniform.
//
// Per packet the draws are, in this order: length (50 + x % 64), source address
// (% 1024), destination address, source port, destination port, TCP (x % 16 == 0);
// the processor draws the store index later, when it processes a TCP packet.
#pragma once

#include <cstdint>

#include "hot_path.hpp"
#include "packet.hpp"

namespace cpp_engine {

inline constexpr std::uint32_t source_addresses = 1024;
inline constexpr std::uint32_t source_ports = 1024;
inline constexpr std::uint32_t tcp_one_in = 16;
inline constexpr std::uint32_t min_length = 50;
inline constexpr std::uint32_t lengths = 64;

// The fields one packet carries, in wire order: protocol word, source address,
// destination address, source port, destination port, transport protocol, length
// (big-endian, as Java's ByteBuffer). The rest of the 1024 bytes is left as it is.
CPP_ENGINE_HOT inline void write_packet(PacketFrame& packet, std::uint32_t length, std::uint32_t source_address,
                                        std::uint32_t destination_address, std::uint32_t source_port,
                                        std::uint32_t destination_port, bool tcp) noexcept {
    ByteWriter out(packet.buffer.get());
    out.put32(ip_protocol_word);
    out.put32(source_address);
    out.put32(destination_address);
    out.put16(static_cast<std::uint16_t>(source_port));
    out.put16(static_cast<std::uint16_t>(destination_port));
    out.put32(tcp ? tcp_protocol : udp_protocol);
    out.put32(length);
    packet.length = out.written();
}

class CounterSource {
public:
    static constexpr const char* name = "counter";

    // The counter source has no seed (the header still records the run's).
    explicit CounterSource(std::uint64_t /*seed*/) noexcept {}

    CPP_ENGINE_HOT void fill(PacketFrame& packet) noexcept {
        // The six successive values, each from the counter as it was: no chain of six
        // dependent increments (masking commutes with adding).
        const std::uint32_t base = counter_;
        counter_ = masked(base + 6);
        write_packet(packet, min_length + masked(base + 1) % lengths, masked(base + 2) % source_addresses,
                     masked(base + 3) % source_addresses, masked(base + 4) % source_ports,
                     masked(base + 5) % source_ports, masked(base + 6) % tcp_one_in == 0);
    }

    // From the same counter, when the packet is processed (after the FIFO, so later).
    CPP_ENGINE_HOT std::uint32_t store_index(const PacketFrame& /*packet*/, std::uint32_t stored_count) noexcept {
        counter_ = masked(counter_ + 1);
        return counter_ % stored_count;
    }

    // The last value drawn (0 before any draw).
    std::uint32_t counter() const noexcept { return counter_; }

private:
    // 31 bits, as the published Java code's (++count) & 0x7FFFFFFF. The published C++
    // used an unsigned 32-bit counter with no mask, which draws the same values for the
    // first 2^31 draws; both engines use the 31-bit form so that they make the same packets.
    static constexpr std::uint32_t masked(std::uint32_t value) noexcept { return value & 0x7FFF'FFFFU; }

    std::uint32_t counter_ = 0;
};

class RandomSource {
public:
    static constexpr const char* name = "random";

    // Fields of draw(): the six of fill(), then the store index.
    enum Field : std::uint64_t {
        length_field = 0,
        source_address_field,
        destination_address_field,
        source_port_field,
        destination_port_field,
        tcp_field,
        store_index_field
    };

    explicit RandomSource(std::uint64_t seed) noexcept : mixed_seed_(mix64(seed)) {}

    CPP_ENGINE_HOT void fill(PacketFrame& packet) noexcept {
        const std::uint64_t p = packets_++;
        packet.number = p;
        write_packet(packet, min_length + below(draw(p, length_field), lengths),
                     below(draw(p, source_address_field), source_addresses),
                     below(draw(p, destination_address_field), source_addresses),
                     below(draw(p, source_port_field), source_ports),
                     below(draw(p, destination_port_field), source_ports),
                     below(draw(p, tcp_field), tcp_one_in) == 0);
    }

    // Depends only on the packet's number: no state, in any order.
    CPP_ENGINE_HOT std::uint32_t store_index(const PacketFrame& packet, std::uint32_t stored_count) const noexcept {
        return below(draw(packet.number, store_index_field), stored_count);
    }

    // splitmix64's finalizer.
    static constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
        z = (z ^ (z >> 30)) * 0xBF58'476D'1CE4'E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D0'49BB'1331'11EBULL;
        return z ^ (z >> 31);
    }

    // The draw for field f of packet p (all mod 2^64).
    CPP_ENGINE_HOT std::uint64_t draw(std::uint64_t p, std::uint64_t field) const noexcept {
        return mix64(mixed_seed_ + (p * 8 + field) * golden_gamma);
    }

    // Uniform in [0, bound): the high 32 bits scaled by a multiplication.
    static constexpr std::uint32_t below(std::uint64_t draw, std::uint32_t bound) noexcept {
        return static_cast<std::uint32_t>(((draw >> 32) * bound) >> 32);
    }

private:
    static constexpr std::uint64_t golden_gamma = 0x9E37'79B9'7F4A'7C15ULL;

    std::uint64_t mixed_seed_;
    std::uint64_t packets_ = 0;
};

}  // namespace cpp_engine
