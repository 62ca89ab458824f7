//! The system allocator (glibc's malloc on Linux), named explicitly.
use std::alloc::System;

#[global_allocator]
static GLOBAL: System = System;

fn main() {
    binary_trees::main_with("std::alloc::System (glibc malloc)");
}
