/* Binary trees in C, one source for every C variant: the allocator is chosen when compiling.
 *
 * Lesson: the same two-word node costs very different amounts depending on who hands out and
 * takes back its memory. ALLOC_MALLOC links against glibc, jemalloc, mimalloc or tcmalloc (the
 * link line picks which one serves malloc/free); ALLOC_BOEHM allocates from the Boehm collector
 * and never frees (GC_MARKERS in the environment sets its marker threads; BOEHM_INCREMENTAL turns
 * on incremental collection); ALLOC_BOEHM_FREE allocates from Boehm and frees every node
 * explicitly; ALLOC_ARENA bump-allocates each tree from a region and releases the region at once.
 *
 * Output (stdout): the benchmarks game's check lines. Report (stderr, lines starting
 * "binary-trees:"): the allocator and its version, and where the program frees trees itself,
 * how long each tree's deallocation took (count, total, longest): an explicit free of a big tree
 * stops the program as a collector's pause would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct node {
    struct node *left;
    struct node *right;
} node;

#if defined(ALLOC_BOEHM) || defined(ALLOC_BOEHM_FREE)
#define GC_THREADS
#include <gc/gc.h>
#endif
#if defined(ALLOC_MALLOC)
#include <gnu/libc-version.h>
#endif

#if !defined(ALLOC_BOEHM)
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Deallocation of whole trees, timed: only the variants that free explicitly use it. */
static struct {
    long count;
    double total_ms, max_ms;
} frees;

static void note_free(double started_ms) {
    double took = now_ms() - started_ms;
    frees.count++;
    frees.total_ms += took;
    if (took > frees.max_ms) frees.max_ms = took;
}

static void report_frees(void) {
    fprintf(stderr, "binary-trees: deallocation pauses count=%ld total_ms=%.3f max_ms=%.3f\n", frees.count,
            frees.total_ms, frees.max_ms);
}
#else
static void report_frees(void) {}
#endif

/* ---- the allocators -------------------------------------------------------------------- */
#if defined(ALLOC_ARENA)
/* A region: nodes are bumped out of 1 MiB chunks; a tree's region is released whole, its chunks
 * kept on a spare list for the next tree (as an arena allocator reuses its memory), so that the
 * system allocator is asked again only when the program needs more chunks than ever before. */
enum { CHUNK_NODES = (1 << 20) / sizeof(node) };
typedef struct chunk {
    struct chunk *next;
    size_t used;
    node nodes[CHUNK_NODES];
} chunk;
typedef struct {
    chunk *head;
} arena;
static chunk *spare_chunks;

static node *arena_new(arena *a) {
    if (a->head == NULL || a->head->used == CHUNK_NODES) {
        chunk *c = spare_chunks;
        if (c != NULL) {
            spare_chunks = c->next;
        } else if ((c = malloc(sizeof(chunk))) == NULL) {
            perror("malloc");
            exit(1);
        }
        c->next = a->head;
        c->used = 0;
        a->head = c;
    }
    return &a->head->nodes[a->head->used++];
}

static void arena_release(arena *a) {
    double started = now_ms();
    for (chunk *c = a->head, *next; c != NULL; c = next) {
        next = c->next;
        c->next = spare_chunks;
        spare_chunks = c;
    }
    a->head = NULL;
    note_free(started);
}
#define ALLOCATOR_ARG arena *a,
#define ALLOCATOR_PASS a,
#define NEW_NODE() arena_new(a)
#else
#define ALLOCATOR_ARG
#define ALLOCATOR_PASS
#if defined(ALLOC_BOEHM) || defined(ALLOC_BOEHM_FREE)
#define NEW_NODE() ((node *)GC_MALLOC(sizeof(node)))
#define FREE_NODE(n) GC_FREE(n)
#else
#define NEW_NODE() ((node *)malloc(sizeof(node)))
#define FREE_NODE(n) free(n)
#endif
#endif

static node *bottom_up_tree(ALLOCATOR_ARG int depth) {
    node *n = NEW_NODE();
    if (n == NULL) { fputs("out of memory\n", stderr); exit(1); }
    if (depth > 0) {
        n->left = bottom_up_tree(ALLOCATOR_PASS depth - 1);
        n->right = bottom_up_tree(ALLOCATOR_PASS depth - 1);
    } else {
        n->left = n->right = NULL;
    }
    return n;
}

static long item_check(const node *n) {
    return n->left == NULL ? 1 : 1 + item_check(n->left) + item_check(n->right);
}

