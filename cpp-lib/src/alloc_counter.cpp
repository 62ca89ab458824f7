// The counting build's side of alloc_counter.hpp: the replaced global operator
// new/delete. Every form forwards to malloc/free (or posix_memalign for over-aligned
// types) and bumps a thread-local counter; the sized forms also count that they were
// given the size (which free() has no use for). Linked as an object library, so the
// replacement always takes effect.
#include "alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace cpp_engine::alloc_counter {

namespace {

thread_local std::uint64_t allocations = 0;
thread_local std::uint64_t deallocations = 0;
thread_local std::uint64_t sized_deallocations = 0;

void* allocate(std::size_t size) {
    ++allocations;
    for (;;) {
        if (void* block = std::malloc(size != 0 ? size : 1)) {
            return block;
        }
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) {
            throw std::bad_alloc();
        }
        handler();
    }
}

void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
    ++allocations;
    const auto align = static_cast<std::size_t>(alignment);
    for (;;) {
        void* block = nullptr;
        if (posix_memalign(&block, align < sizeof(void*) ? sizeof(void*) : align, size != 0 ? size : 1) == 0) {
            return block;
        }
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) {
            throw std::bad_alloc();
        }
        handler();
    }
}

void deallocate(void* block) noexcept {
    if (block != nullptr) {
        ++deallocations;
        std::free(block);
    }
}

void deallocate_sized(void* block) noexcept {
    if (block != nullptr) {
        ++sized_deallocations;
    }
    deallocate(block);
}

}  // namespace

bool counting() noexcept { return true; }

Counts this_thread() noexcept { return {allocations, deallocations, sized_deallocations}; }

}  // namespace cpp_engine::alloc_counter

using cpp_engine::alloc_counter::allocate;
using cpp_engine::alloc_counter::allocate_aligned;
using cpp_engine::alloc_counter::deallocate;
using cpp_engine::alloc_counter::deallocate_sized;

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, std::align_val_t alignment) { return allocate_aligned(size, alignment); }
void* operator new[](std::size_t size, std::align_val_t alignment) { return allocate_aligned(size, alignment); }

void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return allocate(size);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return allocate(size);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    try {
        return allocate_aligned(size, alignment);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    try {
        return allocate_aligned(size, alignment);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

void operator delete(void* block) noexcept { deallocate(block); }
void operator delete[](void* block) noexcept { deallocate(block); }
void operator delete(void* block, std::size_t) noexcept { deallocate_sized(block); }
void operator delete[](void* block, std::size_t) noexcept { deallocate_sized(block); }
void operator delete(void* block, std::align_val_t) noexcept { deallocate(block); }
void operator delete[](void* block, std::align_val_t) noexcept { deallocate(block); }
void operator delete(void* block, std::size_t, std::align_val_t) noexcept { deallocate_sized(block); }
void operator delete[](void* block, std::size_t, std::align_val_t) noexcept { deallocate_sized(block); }
void operator delete(void* block, const std::nothrow_t&) noexcept { deallocate(block); }
void operator delete[](void* block, const std::nothrow_t&) noexcept { deallocate(block); }
void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept { deallocate(block); }
void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept { deallocate(block); }
