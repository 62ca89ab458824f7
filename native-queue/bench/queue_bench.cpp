// queue_bench: the dual-array queue measured C++ to C++, a TickProducer thread feeding a
// consumer on the main thread, each pinned to its CPU. It measures
//   write_ns          the producer's cost per tick running flat out (interval 0),
//   good_interval_ns  the shortest loss-free interval (queue_probe.hpp: no loss, and kept
//                     up within one array), by bisection on integer ns, under two rules
//                     for the queue's capacity:
//                       delay_100ms each array holds 100 ms of ticks at the probe's interval
//                                   (MAX_CAPTURING_DELAY_MS, as the engines size it), --probe-s;
//                       fixed  each array holds --fixed-size slots (100,000: the original
//                              benchmark's C++ to C++ queue), probes of --fixed-probe-s (10 s),
// and writes JSON Lines (docs/records.md, "queue-bench records"): a header, one probe
// record per probe, one result record per capacity rule.
#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "native_queue/cpu_affinity.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/sequence_tracker.hpp"
#include "native_queue/tick_producer.hpp"
#include "queue_probe.hpp"

namespace {

using Json = nlohmann::ordered_json;  // keeps "type" first, as a reader of the lines expects
using namespace native_queue;
using queue_bench::CapacityRule;
using queue_bench::Probe;

constexpr std::uint64_t max_capturing_delay_ms = 100;
constexpr std::uint32_t flat_out_queue_size = 1U << 16;  // 512 KiB for both arrays: stays in L2
constexpr std::uint64_t cpp_cpp_target_ns = 44;          // the original's C++ to C++ figure
constexpr std::uint64_t max_interval_ns = 1'000'000'000;
constexpr double max_probe_s = 3600;
constexpr double default_fixed_probe_s = 10;  // long enough for rare stalls, as the original's runs
constexpr std::uint32_t max_queue_size = INT32_MAX / 8;  // capacity_for's limit

constexpr std::string_view usage = R"(usage: queue_bench [options]
  --out FILE           JSON Lines output (default: stdout)
  --probe-s SECONDS    length of each probe with 100 ms of ticks per array, in (0, 3600] (default 2)
  --fixed-size N       slots per array under the fixed rule, 1..268435455 (default 100000, the original's)
  --fixed-probe-s S    length of each probe under the fixed rule, in (0, 3600] (default 10: compared with the original)
  --min-ns N           shortest interval the bisection tries, 1..1000000000 (default 2)
  --max-ns N           longest interval the bisection tries, min-ns..1000000000 (default 1000)
  --producer-cpu N     CPU of the clock thread, -1 for no pinning (default 0)
  --consumer-cpu N     CPU of the consumer (main) thread, -1 for no pinning (default 1)
  --help               this text
)";

struct Options {
    std::string out;
    double probe_s = 2;
    std::uint32_t fixed_size = 100'000;
    double fixed_probe_s = default_fixed_probe_s;
    std::uint64_t min_ns = 2;
    std::uint64_t max_ns = 1000;
    int producer_cpu = 0;
    int consumer_cpu = 1;
};

[[noreturn]] void usage_error(const std::string& message) {
    std::cerr << "queue_bench: " << message << "\n" << usage;
    std::exit(2);
}

template <class Int>
std::optional<Int> parse_int(std::string_view text) {
    Int value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

std::uint64_t parse_ns(std::string_view option, std::string_view text, std::uint64_t lowest) {
    const auto value = parse_int<std::uint64_t>(text);
    if (!value || *value < lowest || *value > max_interval_ns) {
        usage_error(std::string(option) + ": '" + std::string(text) + "' is not valid; valid: an integer in " +
                    std::to_string(lowest) + ".." + std::to_string(max_interval_ns));
    }
    return *value;
}

// A probe's length in seconds, in (0, max_probe_s].
double parse_probe_s(std::string_view option, std::string_view value) {
    const std::string text(value);
    char* end = nullptr;
    const double seconds = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(seconds > 0 && seconds <= max_probe_s)) {
        usage_error(std::string(option) + ": '" + text + "' is not valid; valid: a number of seconds in (0, 3600]");
    }
    return seconds;
}

int parse_cpu(std::string_view option, std::string_view text) {
    const auto value = parse_int<int>(text);
    if (!value || (*value != -1 && !cpu_exists(*value))) {
        usage_error(std::string(option) + ": '" + std::string(text) + "' is not valid; valid: -1 (no pinning) or " +
                    cpu_range_text());
    }
    return *value;
}

Options parse_options(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (option == "--help") {
            std::cout << usage;
            std::exit(0);
        }
        if (i + 1 >= argc) {
            usage_error(option.substr(0, 2) == "--" ? std::string(option) + " needs a value"
                                                    : "unknown argument '" + std::string(option) + "'");
        }
        const std::string_view value = argv[++i];
        if (option == "--out") {
            options.out = value;
        } else if (option == "--probe-s") {
            options.probe_s = parse_probe_s(option, value);
        } else if (option == "--fixed-size") {
            const auto size = parse_int<std::uint32_t>(value);
            if (!size || *size < 1 || *size > max_queue_size) {
                usage_error("--fixed-size: '" + std::string(value) + "' is not valid; valid: an integer in 1.." +
                            std::to_string(max_queue_size));
            }
            options.fixed_size = *size;
        } else if (option == "--fixed-probe-s") {
            options.fixed_probe_s = parse_probe_s(option, value);
        } else if (option == "--min-ns") {
            options.min_ns = parse_ns(option, value, 1);
        } else if (option == "--max-ns") {
            options.max_ns = parse_ns(option, value, 1);
        } else if (option == "--producer-cpu") {
            options.producer_cpu = parse_cpu(option, value);
        } else if (option == "--consumer-cpu") {
            options.consumer_cpu = parse_cpu(option, value);
        } else {
            usage_error("unknown option '" + std::string(option) +
                        "'; valid: --out, --probe-s, --fixed-size, --fixed-probe-s, --min-ns, --max-ns, "
                        "--producer-cpu, --consumer-cpu, --help");
        }
    }
    if (options.max_ns < options.min_ns) {
        usage_error("--max-ns (" + std::to_string(options.max_ns) + ") must be >= --min-ns (" +
                    std::to_string(options.min_ns) + ")");
    }
    if (options.producer_cpu != -1 && options.producer_cpu == options.consumer_cpu) {
        usage_error("--producer-cpu and --consumer-cpu must differ (both threads spin); valid: two CPUs in " +
                    cpu_range_text() + ", or -1");
    }
    return options;
}

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) == 0) {
            if (const auto colon = line.find(':'); colon != std::string::npos) {
                return line.substr(line.find_first_not_of(' ', colon + 1));
            }
        }
    }
    return "unknown";
}

