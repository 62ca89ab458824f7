"""Running engines: the JDKs and collectors, the command lines, one cell as a process, the
machine's fingerprint, and the sweep that runs a profile's cells through the store."""
