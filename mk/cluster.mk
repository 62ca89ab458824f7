# The sweep on a Dask cluster (python/allocorpool/run/cluster.py; README: on a cluster), tested on a
# scheduler and two workers on loopback: a store like a local run's, killed workers and clients,
# refusals, and real ci cells end to end. Included by the top-level Makefile.

.PHONY: test-cluster

test-cluster: env jdks native java cpp
	cd python && $(PY) -m pytest -q -p no:cacheprovider -m cluster tests/test_cluster.py
