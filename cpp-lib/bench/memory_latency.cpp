// memory_latency: the time of one dependent load over working sets of the sizes given, one JSON
// object per size on stdout ({"mib": 16, "ns_per_load": 41.2, "loads": 20000000, "reached": ...}). The machine
// check records it with every check, so a refused check says whether the cache or the memory
// answers slower than when the store was measured (see python/allocorpool/run/machine_check.py).
//
// usage: memory_latency [MIB ...]   (default 16 1024; each a whole number from 1 to 16384)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "memory_latency.hpp"

int main(int argc, char** argv) {
    std::vector<long> sizes;
    for (int i = 1; i < argc; ++i) {
        char* end = nullptr;
        long mib = std::strtol(argv[i], &end, 10);
        if (end == argv[i] || *end != '\0' || mib < 1 || mib > 16384) {
            std::fprintf(stderr, "memory_latency: %s is not a size: each argument is a whole number of MiB from 1 to 16384\n",
                         argv[i]);
            return 2;
        }
        sizes.push_back(mib);
    }
    if (sizes.empty()) sizes = {16, 1024};
    const std::size_t loads = 20'000'000;
    for (long mib : sizes) {
        const std::size_t slots = static_cast<std::size_t>(mib) * 1024 * 1024 / sizeof(std::size_t);
        const auto next = allocorpool::random_cycle(slots, 1);
        allocorpool::chase(next, slots < loads ? slots : loads);  // warm the caches and the TLB: a pass, or as many loads
        const auto start = std::chrono::steady_clock::now();
        const std::size_t reached = allocorpool::chase(next, loads);
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
        std::printf("{\"mib\": %ld, \"ns_per_load\": %.1f, \"loads\": %zu, \"reached\": %zu}\n", mib, ns / loads, loads,
                    reached);
    }
    return 0;
}
