//! dlmalloc behind a lock: the crate's GlobalDlmalloc takes a pthread mutex on every call.
#[global_allocator]
static GLOBAL: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

fn main() {
    binary_trees::main_with("dlmalloc crate, GlobalDlmalloc (pthread mutex per call)");
}
