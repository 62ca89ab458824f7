# The study: notebooks kept as jupytext text (notebooks/NN-*.py), converted and executed under
# build/, a papermill sweep per profile, one self-contained HTML article, the notebook tests
# and JupyterLab. Included by the top-level Makefile (ROOT, BUILD, VENV, PY come from there).

PROFILE ?= quick
# The solutions a sweep runs: a selection of study.SELECTIONS ("all", or "paper": the article's eight as it ran them).
SOLUTIONS ?= all
# A Dask scheduler's address (tcp://host:8786): `make sweep` runs the cells on its workers, one per machine.
SCHEDULER ?= $(ALLOC_OR_POOL_SCHEDULER)
# How many blocks `make sweep`, `make record` and `make study` run side by side here (run/slots.py; empty: a
# block per two CPUs from 4 CPUs up, else one at a time; 1: one at a time).
SLOTS ?= $(ALLOC_OR_POOL_SLOTS)
STUDY_SOURCES := $(sort $(wildcard notebooks/[0-9][0-9]-*.py))
NOTEBOOKS_DIR := $(BUILD)/notebooks
STUDY_NOTEBOOKS := $(patsubst notebooks/%.py,$(NOTEBOOKS_DIR)/%.ipynb,$(STUDY_SOURCES))
EXECUTED_DIR := $(BUILD)/executed/$(PROFILE)
ARTICLE_HTML := $(BUILD)/article.html
TEST_NOTEBOOKS_DIR := $(BUILD)/test-notebooks
# JupyterLab refuses to run as root unless told.
LAB_ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: notebooks sweep article study answer lab test-notebooks test-browser plan record record-threads record-handoff record-pool-choice \
  record-jdks record-continuum record-headroom readme-answer

notebooks: $(STUDY_NOTEBOOKS)

# All of them in one process (a grouped target: one run makes every notebook).
$(STUDY_NOTEBOOKS) &: $(STUDY_SOURCES) tools/to_ipynb.py | $(VENV)/.installed
	$(PY) tools/to_ipynb.py $(NOTEBOOKS_DIR) $(STUDY_SOURCES)

# What a profile runs and about how long it takes.
plan: env
	@$(PY) -m allocorpool plan --profile $(PROFILE) --solutions $(SOLUTIONS)

# The boot a record-* target's commits name: this machine's, or with SCHEDULER its workers' (the blocks' register
# names each one's boot and host).
RECORD_BOOT = $(if $(SCHEDULER),"of the workers of $(SCHEDULER)",$$(cut -c1-8 /proc/sys/kernel/random/boot_id))

# The batch blocks of a selection (every strategy of a solution and case, interleaved and repeated in this
# boot), then its real-time blocks (every strategy's probes at 1000 ns), a solution at a time, each
# solution's blocks committed to git as they finish: a session that ends mid-way keeps every finished
# block, and the next one resumes (in another boot, a block runs again whole).
record: committed env
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for test in batch realtime; do \
	for name in $$($(PY) -m allocorpool blocks --profile $(PROFILE) --solutions $(SOLUTIONS) --list); do \
	  ALLOC_OR_POOL_SLOTS=$(SLOTS) $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name $$([ $$test = realtime ] && echo --realtime) \
	    | tee $(BUILD)/record-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) $$test blocks of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-$$name.txt)" || true; \
	done; done

# The several-threads chapter's blocks (every thread strategy at each thread count this machine has CPUs for), a
# solution at a time, each committed as it finishes, as `make record` does (ONLY= names some of them; NO_PROBES=1
# leaves out the several-consumer real-time probes; CASES="A B" measures those cases only, as case C's blocks take
# an hour each; SCALINGS=weak the weak-scaling blocks only). With SCHEDULER, on that Dask cluster's workers, a
# block whole on one worker machine, the counts its smallest worker has CPUs for (docs/methods.md: Blocks on a
# cluster).
record-threads: committed env
	@set -o pipefail; boot=$(RECORD_BOOT); \
	for name in $(or $(ONLY),$$($(PY) -c 'from allocorpool import profiles; print(" ".join(profiles.profile("$(PROFILE)").threads.solutions))')); do \
	  ALLOC_OR_POOL_SCHEDULER=$(SCHEDULER) $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name --threads $(if $(NO_PROBES),--no-probes) $(if $(CASES),--cases $(CASES)) $(if $(SCALINGS),--scalings $(SCALINGS)) | tee $(BUILD)/record-threads-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) $(if $(SCALINGS),$(SCALINGS) )thread blocks of $$name$(if $(CASES), (cases $(CASES))), boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-threads-$$name.txt)" || true; \
	done

