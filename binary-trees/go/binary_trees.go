// Binary trees in Go: nodes from Go's allocator, freed by its concurrent mark-and-sweep collector.
//
// Lesson: Go allocates each node from per-P size-class spans (no bump pointer, no moving) and
// marks concurrently on spare cores; its stop-the-world phases are short, but its write barrier
// stays on while marking, which this program keeps the collector doing most of the time.
//
// Output (stdout): the benchmarks game's check lines. Pauses: GODEBUG=gctrace=1 makes the runtime
// print one line per collection on stderr, with its two stop-the-world phases.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
)

type Node struct {
	left, right *Node
}

func bottomUpTree(depth int) *Node {
	if depth <= 0 {
		return &Node{}
	}
	return &Node{bottomUpTree(depth - 1), bottomUpTree(depth - 1)}
}

func (n *Node) itemCheck() int {
	if n.left == nil {
		return 1
	}
	return 1 + n.left.itemCheck() + n.right.itemCheck()
}

func main() {
	const minDepth = 4
	requested := -1
	if len(os.Args) == 2 {
		if depth, err := strconv.Atoi(os.Args[1]); err == nil {
			requested = depth
		}
	}
	if requested < 0 || requested > 30 {
		fmt.Fprintf(os.Stderr, "usage: %s DEPTH (an integer from 0 to 30)\n", os.Args[0])
		os.Exit(2)
	}
	maxDepth := max(requested, minDepth+2)

	stretchDepth := maxDepth + 1
	fmt.Printf("stretch tree of depth %d\t check: %d\n", stretchDepth, bottomUpTree(stretchDepth).itemCheck())

	longLived := bottomUpTree(maxDepth)
	for depth := minDepth; depth <= maxDepth; depth += 2 {
		iterations := 1 << (maxDepth - depth + minDepth)
		check := 0
		for i := 0; i < iterations; i++ {
			check += bottomUpTree(depth).itemCheck()
		}
		fmt.Printf("%d\t trees of depth %d\t check: %d\n", iterations, depth, check)
	}
	fmt.Printf("long lived tree of depth %d\t check: %d\n", maxDepth, longLived.itemCheck())
	fmt.Fprintf(os.Stderr, "binary-trees: allocator %s runtime, GOMAXPROCS=%d\n", runtime.Version(), runtime.GOMAXPROCS(0))
}
