"""Running engines: the JDKs and collectors, the command lines, one cell as a process, the study's
cells and blocks, the executor that gets every measurement (stored, or run here, in a probe series or
on a cluster), each chapter family's experiments, and the sweep that holds them."""
