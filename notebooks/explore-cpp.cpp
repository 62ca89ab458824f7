// ---
// jupyter:
//   jupytext:
//     text_representation:
//       extension: .cpp
//       format_name: percent
//   kernelspec:
//     display_name: C++20 (cppyy)
//     language: c++
//     name: cpp20-cppyy
// ---

// %% [markdown]
// # Exploring the C++ engine from C++
//
// This notebook runs in the project's C++ kernel: Cling (through cppyy) compiles each cell
// at -O2 and keeps everything it declares for the next cells. cpp-lib's and native-queue's
// headers are on the include path, and the kernel preloads cpp-lib's counting
// `operator new`/`delete`, so `alloc_counter::this_thread()` counts every allocation this
// thread makes, the interpreter's own included (it compiles between statements): count
// inside one statement or function, as below. A compile error, an uncaught exception or a
// crash ends the cell with an error.

// %%
#include <chrono>
#include <cstdio>
#include <iostream>

#include "alloc_counter.hpp"
#include "model.hpp"

using namespace cpp_engine;

#ifdef __OPTIMIZE__
constexpr const char* optimization = "optimized";
#else
constexpr const char* optimization = "not optimized";
#endif
std::cout << "Cling on Clang " << __clang_major__ << "." << __clang_minor__ << ", " << optimization << std::endl;

// %% [markdown]
// ## A flat packet
// In the flat design, the parse results live inside the packet: filling and parsing one
// allocates nothing.

// %%
flat_design::Packet packet;
CounterSource source(42);  // the published code's draws (--source counter)
const flat_design::IpPacket* ip = nullptr;
std::uint64_t parse_allocations = 0;
{  // one statement, so that nothing but filling and parsing runs between the two counts
    const auto before = alloc_counter::this_thread();
    source.fill(packet);
    ip = packet.parse_ip();
    parse_allocations = alloc_counter::this_thread().allocations - before.allocations;
}
std::printf("%u:%u -> %u:%u, transport protocol %u, %u bytes written; %llu allocations\n",
            ip->header.source.address, ip->header.source_port, ip->header.destination.address,
            ip->header.destination_port, ip->transport_protocol(), packet.length,
            static_cast<unsigned long long>(parse_allocations));

// %% [markdown]
// ## A small pooled batch
// The engine's model (`Model::step`: acquire, fill, process) with the pool strategy, at
// case A's shape scaled down: after a warm-up that fills the FIFO and the store, a timed
// run counts its allocations.

// %%
const CaseParams params = CaseParams::of("A", 0.02);
constexpr long warmup_packets = 200'000;
constexpr long measured_packets = 1'000'000;

template <class P, template <class> class S>
void batch(const char* label) {
    Model<P, S> model(params, 1);
    for (long i = 0; i < warmup_packets; ++i) model.step();
    const auto before = alloc_counter::this_thread();
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < measured_packets; ++i) model.step();
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    const auto after = alloc_counter::this_thread();
    const PoolCounts counts = model.strategy().counts();
    std::printf("%-11s %6.1f ns/packet %5.2f allocations/packet  (capacity %llu, free %llu, in use %llu)\n",
                label, elapsed.count() / measured_packets,
                double(after.allocations - before.allocations) / measured_packets,
                static_cast<unsigned long long>(counts.capacity), static_cast<unsigned long long>(counts.free),
                static_cast<unsigned long long>(counts.in_use));
    if (auto error = model.conservation_error()) throw std::logic_error(*error);
}

batch<flat_design::Packet, PoolStrategy>("flat pool");

// %% [markdown]
// The same batch with the other strategies and the allocating design, for contrast: the
// flat design allocates only what its strategy does (a packet and its buffer for alloc),
// the `cpp` design four more objects per parsed packet.

// %%
batch<flat_design::Packet, DummyStrategy>("flat dummy");
batch<flat_design::Packet, MixStrategy>("flat mix");
batch<flat_design::Packet, AllocStrategy>("flat alloc");
batch<cpp_design::Packet, PoolStrategy>("cpp pool");
batch<cpp_design::Packet, AllocStrategy>("cpp alloc");
