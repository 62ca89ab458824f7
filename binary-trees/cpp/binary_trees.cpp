// Binary trees in C++: every node from operator new, or from a pool (POOL defined when compiling).
//
// Lesson: a general-purpose pool that keeps freed nodes on a free list (std::pmr's
// unsynchronized_pool_resource, no locking) against the global operator new/delete. Both
// free every node one at a time; only where the memory comes from and goes back to differs.
//
// Output (stdout): the benchmarks game's check lines. Report (stderr, lines starting
// "binary-trees:"): the allocator, and how long each tree's deallocation took (count, total,
// longest), the explicit counterpart of a collector's pause.
#include <gnu/libc-version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory_resource>
#include <string>

namespace {

struct Node {
    Node* left;
    Node* right;
};

#ifdef POOL
std::pmr::unsynchronized_pool_resource pool;
Node* new_node() { return static_cast<Node*>(pool.allocate(sizeof(Node), alignof(Node))); }
void delete_node(Node* n) { pool.deallocate(n, sizeof(Node), alignof(Node)); }
constexpr const char* allocator_name = "std::pmr::unsynchronized_pool_resource over operator new, glibc";
#else
Node* new_node() { return new Node; }
void delete_node(Node* n) { delete n; }
constexpr const char* allocator_name = "operator new/delete, glibc malloc";
#endif

Node* bottom_up_tree(int depth) {
    Node* n = new_node();
    if (depth > 0) {
        n->left = bottom_up_tree(depth - 1);
        n->right = bottom_up_tree(depth - 1);
    } else {
        n->left = n->right = nullptr;
    }
    return n;
}

long item_check(const Node* n) { return n->left == nullptr ? 1 : 1 + item_check(n->left) + item_check(n->right); }

void delete_tree(Node* n) {
    if (n->left != nullptr) {
        delete_tree(n->left);
        delete_tree(n->right);
    }
    delete_node(n);
}

// Each tree's deallocation, timed.
struct Frees {
    long count = 0;
    double total_ms = 0, max_ms = 0;

    void operator()(Node* tree) {
        auto started = std::chrono::steady_clock::now();
        delete_tree(tree);
        double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        ++count;
        total_ms += took;
        max_ms = std::max(max_ms, took);
    }
};

}  // namespace

int main(int argc, char** argv) {
    constexpr int min_depth = 4;
    char* end = nullptr;
    long requested = argc == 2 ? std::strtol(argv[1], &end, 10) : -1;
    if (argc != 2 || *end != '\0' || requested < 0 || requested > 30) {
        std::fprintf(stderr, "usage: %s DEPTH (an integer from 0 to 30)\n", argv[0]);
        return 2;
    }
    const int max_depth = std::max(min_depth + 2, static_cast<int>(requested));
    Frees free_tree;

    const int stretch_depth = max_depth + 1;
    Node* stretch = bottom_up_tree(stretch_depth);
    std::printf("stretch tree of depth %d\t check: %ld\n", stretch_depth, item_check(stretch));
    free_tree(stretch);

    Node* long_lived = bottom_up_tree(max_depth);
    for (int depth = min_depth; depth <= max_depth; depth += 2) {
        const long iterations = 1L << (max_depth - depth + min_depth);
        long check = 0;
        for (long i = 0; i < iterations; ++i) {
            Node* tree = bottom_up_tree(depth);
            check += item_check(tree);
            free_tree(tree);
        }
        std::printf("%ld\t trees of depth %d\t check: %ld\n", iterations, depth, check);
    }
    std::printf("long lived tree of depth %d\t check: %ld\n", max_depth, item_check(long_lived));
    free_tree(long_lived);
    std::fprintf(stderr, "binary-trees: allocator %s %s\n", allocator_name, gnu_get_libc_version());
    std::fprintf(stderr, "binary-trees: deallocation pauses count=%ld total_ms=%.3f max_ms=%.3f\n", free_tree.count,
                 free_tree.total_ms, free_tree.max_ms);
    return 0;
}
