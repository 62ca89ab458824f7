// cpp_engine: the C++ engine of the packet-analyser model (see engine.hpp, README.md).
#include "engine.hpp"

int main(int argc, char** argv) { return cpp_engine::run_engine(argc, argv); }
