// queue_bench: the dual-array queue measured C++ to C++, a TickProducer thread feeding a
// consumer on the main thread, each pinned to its CPU. It measures
//   write_ns          the producer's cost per tick running flat out (interval 0),
//   good_interval_ns  the shortest interval with no loss over a probe, by bisection on
//                     integer ns, the queue holding 100 ms of ticks (MAX_CAPTURING_DELAY_MS),
// and writes JSON Lines (docs/records.md, "queue-bench records"): a header, one probe
// record per probe, one result record.
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

namespace {

using Json = nlohmann::ordered_json;  // keeps "type" first, as a reader of the lines expects
using namespace native_queue;

constexpr std::uint64_t max_capturing_delay_ms = 100;
constexpr std::uint32_t flat_out_queue_size = 1U << 16;  // 512 KiB for both arrays: stays in L2
constexpr std::uint64_t cpp_cpp_target_ns = 44;          // the original's C++ to C++ figure
constexpr std::uint64_t max_interval_ns = 1'000'000'000;
constexpr double max_probe_s = 3600;

constexpr std::string_view usage = R"(usage: queue_bench [options]
  --out FILE           JSON Lines output (default: stdout)
  --probe-s SECONDS    length of each probe, in (0, 3600] (default 2)
  --min-ns N           shortest interval the bisection tries, 1..1000000000 (default 2)
  --max-ns N           longest interval the bisection tries, min-ns..1000000000 (default 1000)
  --producer-cpu N     CPU of the clock thread, -1 for no pinning (default 0)
  --consumer-cpu N     CPU of the consumer (main) thread, -1 for no pinning (default 1)
  --help               this text
)";

struct Options {
    std::string out;
    double probe_s = 2;
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
            char* end = nullptr;
            const std::string text(value);
            const double seconds = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !(seconds > 0 && seconds <= max_probe_s)) {
                usage_error("--probe-s: '" + text + "' is not valid; valid: a number of seconds in (0, 3600]");
            }
            options.probe_s = seconds;
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
                        "'; valid: --out, --probe-s, --min-ns, --max-ns, --producer-cpu, --consumer-cpu, --help");
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
              {"min_ns", options.min_ns},
              {"max_ns", options.max_ns},
              {"max_capturing_delay_ms", max_capturing_delay_ms},
              {"flat_out_queue_size", flat_out_queue_size}}},
            {"producer_cpu", cpu_or_null(options.producer_cpu)},
            {"consumer_cpu", cpu_or_null(options.consumer_cpu)},
    };
}

struct Probe {
    std::uint64_t interval_ns;
    double duration_s;
    ProducerStats stats;
    SequenceTracker tracker;

    std::uint64_t lost() const {
        return tracker.gaps() + static_cast<std::uint64_t>(tracker.trailing_dropped(stats.emitted, stats.undelivered));
    }
    bool balanced() const {
        return !tracker.broken() && tracker.trailing_dropped(stats.emitted, stats.undelivered) >= 0 &&
               lost() == stats.dropped && tracker.received() + stats.dropped + stats.undelivered == stats.emitted;
    }
    // A producer slower than the interval falls ever further behind (it emits what is due
    // in growing bursts) and did not test this interval. 5% slack absorbs a preemption of
    // the producer at the start or the end of the probe.
    bool kept_rate() const {
        return interval_ns == 0 ||
               static_cast<double>(stats.emitted) >= 0.95 * duration_s * 1e9 / static_cast<double>(interval_ns);
    }
    bool ok() const { return balanced() && kept_rate() && stats.dropped == 0 && stats.undelivered == 0; }
};

// One run of the producer for probe_s seconds with the consumer reading flat out.
Probe run_probe(std::uint64_t interval_ns, std::uint32_t queue_size, const Options& options) {
    OwnedQueue queue(queue_size);
    QueueConsumer consumer(queue.view());
    Probe probe{interval_ns, 0, {}, {}};
    auto on_tick = [&](std::uint32_t seq) { probe.tracker.accept(seq); };
    TickProducer producer(queue.view(), interval_ns, options.producer_cpu);
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(options.probe_s));
    while (std::chrono::steady_clock::now() < end) {
        consumer.poll(on_tick);
    }
    producer.stop();
    probe.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
        write(Json{{"type", "probe"},
                   {"pair", "cpp-cpp"},
                   {"interval_ns", probe.interval_ns},
                   {"duration_s", probe.duration_s},
                   {"emitted", probe.stats.emitted},
                   {"received", probe.tracker.received()},
                   {"dropped", probe.stats.dropped},
                   {"lost", probe.lost()},
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

    const Probe flat_out = run_probe(0, flat_out_queue_size, options);
    records.write_probe(flat_out);
    const double write_ns = flat_out.stats.emitted > 0 ? static_cast<double>(flat_out.stats.run_ns) /
                                                                  static_cast<double>(flat_out.stats.emitted)
                                                        : 0.0;

    auto loss_free = [&](std::uint64_t interval_ns) {
        const Probe probe = run_probe(interval_ns, capacity_for(max_capturing_delay_ms, interval_ns), options);
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
                       {"write_ns", write_ns},
                       {"good_interval_ns", good_interval_ns ? Json(*good_interval_ns) : Json(nullptr)},
                       {"target_ns", cpp_cpp_target_ns},
                       {"met_target", met_target}});

    std::cerr << "queue_bench cpp-cpp: write " << write_ns << " ns/tick, shortest loss-free interval "
              << (good_interval_ns ? std::to_string(*good_interval_ns) + " ns"
                                   : "none up to " + std::to_string(options.max_ns) + " ns")
              << " (target " << cpp_cpp_target_ns << " ns: " << (met_target ? "met" : "not met") << "), "
              << records.probes() << " probes of " << options.probe_s << " s\n";
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
