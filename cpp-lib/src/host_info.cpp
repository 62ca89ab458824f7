// Host facts for the header record, from uname, sysconf, /proc/cpuinfo and the
// affinity mask (see host_info.hpp).
#include "host_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>

#include "native_queue/cpu_affinity.hpp"

namespace cpp_engine {

namespace {

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.starts_with("model name")) {
            const std::size_t colon = line.find(':');
            if (colon != std::string::npos) {
                const std::size_t start = line.find_first_not_of(" \t", colon + 1);
                return start == std::string::npos ? "" : line.substr(start);
            }
        }
    }
    return "unknown";
}

}  // namespace

HostInfo host_info() {
    HostInfo info;
    char name[256] = {};
    info.host = ::gethostname(name, sizeof(name) - 1) == 0 ? name : "unknown";
    struct utsname system {};
    info.os = ::uname(&system) == 0 ? std::string(system.sysname) + " " + system.release : "unknown";
    info.cpu_model = cpu_model();
    info.cpus = native_queue::usable_cpu_count();
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    info.memory_bytes = pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : 0;
    info.small_machine = info.cpus < 4;
    return info;
}

std::string random_run_id() {
    std::random_device entropy;
    const std::uint64_t id = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(id));
    return text;
}

std::string utc_now_iso8601() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    char text[64];
    std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis));
    return text;
}

std::string source_commit() {
    const char* commit = std::getenv("ALLOC_OR_POOL_COMMIT");
    return commit != nullptr && *commit != '\0' ? commit : "unknown";
}

}  // namespace cpp_engine
