// The allocator axis: glibc, jemalloc, mimalloc or tcmalloc, chosen by name at run time.
//
// The binary re-executes itself once with LD_PRELOAD set to the Debian library of the
// named allocator (the environment variable ALLOC_OR_POOL_PRELOADED marks the second
// start), then verifies that it really is active: the shared object that provides
// `malloc` must be that library, its own entry point (mallctl, mi_version, tc_version)
// must be present and the other allocators' absent, and C++'s operator new and sized
// operator delete must be the allocator's own (libstdc++'s for glibc, which call malloc
// and free) in the timed build, this executable's counting replacement in the counting
// build. A missing library or a failed verification is an AllocatorError naming the
// allocator and the package to install; there is never a silent fallback to glibc.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cpp_engine {

struct AllocatorSpec {
    std::string_view name;
    std::string_view library;        // soname to preload; empty for glibc
    std::string_view package;        // Debian package that provides it
    std::string_view entry_symbol;   // exported only by this allocator; empty for glibc
};

inline constexpr std::array<AllocatorSpec, 4> allocator_specs{{
        {"glibc", "", "libc6", ""},
        {"jemalloc", "libjemalloc.so.2", "libjemalloc2", "mallctl"},
        {"mimalloc", "libmimalloc.so.2", "libmimalloc2.0", "mi_version"},
        {"tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4", "tc_version"},
}};

// "glibc, jemalloc, mimalloc, tcmalloc"
std::string allocator_names();

const AllocatorSpec* find_allocator(std::string_view name) noexcept;

struct AllocatorInfo {
    std::string name;
    std::string version;
    std::string malloc_provider;        // path of the shared object that serves malloc
    std::string operator_new_provider;  // ... operator new(size_t), as the model calls it
    std::string sized_delete_provider;  // ... operator delete(void*, size_t)
};

class AllocatorError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Overrides the directories searched for the allocators' libraries (colon-separated),
// for libraries installed elsewhere than Debian puts them.
inline constexpr const char* library_dirs_variable = "ALLOC_OR_POOL_LIBRARY_DIRS";

// Directories searched for an allocator's library: $ALLOC_OR_POOL_LIBRARY_DIRS when set,
// else the multiarch directories first, then /usr/lib, /lib, /usr/local/lib.
std::vector<std::string> library_directories();

// The full path of `soname` in the first of `directories` that has it.
std::optional<std::string> find_library(std::string_view soname, const std::vector<std::string>& directories);

// Makes `name` the active allocator: returns when it is verified, re-executes the
// process (argv as given) with LD_PRELOAD when it is not yet loaded, throws AllocatorError
// when it cannot be.
AllocatorInfo activate_allocator(std::string_view name, char** argv);

// Checks that `name` is the allocator serving malloc in this process.
AllocatorInfo verify_allocator(std::string_view name);

}  // namespace cpp_engine