# The several-threads chapter's hand-off blocks (one producer, N workers, at each count this machine has N
# CPUs for, the producer sharing them where no CPU is left for it), a Java solution at a time, each committed
# as it finishes (ONLY= names some of them). With SCHEDULER, on that Dask cluster's workers, as record-threads.
record-handoff: committed env
	@set -o pipefail; boot=$(RECORD_BOOT); \
	for name in $(or $(ONLY),$$($(PY) -c 'from allocorpool import lists, profiles; print(" ".join(n for n in profiles.profile("$(PROFILE)").threads.solutions if lists.SOLUTIONS_BY_NAME[n].engine in lists.HANDOFF_ENGINES))')); do \
	  ALLOC_OR_POOL_SCHEDULER=$(SCHEDULER) $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name --handoff | tee $(BUILD)/record-handoff-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) hand-off blocks of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-handoff-$$name.txt)" || true; \
	done

# The C++ chapter's choice-of-pool blocks (allocation, the free list and the standard library's pool, each design on
# glibc), a solution at a time, each committed as it finishes, as `make record` does.
record-pool-choice: committed env
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for name in $(or $(ONLY),$$($(PY) -c 'from allocorpool import lists; print(" ".join(lists.POOL_CHOICE_SOLUTIONS))')); do \
	  $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name --pool-choice | tee $(BUILD)/record-pool-choice-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) pool-choice blocks of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-pool-choice-$$name.txt)" || true; \
	done

# The JDKs chapter's blocks (each JDK and collector's strategies on the decisive case) and real-time probes, a JDK and collector at a time,
# each committed as it finishes, as `make record` does. ONLY= names some of them (`blocks --list --jdks` lists all).
record-jdks: committed env jdks
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for name in $(or $(ONLY),$$($(PY) -m allocorpool blocks --profile $(PROFILE) --list --jdks)); do \
	  $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name --jdks | tee $(BUILD)/record-jdks-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) JDK blocks of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-jdks-$$name.txt)" || true; \
	done

# The continuum chapter's runs a solution at a time (with its single runs stored, each live-set size's batch
# block), each committed as it finishes, as `make record` does (ONLY= names some of them).
record-continuum: committed env jdks
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for name in $(or $(ONLY),$$($(PY) -c 'from allocorpool import lists, profiles; p = profiles.profile("$(PROFILE)"); print(" ".join(n for n in lists.CONTINUUM_SOLUTIONS if p.selects(lists.SOLUTIONS_BY_NAME[n])))')); do \
	  $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name --continuum | tee $(BUILD)/record-continuum-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) continuum of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-continuum-$$name.txt)" || true; \
	done

# The answer's heap headroom (chapter 18), a Java solution at a time: each case's minimum heaps where the store
# lacks them, then pooling against allocation at 3 and 6 times the larger, each solution committed as it
# finishes (ONLY= names some of them; by default the article's Java solutions with buffers on the heap).
record-headroom: committed env jdks
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for name in $(or $(ONLY),parallel-11 g1 zgc); do \
	  $(PY) -m allocorpool blocks --profile $(PROFILE) --solution $$name --headroom | tee $(BUILD)/record-headroom-$$name.txt || exit $$?; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) headroom blocks of $$name, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-headroom-$$name.txt)" || true; \
	done

