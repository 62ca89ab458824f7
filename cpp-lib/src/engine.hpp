// cpp_engine's whole run: command line, allocator, records, the chosen model in the
// chosen mode, and the end-of-run checks. Returns the process exit status: 0 ok, 1 the
// run failed (its summary says why), 2 bad command line or allocator.
#pragma once

namespace cpp_engine {

// How much longer than --duration-s the fill phase may take before the run is an error (as the Java
// engine's and the study's runner: engine-facts.json's fill_limit_s, which a test checks).
inline constexpr double fill_grace_s = 600;

int run_engine(int argc, char** argv);

}  // namespace cpp_engine
