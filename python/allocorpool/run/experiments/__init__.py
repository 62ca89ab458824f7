"""What each chapter family measures, over the one executor (run.executor): batch and real-time blocks,
real-time searches, the sentinels of the small profiles, the minimum heap, the continuum, the collectors
across the JDKs, the queue benchmark and the GC logs. Each module's class adds one family's experiments
to the executor; run.sweep.Sweep holds them all."""
