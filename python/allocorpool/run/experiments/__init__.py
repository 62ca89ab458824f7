"""What each chapter family measures, as plain functions over the one executor (run.executor.Executor, their
first argument, which carries the profile): batch and real-time blocks, real-time searches, the sentinels of
the small profiles, the minimum heap, the continuum, the collectors across the JDKs, the several threads, the
queue benchmark and the GC logs, and the side studies (binary trees, the event echo). A function that shows
only some solutions is given them (the sweep's selection: run.sweep.Sweep, whose methods delegate here)."""
