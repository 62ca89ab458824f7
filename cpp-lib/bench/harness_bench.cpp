// harness_bench: the cost of the test harness itself, i.e. the dummy strategy in batch
// mode (one packet reused, nothing pooled or freed), for both designs and both packet
// sources, to compare with the article's 16 ns (flat) and 145 ns (cpp, whose dummy also
// leaked its parse objects). Each run has the engine's fill phase first; this is the
// timed build, and allocs_per_packet comes from the engine's counting pass. Writes one
// JSON record per design and source ("type": "harness") to --out and a human line each
// to standard error.
//
// usage: harness_bench [--duration-s S] [--warmup-s S] [--case A|B|C] [--scale F]
//                      [--allocator glibc|jemalloc|mimalloc|tcmalloc] [--out FILE]
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "allocator_select.hpp"
#include "any_model.hpp"
#include "build_info.hpp"
#include "counting_pass.hpp"
#include "host_info.hpp"
#include "options.hpp"
#include "records.hpp"
#include "runner.hpp"

namespace {

using namespace cpp_engine;

class QuietObserver final : public RunObserver {
public:
    void on_period(const PeriodStats&) override {}
};

int usage_error(const std::string& message) {
    std::cerr << "harness_bench: " << message
              << "\nusage: harness_bench [--duration-s S] [--warmup-s S] [--case A|B|C] [--scale F]"
                 " [--allocator glibc|jemalloc|mimalloc|tcmalloc] [--out FILE]\n";
    return 2;
}

const std::map<std::string, double> article_ns{{"flat", 16}, {"cpp", 145}};

// One design and source: the timed run, then the counting pass.
Json measure(const Options& options, const AllocatorInfo& allocator, const HostInfo& host) {
    const CaseParams params = run_params(options);
    QuietObserver observer;
    const Clock::time_point origin = Clock::now();
    RunTimeline timeline(options.duration_s, options.warmup_s, observer, origin);
    {
        const auto model = make_model(options.design, options.strategy, options.source, params, 1);
        model->fill(origin, Clock::time_point::max());
        model->run_batch(timeline);
    }
    const RunTotals totals = timeline.totals();
    const double ns = totals.measured_s * 1e9 / static_cast<double>(totals.measured_packets);
    const AllocationCount allocations = count_allocations(options);
    Json record;
    record["type"] = "harness";
    record["engine"] = "cpp";
    record["design"] = options.design;
    record["source"] = options.source;
    record["strategy"] = options.strategy;
    record["mode"] = "batch";
    record["case"] = params.name;
    record["scale"] = params.scale;
    record["internal_queue_size"] = params.internal_queue_size;
    record["stored_count"] = params.stored_count;
    record["duration_s"] = options.duration_s;
    record["warmup_s"] = options.warmup_s;
    record["measured_packets"] = totals.measured_packets;
    record["measured_s"] = totals.measured_s;
    record["ns_per_packet"] = ns;
    record["allocs_per_packet"] = allocations.per_packet;
    record["article_ns_per_packet"] = article_ns.at(options.design);
    record["allocator"] = allocator.name;
    record["allocator_version"] = allocator.version;
    record["compiler"] = build_info::compiler;
    record["cxx_flags"] = build_info::cxx_flags;
    record["host"] = host.host;
    record["cpu_model"] = host.cpu_model;
    record["commit"] = source_commit();
    std::fprintf(stderr,
                 "harness %-4s %-7s (dummy, batch, case %s, %s): %6.1f ns/packet (article %3.0f ns), %.2f "
                 "allocations/packet\n",
                 options.design.c_str(), options.source.c_str(), params.name.c_str(), allocator.name.c_str(), ns,
                 article_ns.at(options.design), allocations.per_packet);
    return record;
}

}  // namespace

int main(int argc, char** argv) {
    std::map<std::string, std::string> given{{"--duration-s", "5"}, {"--warmup-s", "1"}, {"--case", "A"},
                                             {"--scale", "1"},      {"--allocator", "glibc"}, {"--out", "-"}};
    for (int i = 1; i < argc; i += 2) {
        if (!given.contains(argv[i]) || i + 1 >= argc) {
            return usage_error(std::string("bad argument '") + argv[i] + "'");
        }
        given[argv[i]] = argv[i + 1];
    }
    // The engine's own validation of the shared options.
    const ParseResult parsed = parse_options({"--design", "flat", "--strategy", "dummy", "--case", given["--case"],
                                              "--scale", given["--scale"], "--duration-s", given["--duration-s"],
                                              "--warmup-s", given["--warmup-s"], "--allocator", given["--allocator"]});
    if (!parsed.options) {
        return usage_error(parsed.error);
    }
    AllocatorInfo allocator;
    try {
        allocator = activate_allocator(given["--allocator"], argv);
    } catch (const AllocatorError& error) {
        return usage_error(error.what());
    }
    std::ofstream file;
    if (given["--out"] != "-") {
        file.open(given["--out"]);
        if (!file) {
            return usage_error("cannot write " + given["--out"]);
        }
    }
    RecordWriter writer(given["--out"] == "-" ? std::cout : file);
    const HostInfo host = host_info();
    try {
        for (const std::string source : {"counter", "random"}) {
            for (const std::string design : {"flat", "cpp"}) {
                Options options = *parsed.options;
                options.design = design;
                options.source = source;
                writer.write(measure(options, allocator, host));
            }
        }
    } catch (const std::exception& error) {
        std::cerr << "harness_bench: " << error.what() << '\n';
        return 1;
    }
    return 0;
}
