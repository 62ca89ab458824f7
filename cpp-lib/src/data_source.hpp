// The packet generator: fills an acquired packet with IP-like fields and allocates
// nothing. Same layout and draws as java-lib's DataSource: protocol word (IP), source and
// destination address (from 1,024), source and destination port (from 1,024), transport
// protocol (TCP for 1 packet in 16, else UDP) and a length of 50..113; the rest of the
// 1024 bytes is left as it is.
#pragma once

#include <cstdint>

#include "hot_path.hpp"
#include "packet.hpp"
#include "xorshift.hpp"

namespace cpp_engine {

class DataSource {
public:
    static constexpr std::uint32_t addresses = 1024;
    static constexpr std::uint32_t ports = 1024;
    static constexpr std::uint32_t tcp_one_in = 16;
    static constexpr std::uint32_t min_length = 50;
    static constexpr std::uint32_t lengths = 64;

    explicit DataSource(std::uint64_t seed) noexcept : random_(seed) {}

    CPP_ENGINE_HOT void fill(PacketFrame& packet) noexcept {
        ByteWriter out(packet.buffer.get());
        out.put32(ip_protocol_word);
        out.put32(random_.next_below(addresses));
        out.put32(random_.next_below(addresses));
        out.put16(static_cast<std::uint16_t>(random_.next_below(ports)));
        out.put16(static_cast<std::uint16_t>(random_.next_below(ports)));
        out.put32(random_.next_below(tcp_one_in) == 0 ? tcp_protocol : udp_protocol);
        out.put32(min_length + random_.next_below(lengths));
        packet.length = out.written();
    }

private:
    XorShift random_;
};

}  // namespace cpp_engine
