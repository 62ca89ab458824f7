// Pinning threads to CPUs (Linux; elsewhere pinning reports ENOSYS).
#pragma once

#include <cerrno>
#include <string>
#include <thread>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace native_queue {

// CPUs the kernel knows of (online or not): the valid range of CPU numbers is 0..count-1.
inline int configured_cpu_count() noexcept {
#if defined(__linux__)
    const long configured = sysconf(_SC_NPROCESSORS_CONF);
    if (configured > 0) {
        return configured < CPU_SETSIZE ? static_cast<int>(configured) : CPU_SETSIZE;
    }
#endif
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? static_cast<int>(hardware) : 1;
}

inline bool cpu_exists(int cpu) noexcept { return cpu >= 0 && cpu < configured_cpu_count(); }

// "0..N-1", for error messages listing the valid CPU numbers.
inline std::string cpu_range_text() { return "0.." + std::to_string(configured_cpu_count() - 1); }

// CPUs the calling thread may run on (its affinity mask).
inline int usable_cpu_count() noexcept {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        return CPU_COUNT(&set);
    }
#endif
    return configured_cpu_count();
}

// Pins the calling thread to one CPU; returns 0 or an errno value (EINVAL for a CPU
// that does not exist or that the process may not use).
inline int pin_current_thread(int cpu) noexcept {
#if defined(__linux__)
    if (!cpu_exists(cpu)) {
        return EINVAL;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#else
    (void)cpu;
    return ENOSYS;
#endif
}

}  // namespace native_queue
