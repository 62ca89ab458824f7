// cpp_engine's whole run: command line, allocator, records, the chosen model in the
// chosen mode, and the end-of-run checks. Returns the process exit status: 0 ok, 1 the
// run failed (its summary says why), 2 bad command line or allocator.
#pragma once

namespace cpp_engine {

int run_engine(int argc, char** argv);

}  // namespace cpp_engine
