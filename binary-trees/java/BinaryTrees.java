/*
 * Binary trees in Java, run on every collector of every JDK of the study (compiled for 11).
 *
 * Lesson: the JIT inlines allocation into a bump of a thread-local pointer in the young
 * generation, and a copying young collection costs in proportion to what survives, not to what
 * died: the short-lived trees are never freed one by one, the long-lived one is copied once and
 * then left in the old generation.
 *
 * Output (stdout): the benchmarks game's check lines. Pauses: the driver asks for a unified GC
 * log (-Xlog:gc*,safepoint) and reads the pauses from it.
 */
public final class BinaryTrees {
    private static final int MIN_DEPTH = 4;

    private static final class Node {
        final Node left;
        final Node right;

        Node(Node left, Node right) {
            this.left = left;
            this.right = right;
        }

        int itemCheck() {
            return left == null ? 1 : 1 + left.itemCheck() + right.itemCheck();
        }
    }

    private static Node bottomUpTree(int depth) {
        return depth > 0 ? new Node(bottomUpTree(depth - 1), bottomUpTree(depth - 1)) : new Node(null, null);
    }

    public static void main(String[] args) {
        int requested = -1;
        if (args.length == 1) {
            try {
                requested = Integer.parseInt(args[0]);
            } catch (NumberFormatException e) {
                requested = -1;
            }
        }
        if (requested < 0 || requested > 30) {
            System.err.println("usage: BinaryTrees DEPTH (an integer from 0 to 30)");
            System.exit(2);
        }
        int maxDepth = Math.max(MIN_DEPTH + 2, requested);
        StringBuilder out = new StringBuilder();

        int stretchDepth = maxDepth + 1;
        out.append("stretch tree of depth ").append(stretchDepth).append("\t check: ")
                .append(bottomUpTree(stretchDepth).itemCheck()).append('\n');

        Node longLived = bottomUpTree(maxDepth);
        for (int depth = MIN_DEPTH; depth <= maxDepth; depth += 2) {
            int iterations = 1 << (maxDepth - depth + MIN_DEPTH);
            long check = 0;
            for (int i = 0; i < iterations; i++) {
                check += bottomUpTree(depth).itemCheck();
            }
            out.append(iterations).append("\t trees of depth ").append(depth).append("\t check: ").append(check)
                    .append('\n');
        }
        out.append("long lived tree of depth ").append(maxDepth).append("\t check: ").append(longLived.itemCheck())
                .append('\n');
        System.out.print(out);
        System.err.println("binary-trees: allocator " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version"));
    }
}
