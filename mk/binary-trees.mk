# The binary-trees shoot-out (seed 002): every variant's program built by binary-trees/Makefile
# into build/binary-trees/bin, its tests, and its runs by profile. Included by the top-level
# Makefile (ROOT, BUILD, VENV, PY, BUILD_JDK come from there).

BINARY_TREES_BUILD := $(BUILD)/binary-trees

.PHONY: binary-trees test-binary-trees binary-trees-sweep record-binary-trees

# A variant whose compiler or library is missing is not built; its .unavailable file says why.
binary-trees:
	$(MAKE) --no-print-directory -C binary-trees BUILD_DIR=$(BINARY_TREES_BUILD) JAVAC=$(BUILD_JDK)/bin/javac

# Every variant built (none unavailable) and printing the right check lines at a small depth, with a
# readable pause report; the parser and driver tests run with the other Python tests.
test-binary-trees: binary-trees env jdks
	cd python && ALLOC_OR_POOL_BINARY_TREES_BUILT=$(BINARY_TREES_BUILD)/bin $(PY) -m pytest -q tests/test_binary_trees_variants.py

# The binary-trees runs alone (the notebook runs them too): python -m allocorpool.run.experiments.binary_trees.
binary-trees-sweep: binary-trees env jdks
	$(PY) -m allocorpool.run.experiments.binary_trees --profile $(PROFILE)

# The same runs a variant at a time, each committed as it finishes, as `make record` does (ONLY= names some).
record-binary-trees: committed binary-trees env jdks
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for name in $(or $(ONLY),$$($(PY) -m allocorpool.run.experiments.binary_trees --list)); do \
	  $(PY) -m allocorpool.run.experiments.binary_trees --profile $(PROFILE) --variant $$name \
	    | tee $(BUILD)/record-binary-trees-$$name.txt; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) binary-trees runs of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-binary-trees-$$name.txt)" || true; \
	done

# The chapter's notebook runs every variant, and the driver's tests run a fake program through the
# launcher (binary-trees/measure): the study's notebook and Python test targets need them built.
test-python test-notebooks sweep: binary-trees
TEST_BUILDS += binary-trees
