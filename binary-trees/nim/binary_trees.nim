# Binary trees in Nim, one source for each of its memory managers (chosen with --gc: when compiling).
#
# Lesson: the same `ref` object under deferred reference counting with a cycle collector (refc),
# a plain mark-and-sweep collector (markAndSweep), the Boehm collector (boehm) and scope-based
# reference counting (orc, Nim 2's default): what each costs per node and how long it stops.
#
# Output (stdout): the benchmarks game's check lines. Report (stderr): refc and markAndSweep print
# their own statistics (GC_getStatistics); refc measures its longest pause (in whole ms) only when
# compiled with -d:useRealtimeGC, which the build sets. Boehm's statistics are printed by the
# collector itself when GC_PRINT_STATS is set.
import std/[os, strutils]

type
  Node = ref object
    left, right: Node

proc bottomUpTree(depth: int): Node =
  if depth > 0:
    Node(left: bottomUpTree(depth - 1), right: bottomUpTree(depth - 1))
  else:
    Node()

proc itemCheck(n: Node): int =
  if n.left == nil: 1 else: 1 + itemCheck(n.left) + itemCheck(n.right)

const memoryManager =
  when compileOption("gc", "refc"): "refc"
  elif compileOption("gc", "markAndSweep"): "markAndSweep"
  elif compileOption("gc", "boehm"): "boehm"
  elif compileOption("gc", "orc"): "orc"
  elif compileOption("gc", "arc"): "arc"
  else: "another"

when defined(gcBoehm):
  # A program that starts no thread gets no marker threads unless it asks (GC_MARKERS: how many).
  proc GC_start_mark_threads() {.importc, dynlib: "libgc.so.1".}

proc main() =
  const minDepth = 4
  var requested = -1
  if paramCount() == 1:
    try:
      requested = parseInt(paramStr(1))
    except ValueError:
      requested = -1
  if requested < 0 or requested > 30:
    stderr.writeLine("usage: " & getAppFilename() & " DEPTH (an integer from 0 to 30)")
    quit(2)
  when defined(gcBoehm):
    GC_start_mark_threads()
  let maxDepth = max(minDepth + 2, requested)

  let stretchDepth = maxDepth + 1
  echo "stretch tree of depth ", stretchDepth, "\t check: ", itemCheck(bottomUpTree(stretchDepth))

  let longLived = bottomUpTree(maxDepth)
  var depth = minDepth
  while depth <= maxDepth:
    let iterations = 1 shl (maxDepth - depth + minDepth)
    var check = 0
    for i in 1 .. iterations:
      check += itemCheck(bottomUpTree(depth))
    echo iterations, "\t trees of depth ", depth, "\t check: ", check
    depth += 2
  echo "long lived tree of depth ", maxDepth, "\t check: ", itemCheck(longLived)
  stderr.writeLine("binary-trees: allocator Nim " & NimVersion & " --gc:" & memoryManager)
  when memoryManager in ["refc", "markAndSweep"]:
    stderr.write(GC_getStatistics())

main()
