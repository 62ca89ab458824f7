"""Running engines: the JDKs and collectors, the command lines, one cell as a process, the study's
cells and blocks, the executor that gets every measurement (stored, or run here, in a probe series or
on a cluster), each chapter family's experiments, and the sweep that holds them.

Importing the package registers the kinds of cell a store holds (allocorpool.kinds): the engines',
the event echo's and the binary trees'."""

from allocorpool.run import binary_trees_variants, event_echo, runner  # noqa: F401  (their cells register)