#if defined(ALLOC_MALLOC) || defined(ALLOC_BOEHM_FREE)
static void free_nodes(node *n) {
    if (n->left != NULL) {
        free_nodes(n->left);
        free_nodes(n->right);
    }
    FREE_NODE(n);
}
#endif

/* A tree the program is done with: freed (timed), dropped with its region, or left to the GC. */
#if defined(ALLOC_ARENA)
#define DONE_WITH(tree) arena_release(a)
#elif defined(ALLOC_BOEHM)
#define DONE_WITH(tree) ((void)(tree))
#else
#define DONE_WITH(tree) do { double started_ = now_ms(); free_nodes(tree); note_free(started_); } while (0)
#endif

/* ---- what the program reports about its allocator ------------------------------------------ */
#if defined(ALLOC_BOEHM) || defined(ALLOC_BOEHM_FREE)
static void init_allocator(void) {
    GC_INIT();
    /* A program that starts no thread gets no marker threads unless it asks (GC_MARKERS: how many). */
    GC_start_mark_threads();
#if defined(BOEHM_INCREMENTAL)
    GC_enable_incremental();
#endif
}
static void report_allocator(void) {
    unsigned v = GC_get_version();
    fprintf(stderr, "binary-trees: allocator Boehm GC %u.%u.%u markers=%d incremental=%d\n", v >> 16,
            (v >> 8) & 0xff, v & 0xff, GC_get_parallel() + 1,
            GC_is_incremental_mode());
}
#elif defined(ALLOC_MALLOC) || defined(ALLOC_ARENA)
#if defined(WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>
static const char *allocator_version(void) {
    static const char *version;
    size_t size = sizeof(version);
    return mallctl("version", &version, &size, NULL, 0) == 0 ? version : "unknown";
}
#define ALLOCATOR_NAME "jemalloc"
#elif defined(WITH_MIMALLOC)
#include <mimalloc.h>
static const char *allocator_version(void) {
    static char text[32];
    int v = mi_version();
    snprintf(text, sizeof text, "%d.%d.%d", v / 100, v / 10 % 10, v % 10);
    return text;
}
#define ALLOCATOR_NAME "mimalloc"
#elif defined(WITH_TCMALLOC)
#include <gperftools/tcmalloc.h>
static const char *allocator_version(void) {
    int major, minor;
    const char *patch;
    return tc_version(&major, &minor, &patch);
}
#define ALLOCATOR_NAME "tcmalloc"
#else
#include <gnu/libc-version.h>
static const char *allocator_version(void) { return gnu_get_libc_version(); }
#if defined(ALLOC_ARENA)
#define ALLOCATOR_NAME "arena (chunks from glibc malloc)"
#else
#define ALLOCATOR_NAME "glibc malloc"
#endif
#endif
static void init_allocator(void) {}
static void report_allocator(void) {
    fprintf(stderr, "binary-trees: allocator %s %s\n", ALLOCATOR_NAME, allocator_version());
}
#endif

int main(int argc, char **argv) {
    const int min_depth = 4;
    char *end = NULL;
    long requested = argc == 2 ? strtol(argv[1], &end, 10) : -1;
    if (argc != 2 || *end != '\0' || requested < 0 || requested > 30) {
        fprintf(stderr, "usage: %s DEPTH (an integer from 0 to 30)\n", argv[0]);
        return 2;
    }
    int max_depth = requested < min_depth + 2 ? min_depth + 2 : (int)requested;
    init_allocator();
#if defined(ALLOC_ARENA)
    arena region = {NULL}, *a = &region;
#endif

    int stretch_depth = max_depth + 1;
    node *stretch = bottom_up_tree(ALLOCATOR_PASS stretch_depth);
    printf("stretch tree of depth %d\t check: %ld\n", stretch_depth, item_check(stretch));
    DONE_WITH(stretch);

#if defined(ALLOC_ARENA)
    arena long_lived_region = {NULL};
    node *long_lived = bottom_up_tree(&long_lived_region, max_depth);
#else
    node *long_lived = bottom_up_tree(max_depth);
#endif

    for (int depth = min_depth; depth <= max_depth; depth += 2) {
        long iterations = 1L << (max_depth - depth + min_depth);
        long check = 0;
        for (long i = 0; i < iterations; i++) {
            node *tree = bottom_up_tree(ALLOCATOR_PASS depth);
            check += item_check(tree);
            DONE_WITH(tree);
        }
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, depth, check);
    }
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, item_check(long_lived));
#if defined(ALLOC_ARENA)
    a = &long_lived_region;
#endif
    DONE_WITH(long_lived);
    report_allocator();
    report_frees();
    return 0;
}
