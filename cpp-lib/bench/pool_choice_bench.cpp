// pool_choice_bench: the measurement behind the choice of the pool's mechanism.
//
// Each candidate hands out and takes back raw packet blocks (1024-byte buffer plus the
// packet's fields) under the model's own pattern: acquire, write the 24 header bytes,
// hold INTERNAL_QUEUE_SIZE blocks in a FIFO, read the oldest, keep 1 in 16 in a store of
// STORED_COUNT with random replacement, give the others back. Candidates: a small
// intrusive free list, a stack of pointers (the original's std::vector), the standard's
// std::pmr::unsynchronized_pool_resource, Boost.Pool (boost::pool<>, when Boost is
// found), and malloc/free for reference. All pools are filled before timing.
//
// usage: pool_choice_bench [--scale F] [--packets N] [--repeat N]   (defaults 0.1, 20000000, 3)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <string>
#include <utility>
#include <vector>

#if POOL_CHOICE_HAS_BOOST
#include <boost/pool/pool.hpp>
#endif

#include "case_params.hpp"
#include "packet.hpp"
#include "packet_source.hpp"
#include "processor.hpp"

namespace {

using cpp_engine::CaseParams;

constexpr std::size_t block_bytes = cpp_engine::packet_bytes + 64;

class IntrusiveFreeList {
public:
    explicit IntrusiveFreeList(std::uint32_t blocks) : memory_(blocks * block_bytes) {
        for (std::uint32_t i = blocks; i-- > 0;) {
            Node* node = reinterpret_cast<Node*>(memory_.data() + i * block_bytes);
            node->next = head_;
            head_ = node;
        }
    }
    void* acquire() {
        Node* node = head_;
        head_ = node->next;
        return node;
    }
    void release(void* block) {
        Node* node = static_cast<Node*>(block);
        node->next = head_;
        head_ = node;
    }

private:
    struct Node {
        Node* next;
    };
    std::vector<std::byte> memory_;
    Node* head_ = nullptr;
};

class PointerStack {
public:
    explicit PointerStack(std::uint32_t blocks) : memory_(blocks * block_bytes) {
        free_.reserve(blocks);
        for (std::uint32_t i = blocks; i-- > 0;) {
            free_.push_back(memory_.data() + i * block_bytes);
        }
    }
    void* acquire() {
        void* block = free_.back();
        free_.pop_back();
        return block;
    }
    void release(void* block) { free_.push_back(block); }

private:
    std::vector<std::byte> memory_;
    std::vector<void*> free_;
};

class PmrPool {
public:
    explicit PmrPool(std::uint32_t blocks)
        : resource_(std::pmr::pool_options{blocks, block_bytes}, std::pmr::new_delete_resource()) {
        std::vector<void*> warm(blocks);
        for (void*& block : warm) {
            block = resource_.allocate(block_bytes);
            std::memset(block, 0, block_bytes);  // the other pools' memory is touched up front too
        }
        for (void* block : warm) {
            resource_.deallocate(block, block_bytes);
        }
    }
    void* acquire() { return resource_.allocate(block_bytes); }
    void release(void* block) { resource_.deallocate(block, block_bytes); }

private:
    std::pmr::unsynchronized_pool_resource resource_;
};

#if POOL_CHOICE_HAS_BOOST
class BoostPool {
public:
    explicit BoostPool(std::uint32_t blocks) : pool_(block_bytes, blocks, blocks) {
        std::vector<void*> warm(blocks);
        for (void*& block : warm) {
            block = pool_.malloc();  // the first call makes the one chunk of `blocks` blocks
            std::memset(block, 0, block_bytes);
        }
        for (void* block : warm) {
            pool_.free(block);
        }
    }
    void* acquire() { return pool_.malloc(); }
    void release(void* block) { pool_.free(block); }

private:
    boost::pool<> pool_;
};
#endif

class Malloc {
public:
    explicit Malloc(std::uint32_t) {}
    void* acquire() { return std::malloc(block_bytes); }
    void release(void* block) { std::free(block); }
};

// ns per packet of the model's pattern over `pool`.
template <class Pool>
double run(const CaseParams& params, std::uint64_t packets) {
    Pool pool(params.pool_size);
    cpp_engine::RingFifo<std::byte*> fifo(params.internal_queue_size);
    std::vector<std::byte*> store(params.stored_count, nullptr);
    const cpp_engine::RandomSource random(1);
    std::uint64_t checksum = 0;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < packets; ++i) {
        auto* block = static_cast<std::byte*>(pool.acquire());
        const std::uint64_t draw = random.draw(i, cpp_engine::RandomSource::tcp_field);
        std::memcpy(block + 64, &draw, sizeof(draw));  // past the free-list link, as a packet's buffer is
        std::memcpy(block + 72, &i, sizeof(i));
        fifo.push(block);
        if (fifo.size() >= fifo.capacity()) {
            std::byte* oldest = fifo.pop();
            std::uint64_t header = 0;
            std::memcpy(&header, oldest + 64, sizeof(header));
            checksum += header;
            if (header % 16 == 0) {
                const std::uint32_t index = cpp_engine::RandomSource::below(
                        random.draw(i, cpp_engine::RandomSource::store_index_field),
                        static_cast<std::uint32_t>(store.size()));
                if (std::byte* old = std::exchange(store[index], oldest); old != nullptr) {
                    pool.release(old);
                }
            } else {
                pool.release(oldest);
            }
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    while (fifo.size() != 0) {
        pool.release(fifo.pop());
    }
    for (std::byte* block : store) {
        if (block != nullptr) {
            pool.release(block);
        }
    }
    if (checksum == 42) {
        std::puts("");  // keeps the reads alive
    }
    return seconds * 1e9 / static_cast<double>(packets);
}

}  // namespace

int main(int argc, char** argv) {
    double scale = 0.1;
    std::uint64_t packets = 20'000'000;
    int repeats = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--scale") == 0) {
            scale = std::strtod(argv[i + 1], nullptr);
        } else if (std::strcmp(argv[i], "--packets") == 0) {
            packets = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (std::strcmp(argv[i], "--repeat") == 0) {
            repeats = std::atoi(argv[i + 1]);
        } else {
            std::fprintf(stderr, "usage: pool_choice_bench [--scale F] [--packets N] [--repeat N]\n");
            return 2;
        }
    }
    if (!(scale > 0 && scale <= 1) || packets == 0 || repeats < 1) {
        std::fprintf(stderr, "pool_choice_bench: need 0 < scale <= 1, packets > 0, repeat >= 1\n");
        return 2;
    }
    using Runner = double (*)(const CaseParams&, std::uint64_t);
    const std::vector<std::pair<const char*, Runner>> candidates{
            {"intrusive free list", &run<IntrusiveFreeList>},
            {"pointer stack", &run<PointerStack>},
            {"pmr pool resource", &run<PmrPool>},
#if POOL_CHOICE_HAS_BOOST
            {"boost::pool<>", &run<BoostPool>},
#endif
            {"malloc/free", &run<Malloc>},
    };
    const std::vector<std::string> cases{"A", "B", "C"};
    // Best of `repeats`, the candidates interleaved so that a noisy moment hits them all.
    std::vector<std::vector<double>> best(candidates.size(), std::vector<double>(cases.size(), 1e300));
    for (int repeat = 0; repeat < repeats; ++repeat) {
        for (std::size_t c = 0; c < cases.size(); ++c) {
            const CaseParams params = CaseParams::of(cases[c], scale);
            for (std::size_t k = 0; k < candidates.size(); ++k) {
                best[k][c] = std::min(best[k][c], candidates[k].second(params, packets));
            }
        }
    }
    std::printf("ns per packet, best of %d runs of %llu packets, scale %g\n%-22s %8s %8s %8s\n", repeats,
                static_cast<unsigned long long>(packets), scale, "candidate", "A", "B", "C");
    for (std::size_t k = 0; k < candidates.size(); ++k) {
        std::printf("%-22s %8.1f %8.1f %8.1f\n", candidates[k].first, best[k][0], best[k][1], best[k][2]);
    }
    return 0;
}
