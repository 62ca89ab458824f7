# The exploration kernels: JJava specs per JDK and collector, the C++ kernel (cppyy), their
# notebooks (notebooks/explore-*, jupytext text) run headless, and the kernels' tests.
# Included by the top-level Makefile (ROOT, BUILD, VENV, PY come from there).

KERNELS_BUILD := $(BUILD)/kernels
CPP_EXPLORE_LIB := $(KERNELS_BUILD)/libcpp_lib_explore.so
KERNEL_NOTEBOOKS_DIR := $(KERNELS_BUILD)/notebooks
EXPLORE_NOTEBOOKS := $(KERNEL_NOTEBOOKS_DIR)/explore-java.ipynb $(KERNEL_NOTEBOOKS_DIR)/explore-cpp.ipynb
# The installed Java kernels besides the notebook's own (Java 17, G1): explore-java runs on them too.
LIST_OTHER_JAVA_KERNELS := $(PY) -c 'from allocorpool.kernels import specs; print(*(k for k in specs.installed_java_kernels() if k != "java17-g1"))'

.PHONY: kernels test-kernels

# cpp-lib's compiled pieces, preloaded into the C++ kernel's interpreter process: the
# counting operator new/delete (preloaded, so that it takes the place of the C++ runtime's
# own for the interpreter and the code it compiles alike) and CaseParams.
$(CPP_EXPLORE_LIB): cpp-lib/src/alloc_counter.cpp cpp-lib/src/case_params.cpp cpp-lib/src/alloc_counter.hpp cpp-lib/src/case_params.hpp
	@mkdir -p $(@D)
	g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -o $@ $(filter %.cpp,$^)

# The kernels' Python packages, environment.yml's [kernels] group, into a venv (conda installed them with the
# rest): cppyy builds from source at every install, which only the kernels need. uv puts a package's headers
# under its normalized name; cppyy finds its own C++ API only as CPyCppyy, as pip names it.
KERNELS_INSTALLED := $(VENV)/.kernels-installed
$(KERNELS_INSTALLED): $(VENV)/.installed environment.yml tools/requirements_from_env.py
	@if ! command -v conda >/dev/null 2>&1; then \
	  $(UV_INSTALL) -r <(python3 tools/requirements_from_env.py environment.yml --group kernels) && \
	  for api in $(VENV)/include/site/python*/cpycppyy; do \
	    [ ! -d "$$api" ] || [ -e "$${api%/*}/CPyCppyy" ] || ln -s cpycppyy "$${api%/*}/CPyCppyy"; \
	  done; \
	fi
	touch $@

# make test installs them in its set-up, beside the engines' builds, rather than in the kernels suite's slot
# at the end of the run.
TEST_BUILT_FILES += $(KERNELS_INSTALLED)

# Kernel specs into the project environment (.venv/share/jupyter/kernels); reinstalling
# refreshes them.
kernels: env $(KERNELS_INSTALLED) java cpp $(CPP_EXPLORE_LIB)
	$(PY) -m allocorpool.kernels install

# JupyterLab (`make lab`, mk/study.mk) shows the Java and C++ kernels beside Python.
lab: kernels

$(KERNEL_NOTEBOOKS_DIR)/%.ipynb: notebooks/%.java tools/to_ipynb.py | $(VENV)/.installed
	$(PY) tools/to_ipynb.py $(@D) $<

$(KERNEL_NOTEBOOKS_DIR)/%.ipynb: notebooks/%.cpp tools/to_ipynb.py | $(VENV)/.installed
	$(PY) tools/to_ipynb.py $(@D) $<

# nbval's compatibility shim for JJava goes beside the notebooks pytest runs.
$(KERNEL_NOTEBOOKS_DIR)/conftest.py: notebooks/conftest.py
	@mkdir -p $(@D)
	cp $< $@

# Both exploration notebooks headless (explore-java on every Java kernel), then the kernel
# tests: a broken cell fails a notebook in each language, the C++ kernel keeps state and
# survives crashes, papermill passes parameters to a Java notebook.
test-kernels: kernels $(EXPLORE_NOTEBOOKS) $(KERNEL_NOTEBOOKS_DIR)/conftest.py
	cd $(KERNEL_NOTEBOOKS_DIR) && $(PY) -m pytest -q -p no:cacheprovider --rootdir=. --nbval-lax \
	  --nbval-cell-timeout=300 $(notdir $(EXPLORE_NOTEBOOKS))
	for kernel in $$($(LIST_OTHER_JAVA_KERNELS)); do \
	  (cd $(KERNEL_NOTEBOOKS_DIR) && $(PY) -m pytest -q -p no:cacheprovider --rootdir=. --nbval-lax \
	    --nbval-cell-timeout=300 --nbval-kernel-name=$$kernel explore-java.ipynb) || exit 1; \
	done
	cd python && ALLOC_OR_POOL_KERNEL_TESTS=1 $(PY) -m pytest -q -m kernels tests
