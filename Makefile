# alloc-or-pool: build the engines, set up the JDKs and the Python environment, run every test.
# `make test` is what CI runs (.ci/run); README.md says what each target is for.

SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := $(ROOT)/build
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python
# The full JDK that compiles java-lib (javac --release 11) and provides jni.h.
BUILD_JDK ?= /usr/lib/jvm/java-17-openjdk-amd64
# The commit an engine is built from: -dirty when tracked files outside data/ differ (the stores a sweep writes, and the
# article's reference figures, which no engine reads; a run's commit, paths.source_commit, still counts data/reference/).
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git status --porcelain --untracked-files=no -- . ':!data' 2>/dev/null | grep -q . && echo -dirty)
MVN := JAVA_HOME=$(BUILD_JDK) mvn -B -ntp
JAR := java-lib/target/alloc-or-pool.jar
JDK_MAJORS := 11 17 21 25

# The id of each engine's sources, the files built into it (not its tests or benchmarks): embedded
# in the engine, it keys the study's cells.
ENGINE_QUEUE := native-queue/CMakeLists.txt native-queue/include
JAVA_SOURCE := $(shell python3 tools/source_id.py java-lib/pom.xml java-lib/src/main $(ENGINE_QUEUE) native-queue/src 2>/dev/null)
CPP_SOURCE := $(shell python3 tools/source_id.py cpp-lib/CMakeLists.txt cpp-lib/src $(ENGINE_QUEUE) 2>/dev/null)

export ALLOC_OR_POOL_COMMIT := $(COMMIT)

# A record-* target stores what it measures under the commit it ran from. With changes outside data/ that commit
# names sources no one can rebuild, so each refuses to start (exit 2); ALLOW_DIRTY=1 records anyway, marked -dirty.
ALLOW_DIRTY ?=
.PHONY: committed
committed:
	@$(if $(and $(findstring -dirty,$(COMMIT)),$(if $(ALLOW_DIRTY),,refuse)),$(error the checkout has uncommitted \
	  changes outside data/ ($(COMMIT)): commit or stash them before recording, or set ALLOW_DIRTY=1),:)

.PHONY: all env jdks native java cpp cpp-asan build test test-native test-java test-cpp test-python queue-bench harness-bench clean

all: build

build: native java cpp

# Python: conda when present, else a venv filled from the pip section of the same environment.yml, by uv
# (pinned here): it fetches the same pinned packages as pip, in parallel, in two thirds of pip's time. The
# exploration kernels' packages (tagged [kernels]) come with `make kernels` (mk/kernels.mk). Packages and the
# study's own modules are compiled to bytecode once, at install: where the environment sets
# PYTHONDONTWRITEBYTECODE, every process (each notebook's kernel, each test worker) would otherwise compile
# pandas, scipy and plotly again as it imports them.
UV_VERSION := 0.13.9
UV_INSTALL = $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(VENV)/bin/python
env: $(VENV)/.installed
$(VENV)/.installed: environment.yml tools/requirements_from_env.py python/pyproject.toml tools/jupyterlab-overrides.json
	@if command -v conda >/dev/null 2>&1; then \
	  conda env create --yes --quiet --prefix $(VENV) --file environment.yml; \
	else \
	  python3 -m venv $(VENV) && \
	  $(VENV)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) && \
	  $(UV_INSTALL) -r <(python3 tools/requirements_from_env.py environment.yml); \
	fi
	# jsonschema's IRI format check (jupyter-events asks for it) builds its parsers as it is imported, seconds of a
	# CPU in every process that imports nbformat (papermill, the article, each test worker, JupyterLab). Nothing here
	# validates IRIs, and jsonschema leaves the check out without it.
	$(VENV)/bin/python -m pip uninstall --quiet --yes rfc3987-syntax
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e python
	$(VENV)/bin/python -m compileall -q python/allocorpool
	# JupyterLab's settings for this environment: the text notebooks open as notebooks on a double-click.
	install -D -m 644 tools/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

jdks: env
	$(PY) -m allocorpool jdks $(JDK_MAJORS)

# NATIVE_TARGETS and CPP_TARGETS (empty: every target) let a sweep build only what it runs: the JNI library, the
# C++ engine and the memory-latency probe, not the tests and benchmarks (`make study` does).
native:
	JAVA_HOME=$(BUILD_JDK) cmake -S native-queue -B $(BUILD)/native-queue -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD)/native-queue $(if $(NATIVE_TARGETS),--target $(NATIVE_TARGETS))

