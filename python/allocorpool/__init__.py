"""alloc-or-pool: run the study's engines and read what they measured."""
