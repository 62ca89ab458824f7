//! dlmalloc without a lock: one allocator instance used directly, which is sound only because this
//! program never starts a second thread (the cost the locked binary adds is the mutex alone).
use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;

use dlmalloc::Dlmalloc;

struct Unlocked(UnsafeCell<Dlmalloc>);

// SAFETY: the program is single-threaded; nothing shares the instance across threads.
unsafe impl Sync for Unlocked {}

unsafe impl GlobalAlloc for Unlocked {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).malloc(layout.size(), layout.align())
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        (*self.0.get()).free(ptr, layout.size(), layout.align())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).calloc(layout.size(), layout.align())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size)
    }
}

#[global_allocator]
static GLOBAL: Unlocked = Unlocked(UnsafeCell::new(Dlmalloc::new()));

fn main() {
    binary_trees::main_with("dlmalloc crate, one instance, no lock");
}