std::string utc_now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string random_run_id() {
    std::random_device random;
    char text[17];
    std::snprintf(text, sizeof(text), "%08x%08x", random(), random());
    return text;
}

Json header_record(const Options& options) {
    char host[256] = "unknown";
    gethostname(host, sizeof(host) - 1);
    utsname system{};
    uname(&system);
    const int cpus = usable_cpu_count();
    const char* commit = std::getenv("ALLOC_OR_POOL_COMMIT");
    auto cpu_or_null = [](int cpu) { return cpu == -1 ? Json(nullptr) : Json(cpu); };
    return Json{
            {"type", "header"},
            {"schema", 1},
            {"engine", "queue-bench"},
            {"run_id", random_run_id()},
            {"started_utc", utc_now_iso8601()},
            {"host", host},
            {"os", std::string(system.sysname) + " " + system.release},
            {"cpu_model", cpu_model()},
            {"cpus", cpus},
            {"memory_bytes", static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE)},
            {"small_machine", cpus < 4},
            {"commit", commit != nullptr && *commit != '\0' ? commit : "unknown"},
            {"case", nullptr},
            {"strategy", nullptr},
            {"mode", nullptr},
            {"interval_ns", nullptr},
            {"duration_s", options.probe_s},
            {"warmup_s", 0},
            {"scale", nullptr},
            {"seed", nullptr},
            {"params",
             {{"probe_s", options.probe_s},
              {"fixed_size", options.fixed_size},
              {"fixed_probe_s", options.fixed_probe_s},
              {"min_ns", options.min_ns},
              {"max_ns", options.max_ns},
              {"max_capturing_delay_ms", max_capturing_delay_ms},
              {"flat_out_queue_size", flat_out_queue_size}}},
            {"producer_cpu", cpu_or_null(options.producer_cpu)},
            {"consumer_cpu", cpu_or_null(options.consumer_cpu)},
    };
}

// One run of the producer for `probe_s` seconds with the consumer reading flat out, then
// the stop and the drain.
Probe run_probe(CapacityRule rule, std::uint64_t interval_ns, std::uint32_t queue_size, double probe_s,
                const Options& options) {
    OwnedQueue queue(queue_size);
    QueueConsumer consumer(queue.view());
    Probe probe;
    probe.rule = rule;
    probe.interval_ns = interval_ns;
    probe.queue_size = queue_size;
    auto on_tick = [&](std::uint32_t seq) { probe.tracker.accept(seq); };
    TickProducer producer(queue.view(), interval_ns, options.producer_cpu);
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(probe_s));
    while (std::chrono::steady_clock::now() < end) {
        consumer.poll(on_tick);
    }
    producer.stop();
    probe.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    probe.taken_in_time = probe.tracker.received();
    do {
        consumer.poll(on_tick);
    } while (!consumer.finished());
    probe.stats = producer.join();
    return probe;
}

class Records {
public:
    explicit Records(std::ostream& out) : out_(out) {}

    // Flushed line by line: a run that dies keeps the records it wrote.
    void write(const Json& record) { out_ << record.dump() << '\n' << std::flush; }

