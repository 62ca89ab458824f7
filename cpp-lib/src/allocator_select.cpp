// Allocator activation by LD_PRELOAD and re-exec, and its verification through the
// dynamic linker (dlsym/dladdr): see allocator_select.hpp.
#include "allocator_select.hpp"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "alloc_counter.hpp"
#include "build_info.hpp"

namespace cpp_engine {

namespace {

constexpr const char* preloaded_marker = "ALLOC_OR_POOL_PRELOADED";

bool is_file(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

void* symbol(std::string_view name) { return ::dlsym(RTLD_DEFAULT, std::string(name).c_str()); }

std::string_view library_stem(std::string_view soname) { return soname.substr(0, soname.find(".so")); }

std::string executable_path() {
    char path[4096];
    const ssize_t length = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
    return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : "unknown";
}

struct Provider {
    std::string path;  // of the shared object, or of this executable
    bool executable = false;
};

// The object whose definition of `name` the dynamic linker binds: what a call from the
// model reaches.
Provider provider_of(std::string_view name) {
    Dl_info info{};
    void* address = symbol(name);
    if (address == nullptr || ::dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
        return {"unknown", false};
    }
    Dl_info self{};
    if (::dladdr(reinterpret_cast<void*>(&executable_path), &self) != 0 && self.dli_fbase == info.dli_fbase) {
        return {executable_path(), true};
    }
    return {info.dli_fname, false};
}

constexpr const char* operator_new_symbol = "_Znwm";    // operator new(std::size_t)
constexpr const char* sized_delete_symbol = "_ZdlPvm";  // operator delete(void*, std::size_t)

// Whether `provider` serves C++ allocations as this build and allocator should.
bool expected_operator_provider(const Provider& provider, const AllocatorSpec& spec) {
    if (alloc_counter::counting()) {
        return provider.executable;
    }
    if (build_info::sanitized && provider.path.find("san") != std::string::npos) {
        return true;
    }
    const std::string_view owner = spec.library.empty() ? "libstdc++" : library_stem(spec.library);
    return !provider.executable && provider.path.find(owner) != std::string::npos;
}

// What to do about a failed verification.
std::string advice(const AllocatorSpec& spec) {
    return spec.library.empty() ? "; is another allocator in LD_PRELOAD?"
                                : "; install the Debian package " + std::string(spec.package) + " (apt-get install " +
                                          std::string(spec.package) + ")";
}

std::string jemalloc_version() {
    using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
    const char* version = nullptr;
    std::size_t size = sizeof(version);
    auto mallctl = reinterpret_cast<Mallctl>(symbol("mallctl"));
    if (mallctl == nullptr || mallctl("version", &version, &size, nullptr, 0) != 0 || version == nullptr) {
        return "unknown";
    }
    return version;
}

std::string mimalloc_version() {
    using MiVersion = int (*)();
    auto mi_version = reinterpret_cast<MiVersion>(symbol("mi_version"));
    if (mi_version == nullptr) {
        return "unknown";
    }
    const int version = mi_version();  // 209 for 2.0.9
    return std::to_string(version / 100) + "." + std::to_string(version / 10 % 10) + "." +
           std::to_string(version % 10);
}

std::string tcmalloc_version() {
    using TcVersion = const char* (*)(int*, int*, const char**);
    auto tc_version = reinterpret_cast<TcVersion>(symbol("tc_version"));
    int major = 0;
    int minor = 0;
    const char* patch = nullptr;
    const char* version = tc_version != nullptr ? tc_version(&major, &minor, &patch) : nullptr;
    return version != nullptr ? version : "unknown";
}

std::string version_of(std::string_view name) {
    if (name == "jemalloc") {
        return jemalloc_version();
    }
    if (name == "mimalloc") {
        return mimalloc_version();
    }
    if (name == "tcmalloc") {
        return tcmalloc_version();
    }
    return std::string("glibc ") + ::gnu_get_libc_version();
}

}  // namespace

std::string allocator_names() {
    std::string names;
    for (const AllocatorSpec& spec : allocator_specs) {
        names += (names.empty() ? "" : ", ") + std::string(spec.name);
    }
    return names;
}

const AllocatorSpec* find_allocator(std::string_view name) noexcept {
    for (const AllocatorSpec& spec : allocator_specs) {
        if (spec.name == name) {
            return &spec;
        }
    }
    return nullptr;
}

std::vector<std::string> library_directories() {
    std::vector<std::string> directories;
    if (const char* override_dirs = std::getenv(library_dirs_variable); override_dirs != nullptr) {
        std::string_view rest = override_dirs;
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            if (colon != 0) {
                directories.emplace_back(rest.substr(0, colon));
            }
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
        return directories;
    }
    const std::string arch = build_info::library_architecture;
    if (!arch.empty()) {
        directories = {"/usr/lib/" + arch, "/lib/" + arch};
    }
    directories.insert(directories.end(), {"/usr/lib", "/lib", "/usr/local/lib"});
    return directories;
}

std::optional<std::string> find_library(std::string_view soname, const std::vector<std::string>& directories) {
    for (const std::string& directory : directories) {
        std::string path = directory + "/" + std::string(soname);
        if (is_file(path)) {
            return path;
        }
    }
    return std::nullopt;
}

AllocatorInfo verify_allocator(std::string_view name) {
    const AllocatorSpec* spec = find_allocator(name);
    if (spec == nullptr) {
        throw AllocatorError("no allocator " + std::string(name) + "; valid: " + allocator_names());
    }
    const std::string provider = provider_of("malloc").path;
    for (const AllocatorSpec& other : allocator_specs) {
        if (other.entry_symbol.empty()) {
            continue;
        }
        const bool present = symbol(other.entry_symbol) != nullptr;
        if (present != (other.name == name)) {
            throw AllocatorError("allocator " + std::string(name) + " is not the active allocator: " +
                                 std::string(other.entry_symbol) + " (" + std::string(other.name) + ") is " +
                                 (present ? "loaded" : "missing") + " and malloc comes from " + provider +
                                 advice(*spec));
        }
    }
    const bool provided_by_library = !spec->library.empty() &&
                                     provider.find(library_stem(spec->library)) != std::string::npos;
    const bool provided_by_libc = provider.find("libc.so") != std::string::npos ||
                                  (build_info::sanitized && provider.find("san") != std::string::npos);
    if (spec->library.empty() ? !provided_by_libc : !provided_by_library) {
        throw AllocatorError("allocator " + std::string(name) + " is not the active allocator: malloc comes from " +
                             provider + advice(*spec));
    }
    const Provider operator_new = provider_of(operator_new_symbol);
    const Provider sized_delete = provider_of(sized_delete_symbol);
    for (const auto& [what, found] : {std::pair{"operator new", operator_new}, std::pair{"sized operator delete", sized_delete}}) {
        if (!expected_operator_provider(found, *spec)) {
            throw AllocatorError("allocator " + std::string(name) + " does not serve C++ allocations in this " +
                                 (alloc_counter::counting() ? "counting" : "timed") + " build: " + what +
                                 " comes from " + found.path + advice(*spec));
        }
    }
    return {std::string(name), version_of(name), provider, operator_new.path, sized_delete.path};
}

AllocatorInfo activate_allocator(std::string_view name, char** argv) {
    const AllocatorSpec* spec = find_allocator(name);
    if (spec == nullptr) {
        throw AllocatorError("no allocator " + std::string(name) + "; valid: " + allocator_names());
    }
    const char* marker = std::getenv(preloaded_marker);
    if (spec->library.empty() || (marker != nullptr && name == marker)) {
        return verify_allocator(name);
    }
    const std::optional<std::string> library = find_library(spec->library, library_directories());
    if (!library) {
        std::string searched;
        for (const std::string& directory : library_directories()) {
            searched += (searched.empty() ? "" : ", ") + directory;
        }
        throw AllocatorError("allocator " + std::string(name) + ": " + std::string(spec->library) + " not found in " +
                             searched + advice(*spec));
    }
    if (build_info::sanitized) {
        throw AllocatorError("allocator " + std::string(name) +
                             " cannot be used in a sanitizer build (the sanitizer runtime must serve malloc); "
                             "use a Release build");
    }
    const char* previous = std::getenv("LD_PRELOAD");
    const std::string preload = previous != nullptr && *previous != '\0' ? *library + ":" + previous : *library;
    if (::setenv("LD_PRELOAD", preload.c_str(), 1) != 0 ||
        ::setenv(preloaded_marker, std::string(name).c_str(), 1) != 0) {
        throw AllocatorError("allocator " + std::string(name) + ": cannot set LD_PRELOAD: " + std::strerror(errno));
    }
    ::execv("/proc/self/exe", argv);
    throw AllocatorError("allocator " + std::string(name) + ": cannot re-execute /proc/self/exe with LD_PRELOAD=" +
                         preload + ": " + std::strerror(errno));
}

}  // namespace cpp_engine
