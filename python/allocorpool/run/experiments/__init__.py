"""What each chapter family measures, as plain functions over the one executor (run.executor.Executor, their
first argument, which carries the profile): batch and real-time blocks, real-time searches, the sentinels of
the small profiles, the minimum heap, the continuum, the collectors across the JDKs, the several threads, the
queue benchmark and the GC logs, and the side studies (binary trees, the event echo). A function that shows
only some solutions is given them: a chapter holds a run.sweep.Sweep, which chooses the solutions its
selection shows, and calls a function here with sweep.executor (`measure_batch.batch(sweep.executor, chosen)`,
each module imported as measure_<module>)."""
