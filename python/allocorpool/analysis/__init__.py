"""Analysis of stored runs: the real-time search, the GC table, pauses against lost packets."""
