"""The exploration kernels: JJava specs per JDK and collector, a C++ kernel on cppyy, and
what headless runs of their notebooks need (papermill's Java parameters)."""
