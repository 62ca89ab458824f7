// What the header record says about the machine and the run's identity.
#pragma once

#include <cstdint>
#include <string>

namespace cpp_engine {

struct HostInfo {
    std::string host;       // host name
    std::string os;         // kernel name and release: "Linux 6.1.0-..."
    std::string cpu_model;  // from /proc/cpuinfo
    int cpus = 0;           // online CPUs this process may use
    std::uint64_t memory_bytes = 0;
    bool small_machine = false;  // fewer than 4 CPUs
};

HostInfo host_info();

// A random 16-hex-digit id for the run.
std::string random_run_id();

// The current time as ISO-8601 UTC with milliseconds: "2026-11-21T05:53:00.123Z".
std::string utc_now_iso8601();

// ALLOC_OR_POOL_COMMIT from the environment (the Makefile exports it), or "unknown".
std::string source_commit();

}  // namespace cpp_engine
