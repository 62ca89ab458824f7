# Exploration kernels for Java and C++. (Filled in by the kernels work.)
.PHONY: test-kernels
test-kernels:
	@echo "no exploration kernels yet"
