// The packet of the model in its two designs, and the wire format the data source writes.
//
// Both designs keep the original's 1024-byte buffer allocated apart from the packet
// object, so that they differ only in what parsing does:
// - cpp_design: the direct translation of the Java model. Parsing allocates an IpHeader,
//   two Ipv4Address objects and an IpPacket (four new/delete per packet); the packet owns
//   them until it is reset, re-parsed or deleted, so nothing leaks, the dummy strategy
//   included (the original's dummy leaked them).
// - flat_design: the same objects live inside the packet; parsing allocates nothing.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "hot_path.hpp"

namespace cpp_engine {

inline constexpr std::size_t packet_bytes = 1024;
inline constexpr std::uint32_t ip_protocol_word = 0x0800;
inline constexpr std::uint32_t tcp_protocol = 6;
inline constexpr std::uint32_t udp_protocol = 17;

// Network byte order (big-endian), as Java's ByteBuffer.
template <class UInt>
CPP_ENGINE_HOT constexpr UInt to_network_order(UInt value) noexcept {
    if constexpr (std::endian::native == std::endian::big) {
        return value;
    } else if constexpr (sizeof(UInt) == 4) {
        return __builtin_bswap32(value);
    } else {
        return __builtin_bswap16(value);
    }
}

// Big-endian (network order) writes into a packet buffer. Each field is one store of its
// own width, so that a read of the same field right after (the dummy strategy parses the
// packet it has just filled) is served by store-to-load forwarding; byte-wise stores
// would make every such read wait for them to reach the cache.
class ByteWriter {
public:
    explicit ByteWriter(std::byte* data) noexcept : data_(data) {}

    CPP_ENGINE_HOT void put16(std::uint16_t value) noexcept { put(to_network_order(value)); }
    CPP_ENGINE_HOT void put32(std::uint32_t value) noexcept { put(to_network_order(value)); }

    std::uint32_t written() const noexcept { return position_; }

private:
    template <class UInt>
    CPP_ENGINE_HOT void put(UInt value) noexcept {
        std::memcpy(data_ + position_, &value, sizeof(value));
        position_ += sizeof(value);
    }

    std::byte* data_;
    std::uint32_t position_ = 0;
};

// Big-endian reads from the start of a packet buffer, one load per field.
class ByteReader {
public:
    explicit ByteReader(const std::byte* data) noexcept : data_(data) {}

    CPP_ENGINE_HOT std::uint16_t get16() noexcept { return to_network_order(get<std::uint16_t>()); }
    CPP_ENGINE_HOT std::uint32_t get32() noexcept { return to_network_order(get<std::uint32_t>()); }

private:
    template <class UInt>
    CPP_ENGINE_HOT UInt get() noexcept {
        UInt value;
        std::memcpy(&value, data_ + position_, sizeof(value));
        position_ += sizeof(value);
        return value;
    }

    const std::byte* data_;
    std::uint32_t position_ = 0;
};

// What every packet carries whatever its design: the buffer, the bytes written into it,
// its number in the run (the random source's draws depend on it), and the pool's
// bookkeeping (an intrusive free-list link and the handed-out mark that makes a double
// release detectable).
// Packed into 32 bytes (length and the mark share a word), so that adding the number
// did not make the packet object larger: the packets of cases B and C are cache misses,
// and a larger object straddles more cache lines.
struct PacketFrame {
    PacketFrame() = default;
    // Adopts a buffer of packet_bytes made elsewhere (the pmr strategy's, from its memory
    // resource); whoever made it takes it back (buffer.release()) before the packet dies.
    explicit PacketFrame(std::byte* adopted) noexcept : buffer(adopted) {}

    // Default-initialized like the original's `new unsigned char[SIZE]`: the source
    // writes the bytes it uses.
    std::unique_ptr<std::byte[]> buffer{new std::byte[packet_bytes]};
    std::uint64_t number = 0;
    PacketFrame* next_free = nullptr;
    std::uint32_t length = 0;
    bool live = false;

    std::span<const std::byte> bytes() const noexcept { return {buffer.get(), length}; }
};
static_assert(sizeof(PacketFrame) == 32);

namespace cpp_design {

struct Ipv4Address {
    explicit Ipv4Address(std::uint32_t address) noexcept : address(address) {}
    std::uint32_t address;
};

// Reads the fields after the protocol word; allocates its two addresses.
struct IpHeader {
    explicit IpHeader(ByteReader& in)
        : source(std::make_unique<Ipv4Address>(in.get32())),
          destination(std::make_unique<Ipv4Address>(in.get32())),
          source_port(in.get16()),
          destination_port(in.get16()),
          protocol(in.get32()) {}

    std::unique_ptr<const Ipv4Address> source;
    std::unique_ptr<const Ipv4Address> destination;
    std::uint16_t source_port;
    std::uint16_t destination_port;
    std::uint32_t protocol;
};

struct IpPacket {
    std::uint32_t transport_protocol() const noexcept { return header->protocol; }

    std::unique_ptr<const IpHeader> header;
    std::span<const std::byte> payload;  // a view of the packet's buffer, as Java's read-only slice
};

class Packet : public PacketFrame {
public:
    using PacketFrame::PacketFrame;
    static constexpr const char* design = "cpp";

    // The parse result, or null when the buffer does not hold an IP packet. Replaces
    // (and frees) a previous result.
    CPP_ENGINE_HOT const IpPacket* parse_ip() {
        ByteReader in(buffer.get());
        if (in.get32() != ip_protocol_word) {
            return nullptr;
        }
        auto header = std::make_unique<const IpHeader>(in);
        ip_packet_ = std::make_unique<IpPacket>(IpPacket{std::move(header), bytes()});
        return ip_packet_.get();
    }

    // Frees the parse results: called when the packet goes back to a pool.
    CPP_ENGINE_HOT void reset() noexcept { ip_packet_.reset(); }

    const IpPacket* ip_packet() const noexcept { return ip_packet_.get(); }

private:
    std::unique_ptr<IpPacket> ip_packet_;
};

}  // namespace cpp_design

namespace flat_design {

struct Ipv4Address {
    std::uint32_t address = 0;
};

struct IpHeader {
    CPP_ENGINE_HOT void read(ByteReader& in) noexcept {
        source.address = in.get32();
        destination.address = in.get32();
        source_port = in.get16();
        destination_port = in.get16();
        protocol = in.get32();
    }

    Ipv4Address source;
    Ipv4Address destination;
    std::uint16_t source_port = 0;
    std::uint16_t destination_port = 0;
    std::uint32_t protocol = 0;
};

struct IpPacket {
    std::uint32_t transport_protocol() const noexcept { return header.protocol; }

    IpHeader header;
    std::span<const std::byte> payload;
};

class Packet : public PacketFrame {
public:
    using PacketFrame::PacketFrame;
    static constexpr const char* design = "flat";

    // The parse result (stored in the packet), or null when it is not an IP packet.
    CPP_ENGINE_HOT const IpPacket* parse_ip() noexcept {
        ByteReader in(buffer.get());
        if (in.get32() != ip_protocol_word) {
            return nullptr;
        }
        storage_.header.read(in);
        storage_.payload = bytes();
        ip_packet_ = &storage_;
        return ip_packet_;
    }

    CPP_ENGINE_HOT void reset() noexcept { ip_packet_ = nullptr; }

    const IpPacket* ip_packet() const noexcept { return ip_packet_; }

private:
    IpPacket storage_;
    const IpPacket* ip_packet_ = nullptr;
};

}  // namespace flat_design

}  // namespace cpp_engine