java:
	cd java-lib && $(MVN) -q -Dgit.commit=$(COMMIT) -Dengine.source=$(JAVA_SOURCE) -DskipTests package

CPP_IDS = -DALLOC_OR_POOL_ENGINE_COMMIT=$(COMMIT) -DALLOC_OR_POOL_ENGINE_SOURCE=$(CPP_SOURCE)

cpp:
	cmake -S cpp-lib -B $(BUILD)/cpp-lib -G Ninja -DCMAKE_BUILD_TYPE=Release $(CPP_IDS) >/dev/null
	cmake --build $(BUILD)/cpp-lib $(if $(CPP_TARGETS),--target $(CPP_TARGETS))

# The C++ test suite again under AddressSanitizer + LeakSanitizer and UBSan. Unoptimized, with line tables only: the
# sanitizers check the same (the real-time tests run on a scripted clock, so the build's speed does not matter to
# them), and the build takes half the CPU time of -O1 with full debug information for slightly longer tests. Only
# the tests and the engines they start: the benchmarks are not under test.
cpp-asan:
	cmake -S cpp-lib -B $(BUILD)/cpp-lib-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O0" \
	  -DALLOC_OR_POOL_SANITIZE=ON $(CPP_IDS) >/dev/null
	cmake --build $(BUILD)/cpp-lib-asan --target cpp_lib_tests

test-cpp: cpp cpp-asan
	ctest --test-dir $(BUILD)/cpp-lib --output-on-failure
	ctest --test-dir $(BUILD)/cpp-lib-asan --output-on-failure

test-native: native
	ctest --test-dir $(BUILD)/native-queue --output-on-failure

# The unit tests only (the test phase): the jar the other suites run stays as `make java` built it.
test-java: native java
	cd java-lib && $(MVN) -Dgit.commit=$(COMMIT) -Dengine.source=$(JAVA_SOURCE) -Dnativequeue.dir=$(BUILD)/native-queue test

# Python tests include the engine smoke runs on JDK 11 (CMS), 17 (G1) and 25 (generational ZGC). They run
# PYTEST_WORKERS at a time (pytest-xdist): most of a test's time is spent waiting on the processes it starts, and no
# test asserts on time. Two per CPU, at most eight.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( 2 * n < 8 ? 2 * n : 8 )))
test-python: env jdks java
	cd python && $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 -m "not browser and not cluster" tests

# Every suite, TEST_JOBS at a time (two by default): no test asserts on time, so a suite beside another checks what
# it checks alone. First what several suites run is built (TEST_BUILDS); then the suites start with those marked as
# built (make -o), so that two suites never build one thing at once nor rewrite an engine another one runs. What one
# suite alone needs (the sanitizer build, the exploration kernels) it builds in its own slot. The notebooks start
# first: theirs is the longest chain (the browser test reads what they executed), and the other suites take the
# second slot one after the other.
TEST_JOBS ?= 2
TEST_SUITES = test-notebooks test-browser test-python test-cpp test-cluster test-kernels test-java test-native \
  test-binary-trees
TEST_BUILDS = env jdks native java cpp notebooks
TEST_BUILT_FILES = $(ANSWER_NOTEBOOK)
test:
	@start=$$(date +%s); status=0; \
	$(MAKE) --no-print-directory -j$(TEST_JOBS) $(TEST_BUILDS) $(TEST_BUILT_FILES) && \
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(addprefix -o ,$(TEST_BUILDS)) $(TEST_SUITES) \
	  || status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s, $(TEST_JOBS) suites at a time on $$(nproc) CPUs, exit $$status"; \
	exit $$status

# The queue benchmark: C++ to C++ and C++ to Java, shortest loss-free interval on this machine.
queue-bench: native java jdks
	mkdir -p data/queue-bench
	$(BUILD)/native-queue/queue_bench --out data/queue-bench/cpp-cpp.jsonl
	$(PY) -m allocorpool java --jdk 25 --gc g1 --main allocorpool.queue.QueueBenchmark -- --out data/queue-bench/cpp-java.jsonl

# The harness's cost (dummy strategy) of both engines under both packet sources, beside the article's.
harness-bench: env jdks java cpp
	$(PY) -m allocorpool.run.harness

clean:
	rm -rf $(BUILD) java-lib/target

# The study (notebooks, sweep, article) and the exploration kernels have their own files.
include mk/study.mk mk/kernels.mk mk/event-echo.mk mk/binary-trees.mk mk/cluster.mk