# Every study notebook under one profile; a failing notebook is reported and the sweep goes on.
# Results land in data/$(PROFILE)/ (resumable: finished cells are never rerun). With SCHEDULER, the
# cells run on that Dask cluster's workers and this machine only stores them (README: on a cluster).
sweep: notebooks
	@mkdir -p $(EXECUTED_DIR)
	@$(PY) -m allocorpool plan --profile $(PROFILE) --solutions $(SOLUTIONS)
	@mkdir -p data/$(PROFILE); exec 9>>data/$(PROFILE)/.sweep.lock; \
	if ! flock -n 9; then echo "make sweep: another sweep of profile $(PROFILE) is running on data/$(PROFILE)" \
	  "($$(cat data/$(PROFILE)/.sweep.lock)); wait for it to end or stop it" >&2; exit 2; fi; \
	: > data/$(PROFILE)/.sweep.lock; echo "pid $$$$, make sweep PROFILE=$(PROFILE) SOLUTIONS=$(SOLUTIONS)$(if $(SCHEDULER), SCHEDULER=$(SCHEDULER)), since $$(date -u +%FT%TZ)" >&9; \
	start=$$(date +%s); failed=""; \
	for notebook in $(STUDY_NOTEBOOKS); do \
	  name=$$(basename $$notebook); echo "== $$name (profile $(PROFILE))"; \
	  ALLOC_OR_POOL_SCHEDULER=$(SCHEDULER) ALLOC_OR_POOL_SLOTS=$(SLOTS) ALLOC_OR_POOL_SOLUTIONS=$(SOLUTIONS) $(VENV)/bin/papermill --cwd $(ROOT) --kernel python3 -p profile $(PROFILE) \
	    $$notebook $(EXECUTED_DIR)/$$name || failed="$$failed $$name"; \
	done; \
	echo "sweep $(PROFILE): $$(( $$(date +%s) - start )) s, executed notebooks in $(EXECUTED_DIR)"; \
	if [ -n "$$failed" ]; then echo "notebooks that failed:$$failed (their executed copies show where)"; exit 1; fi

# The article of a profile's store, on any machine: every notebook replays the store (nothing runs;
# a cell it lacks shows as not measured), then one self-contained HTML file, plotly.js embedded once.
# `make article PROFILE=full` renders the committed data/full/ (SOLUTIONS=paper: the article's solutions only).
article: env notebooks
	@mkdir -p $(EXECUTED_DIR)
	@for notebook in $(STUDY_NOTEBOOKS); do \
	  ALLOC_OR_POOL_REPLAY=1 ALLOC_OR_POOL_SOLUTIONS=$(SOLUTIONS) $(VENV)/bin/papermill --cwd $(ROOT) --kernel python3 \
	    --log-level WARNING \
	    -p profile $(PROFILE) $$notebook $(EXECUTED_DIR)/$$(basename $$notebook) || exit 1; \
	done
	$(PY) -m allocorpool.chapters.article $(EXECUTED_DIR) $(ARTICLE_HTML)

# The README's answer: its lead sentence and table, counted from data/full/ as the article counts them
# (tests/test_headline.py fails while the README says otherwise). Run it after a sweep adds to data/full/.
readme-answer: env
	$(PY) -m allocorpool.chapters.headline --write README.md

# From a fresh clone, by default: your machine's answer. Set up what the article's eight solutions
# need (JDK 11), measure the blocks the article's answer rests on (profile answer), and render them
# beside the committed full-size verdicts. With PROFILE given (`make study PROFILE=quick`): set up,
# build, run that profile's whole sweep and render its article (even when a notebook failed: the
# article shows where). Either fails if anything did.
STUDY_PROFILE := $(if $(filter command line environment,$(origin PROFILE)),$(PROFILE),answer)
ANSWER_SOURCE := notebooks/answer/00-your-machine.py
ANSWER_NOTEBOOK := $(NOTEBOOKS_DIR)/answer/00-your-machine.ipynb
ANSWER_HTML := $(BUILD)/your-machine.html

