/* Binary trees in D, nodes as classes or as structs (STRUCT_NODES version) on D's collector.
 *
 * Lesson: D's collector is a conservative, stop-the-world mark-and-sweep; a class instance
 * carries a vtable and monitor word besides its two references, a struct node only the two, so
 * the struct version allocates half the bytes per node for the same work.
 *
 * Output (stdout): the benchmarks game's check lines. Pauses: with --DRT-gcopt=profile:1 on the
 * command line the runtime prints its collection count, total and longest pause at exit.
 */
import core.stdc.stdlib : exit;
import std.algorithm : max;
import std.conv : ConvException, to;
import std.stdio : stderr, writefln;

version (STRUCT_NODES)
{
    struct Node
    {
        Node* left, right;
    }

    alias Ref = Node*;
    enum nodeKind = "structs";
}
else
{
    final class Node
    {
        Node left, right;
        this(Node left, Node right)
        {
            this.left = left;
            this.right = right;
        }
    }

    alias Ref = Node;
    enum nodeKind = "classes";
}

Ref bottomUpTree(int depth)
{
    return depth > 0 ? new Node(bottomUpTree(depth - 1), bottomUpTree(depth - 1)) : new Node(null, null);
}

long itemCheck(Ref n)
{
    return n.left is null ? 1 : 1 + itemCheck(n.left) + itemCheck(n.right);
}

void main(string[] args)
{
    enum minDepth = 4;
    int requested = -1;
    if (args.length == 2)
    {
        try
            requested = args[1].to!int;
        catch (ConvException)
            requested = -1;
    }
    if (requested < 0 || requested > 30)
    {
        stderr.writefln("usage: %s DEPTH (an integer from 0 to 30)", args[0]);
        exit(2);
    }
    immutable maxDepth = max(minDepth + 2, requested);

    immutable stretchDepth = maxDepth + 1;
    writefln("stretch tree of depth %d\t check: %d", stretchDepth, itemCheck(bottomUpTree(stretchDepth)));

    auto longLived = bottomUpTree(maxDepth);
    for (int depth = minDepth; depth <= maxDepth; depth += 2)
    {
        immutable iterations = 1 << (maxDepth - depth + minDepth);
        long check = 0;
        foreach (i; 0 .. iterations)
            check += itemCheck(bottomUpTree(depth));
        writefln("%d\t trees of depth %d\t check: %d", iterations, depth, check);
    }
    writefln("long lived tree of depth %d\t check: %d", maxDepth, itemCheck(longLived));
    stderr.writefln("binary-trees: allocator D runtime %s (front end %d.%03d), nodes as %s", __VENDOR__,
            __VERSION__ / 1000, __VERSION__ % 1000, nodeKind);
}
