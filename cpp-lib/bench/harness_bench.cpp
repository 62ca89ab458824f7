// harness_bench: the cost of the test harness itself, i.e. the dummy strategy in batch
// mode (one packet reused, nothing pooled or freed), for both designs and both packet
// sources, to compare with the article's 16 ns (flat) and 145 ns (cpp, whose dummy also
// leaked its parse objects). Each run has the engine's fill phase first. Writes one JSON
// record per design and source ("type": "harness") to --out and a human line each to
// standard error.
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
#include "host_info.hpp"
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
    double duration_s = 0;
    double warmup_s = 0;
    CaseParams params;
    try {
        duration_s = std::stod(given["--duration-s"]);
        warmup_s = std::stod(given["--warmup-s"]);
        params = CaseParams::of(given["--case"], std::stod(given["--scale"]));
    } catch (const std::exception& error) {
        return usage_error(error.what());
    }
    if (!(duration_s > 0 && warmup_s >= 0 && warmup_s < duration_s)) {
        return usage_error("need 0 <= --warmup-s < --duration-s");
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

    const std::map<std::string, double> article_ns{{"flat", 16}, {"cpp", 145}};
    for (const std::string source : {"counter", "random"}) {
    for (const std::string design : {"flat", "cpp"}) {
        QuietObserver observer;
        const Clock::time_point origin = Clock::now();
        RunTimeline timeline(duration_s, warmup_s, observer, origin);
        {
            const auto model = make_model(design, "dummy", source, params, 1);
            model->fill(origin, Clock::time_point::max());
            model->run_batch(timeline);
        }
        const RunTotals totals = timeline.totals();
        const double packets = static_cast<double>(totals.measured_packets);
        const double ns = totals.measured_s * 1e9 / packets;
        const double allocs = static_cast<double>(totals.measured_allocations) / packets;
        Json record;
        record["type"] = "harness";
        record["engine"] = "cpp";
        record["design"] = design;
        record["source"] = source;
        record["strategy"] = "dummy";
        record["mode"] = "batch";
        record["case"] = params.name;
        record["scale"] = params.scale;
        record["internal_queue_size"] = params.internal_queue_size;
        record["stored_count"] = params.stored_count;
        record["duration_s"] = duration_s;
        record["warmup_s"] = warmup_s;
        record["measured_packets"] = totals.measured_packets;
        record["measured_s"] = totals.measured_s;
        record["ns_per_packet"] = ns;
        record["allocs_per_packet"] = allocs;
        record["article_ns_per_packet"] = article_ns.at(design);
        record["allocator"] = allocator.name;
        record["allocator_version"] = allocator.version;
        record["compiler"] = build_info::compiler;
        record["cxx_flags"] = build_info::cxx_flags;
        record["host"] = host.host;
        record["cpu_model"] = host.cpu_model;
        record["commit"] = source_commit();
        writer.write(record);
        std::fprintf(stderr,
                     "harness %-4s %-7s (dummy, batch, case %s, %s): %6.1f ns/packet (article %3.0f ns), %.2f "
                     "allocations/packet\n",
                     design.c_str(), source.c_str(), params.name.c_str(), allocator.name.c_str(), ns,
                     article_ns.at(design), allocs);
    }
    }
    return 0;
}
