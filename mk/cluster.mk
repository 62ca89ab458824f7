# The sweep on a Dask cluster (python/allocorpool/run/cluster.py; README: on a cluster), tested on a
# scheduler and two workers on loopback: a store like a local run's, killed workers and clients,
# refusals, and real ci cells end to end. Blocks side by side on a local Dask cluster of CPU slots
# (run/slots.py), tested on the fake engine. Included by the top-level Makefile.

.PHONY: test-cluster interference

test-cluster: env jdks native java cpp
	cd python && $(PY) -m pytest -q -p no:cacheprovider -m cluster tests/test_cluster.py tests/test_slots.py

# What running blocks side by side costs in accuracy, in miniature (run/interference.py): two batch blocks of
# the quick profile, each alone in a CPU slot, then both side by side in the same slots; for every cell, the
# ratio of its median side by side to its median alone, with its 95 % interval. Some minutes, on a quiet
# machine; its stores go to build/interference/.
interference: env jdks native java cpp
	$(PY) -m allocorpool.run.interference