    // Writes the probe and stops the run when the two sides' counts disagree: a broken
    // queue, not a measurement.
    void write_probe(const Probe& probe) {
        const std::optional<std::uint64_t> due = probe.ticks_due();
        write(Json{{"type", "probe"},
                   {"pair", "cpp-cpp"},
                   {"capacity_rule", queue_bench::to_string(probe.rule)},
                   {"queue_size", probe.queue_size},
                   {"interval_ns", probe.interval_ns},
                   {"duration_s", probe.duration_s},
                   {"emitted", probe.stats.emitted},
                   {"received", probe.tracker.received()},
                   {"taken_in_time", probe.taken_in_time},
                   {"ticks_due", due ? Json(*due) : Json(nullptr)},
                   {"dropped", probe.stats.dropped},
                   {"lost", probe.lost()},
                   {"kept_up", probe.kept_up()},
                   {"ok", probe.ok()}});
        if (!probe.balanced()) {
            std::cerr << "queue_bench: accounting broken at interval " << probe.interval_ns
                      << " ns: emitted=" << probe.stats.emitted << " received=" << probe.tracker.received()
                      << " dropped=" << probe.stats.dropped << " undelivered=" << probe.stats.undelivered
                      << " gaps=" << probe.tracker.gaps() << " out_of_order=" << probe.tracker.out_of_order() << "\n";
            std::exit(1);
        }
        ++probes_;
    }

    int probes() const { return probes_; }

private:
    std::ostream& out_;
    int probes_ = 0;
};

int run(const Options& options, std::ostream& out) {
    Records records(out);
    records.write(header_record(options));
    if (options.consumer_cpu != -1) {
        if (const int error = pin_current_thread(options.consumer_cpu); error != 0) {
            std::cerr << "queue_bench: cannot pin the consumer to CPU " << options.consumer_cpu << ": "
                      << std::generic_category().message(error) << "\n";
            return 1;
        }
    }

    const Probe flat_out = run_probe(CapacityRule::flat_out, 0, flat_out_queue_size, options.probe_s, options);
    records.write_probe(flat_out);
    const double write_ns = flat_out.stats.emitted > 0 ? static_cast<double>(flat_out.stats.run_ns) /
                                                                  static_cast<double>(flat_out.stats.emitted)
                                                        : 0.0;

    for (const CapacityRule rule : {CapacityRule::per_100ms, CapacityRule::fixed}) {
        const double probe_s = rule == CapacityRule::fixed ? options.fixed_probe_s : options.probe_s;
        auto loss_free = [&](std::uint64_t interval_ns) {
            const std::uint32_t size = rule == CapacityRule::fixed
                                               ? options.fixed_size
                                               : capacity_for(max_capturing_delay_ms, interval_ns);
            const Probe probe = run_probe(rule, interval_ns, size, probe_s, options);
            records.write_probe(probe);
            return probe.ok();
        };
        // Invariant: known_good is loss-free; everything at or below known_bad is taken as lossy.
        std::optional<std::uint64_t> good_interval_ns;
        if (loss_free(options.max_ns)) {
            std::uint64_t known_bad = options.min_ns - 1;
            std::uint64_t known_good = options.max_ns;
            while (known_good - known_bad > 1) {
                const std::uint64_t middle = known_bad + (known_good - known_bad) / 2;
                (loss_free(middle) ? known_good : known_bad) = middle;
            }
            good_interval_ns = known_good;
        }

        const bool met_target = good_interval_ns && *good_interval_ns <= cpp_cpp_target_ns;
        records.write(Json{{"type", "result"},
                           {"pair", "cpp-cpp"},
                           {"capacity_rule", queue_bench::to_string(rule)},
                           {"queue_size", rule == CapacityRule::fixed ? Json(options.fixed_size) : Json(nullptr)},
                           {"probe_s", probe_s},
                           {"write_ns", write_ns},
                           {"good_interval_ns", good_interval_ns ? Json(*good_interval_ns) : Json(nullptr)},
                           {"target_ns", cpp_cpp_target_ns},
                           {"met_target", met_target}});

        std::cerr << "queue_bench cpp-cpp (" << queue_bench::to_string(rule) << " capacity"
                  << (rule == CapacityRule::fixed ? ", " + std::to_string(options.fixed_size) + " slots" : "")
                  << ", probes of " << probe_s << " s): write " << write_ns
                  << " ns/tick, shortest loss-free interval "
                  << (good_interval_ns ? std::to_string(*good_interval_ns) + " ns"
                                       : "none up to " + std::to_string(options.max_ns) + " ns")
                  << " (target " << cpp_cpp_target_ns << " ns: " << (met_target ? "met" : "not met") << ")\n";
    }
    std::cerr << "queue_bench: " << records.probes() << " probes\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse_options(argc, argv);
    try {
        if (options.out.empty()) {
            return run(options, std::cout);
        }
        std::ofstream file(options.out);
        if (!file) {
            usage_error("--out: cannot write '" + options.out + "'");
        }
        return run(options, file);
    } catch (const std::exception& e) {
        std::cerr << "queue_bench: " << e.what() << "\n";
        return 1;
    }
}