# The set-up's steps two at a time: the environment's downloads beside the engines' builds. Your machine's answer
# builds only what its runs start (the engines, the JNI library, the memory-latency probe): not the tests, the
# benchmarks or the side studies' programs.
STUDY_SETUP_JOBS ?= 2
ANSWER_BUILD = NATIVE_TARGETS=nativequeue_jni CPP_TARGETS="cpp_engine memory_latency"

study:
ifeq ($(STUDY_PROFILE),answer)
	@start=$$(date +%s); status=0; \
	$(MAKE) --no-print-directory -j$(STUDY_SETUP_JOBS) env native java cpp jdks JDK_MAJORS=11 $(ANSWER_BUILD) || exit $$?; \
	$(MAKE) --no-print-directory answer || status=$$?; \
	echo "make study (answer): wall time $$(( $$(date +%s) - start )) s; page $(ANSWER_HTML)"; \
	exit $$status
else
	@start=$$(date +%s); status=0; \
	$(MAKE) --no-print-directory -j$(STUDY_SETUP_JOBS) env jdks build || exit $$?; \
	$(MAKE) --no-print-directory sweep PROFILE=$(STUDY_PROFILE) || status=$$?; \
	$(MAKE) --no-print-directory article PROFILE=$(STUDY_PROFILE) || status=$$?; \
	echo "make study ($(STUDY_PROFILE)): wall time $$(( $$(date +%s) - start )) s; article $(ARTICLE_HTML):" \
	  "$$(du -h $(ARTICLE_HTML) 2>/dev/null | cut -f1)"; \
	exit $$status
endif

$(ANSWER_NOTEBOOK): $(ANSWER_SOURCE) tools/to_ipynb.py | $(VENV)/.installed
	$(PY) tools/to_ipynb.py $(@D) $<

# Measures (or reads back, from data/answer) your machine's answer and renders it as one page.
answer: env $(ANSWER_NOTEBOOK)
	@rm -rf $(BUILD)/executed/answer && mkdir -p $(BUILD)/executed/answer
	ALLOC_OR_POOL_SLOTS=$(SLOTS) $(VENV)/bin/papermill --cwd $(ROOT) --kernel python3 --log-level WARNING -p profile answer \
	  $(ANSWER_NOTEBOOK) $(BUILD)/executed/answer/00-your-machine.ipynb
	$(PY) -m allocorpool.chapters.article $(BUILD)/executed/answer $(ANSWER_HTML) --title "Your machine's answer"

# JupyterLab on the checkout (the text notebooks open as notebooks); the token stays on.
lab: env notebooks
	$(VENV)/bin/jupyter lab --notebook-dir=$(ROOT) $(LAB_ROOT_FLAG)

# Every study notebook once under the ci profile, into a fresh data folder, as the sweep runs them (papermill):
# a failing cell fails the suite, after the other notebooks ran; its executed copy shows where.
TEST_EXECUTED_DIR := $(TEST_NOTEBOOKS_DIR)/executed
test-notebooks: env jdks native java cpp notebooks $(ANSWER_NOTEBOOK)
	rm -rf $(TEST_NOTEBOOKS_DIR) && mkdir -p $(TEST_EXECUTED_DIR)/answer
	$(PY) tools/execute_notebooks.py --cwd $(ROOT) --label " under ci" -p profile ci -p data_dir $(TEST_NOTEBOOKS_DIR)/data \
	  $(TEST_EXECUTED_DIR) $(NOTEBOOKS_DIR) $(STUDY_NOTEBOOKS) $(ANSWER_NOTEBOOK)

# The study in a real browser (Debian's Chromium): a chapter opened from JupyterLab's file browser
# runs under ci, and the ci article, rendered from the notebooks test-notebooks executed, draws.
test-browser: test-notebooks
	$(PY) -m allocorpool.chapters.article $(TEST_EXECUTED_DIR) $(TEST_NOTEBOOKS_DIR)/article.html
	cd python && ALLOC_OR_POOL_DATA=$(TEST_NOTEBOOKS_DIR)/data ALLOC_OR_POOL_ARTICLE=$(TEST_NOTEBOOKS_DIR)/article.html \
	  $(PY) -m pytest -q -p no:cacheprovider -m browser tests
