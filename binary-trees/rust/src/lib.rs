//! Binary trees in Rust, the same program under each global allocator (one binary per allocator in
//! src/bin/).
//!
//! Lesson: a tree of `Box`es is freed when it is dropped, node by node, so Rust pays its
//! allocator's `free` for every node just as C does; which allocator it is, and whether it takes
//! a lock on every call, is all that differs between the binaries.
//!
//! Output (stdout): the benchmarks game's check lines. Report (stderr, lines starting
//! "binary-trees:"): the allocator, and how long each tree's drop took (count, total, longest).

use std::time::Instant;

pub struct Node {
    children: Option<(Box<Node>, Box<Node>)>,
}

fn bottom_up_tree(depth: u32) -> Box<Node> {
    let children = if depth > 0 { Some((bottom_up_tree(depth - 1), bottom_up_tree(depth - 1))) } else { None };
    Box::new(Node { children })
}

fn item_check(node: &Node) -> u64 {
    match &node.children {
        Some((left, right)) => 1 + item_check(left) + item_check(right),
        None => 1,
    }
}

/// Each tree's drop, timed.
#[derive(Default)]
struct Drops {
    count: u64,
    total_ms: f64,
    max_ms: f64,
}

impl Drops {
    fn drop_tree(&mut self, tree: Box<Node>) {
        let started = Instant::now();
        drop(tree);
        let took = started.elapsed().as_secs_f64() * 1e3;
        self.count += 1;
        self.total_ms += took;
        self.max_ms = self.max_ms.max(took);
    }
}

/// Runs the program with the depth in the command line; `allocator` names the global allocator.
pub fn main_with(allocator: &str) {
    const MIN_DEPTH: u32 = 4;
    let args: Vec<String> = std::env::args().collect();
    let requested = match (args.len(), args.get(1).and_then(|a| a.parse::<u32>().ok())) {
        (2, Some(depth)) if depth <= 30 => depth,
        _ => {
            eprintln!("usage: {} DEPTH (an integer from 0 to 30)", args[0]);
            std::process::exit(2);
        }
    };
    let max_depth = requested.max(MIN_DEPTH + 2);
    let mut drops = Drops::default();

    let stretch_depth = max_depth + 1;
    let stretch = bottom_up_tree(stretch_depth);
    println!("stretch tree of depth {}\t check: {}", stretch_depth, item_check(&stretch));
    drops.drop_tree(stretch);

    let long_lived = bottom_up_tree(max_depth);
    for depth in (MIN_DEPTH..=max_depth).step_by(2) {
        let iterations: u64 = 1 << (max_depth - depth + MIN_DEPTH);
        let mut check = 0;
        for _ in 0..iterations {
            let tree = bottom_up_tree(depth);
            check += item_check(&tree);
            drops.drop_tree(tree);
        }
        println!("{}\t trees of depth {}\t check: {}", iterations, depth, check);
    }
    println!("long lived tree of depth {}\t check: {}", max_depth, item_check(&long_lived));
    drops.drop_tree(long_lived);
    eprintln!("binary-trees: allocator {}", allocator);
    eprintln!(
        "binary-trees: deallocation pauses count={} total_ms={:.3} max_ms={:.3}",
        drops.count, drops.total_ms, drops.max_ms
    );
}
