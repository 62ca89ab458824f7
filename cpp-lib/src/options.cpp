// Command-line parsing and validation for cpp_engine (see options.hpp).
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

#include "allocator_select.hpp"
#include "native_queue/cpu_affinity.hpp"

namespace cpp_engine {

namespace {

class BadOption : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

std::string quoted(const std::string& value) { return "'" + value + "'"; }

std::string seconds(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

std::string choice(const std::string& option, const std::string& value, const std::vector<std::string>& valid) {
    std::string list;
    for (const std::string& name : valid) {
        if (name == value) {
            return value;
        }
        list += (list.empty() ? "" : ", ") + name;
    }
    throw BadOption(option + ": " + quoted(value) + " is not valid; valid: " + list);
}

template <class Integer>
Integer integer(const std::string& option, const std::string& value, Integer low, Integer high,
                const std::string& valid) {
    Integer parsed{};
    const char* end = value.data() + value.size();
    const auto [stop, error] = std::from_chars(value.data(), end, parsed);
    if (value.empty() || error != std::errc() || stop != end || parsed < low || parsed > high) {
        throw BadOption(option + ": " + quoted(value) + " is not valid; valid: " + valid);
    }
    return parsed;
}

double number(const std::string& option, const std::string& value, const std::function<bool(double)>& in_range,
              const std::string& valid) {
    double parsed = 0;
    const char* end = value.data() + value.size();
    const auto [stop, error] = std::from_chars(value.data(), end, parsed);
    if (value.empty() || error != std::errc() || stop != end || !std::isfinite(parsed) || !in_range(parsed)) {
        throw BadOption(option + ": " + quoted(value) + " is not valid; valid: " + valid);
    }
    return parsed;
}

int cpu(const std::string& option, const std::string& value) {
    return integer<int>(option, value, -1, native_queue::configured_cpu_count() - 1,
                        "-1 (not pinned) or a CPU number " + native_queue::cpu_range_text());
}

std::uint32_t count(const std::string& option, const std::string& value) {
    return integer<std::uint32_t>(option, value, 1, max_override_count, "1.." + std::to_string(max_override_count));
}

const std::vector<std::string> option_names{
        "--design",     "--allocator",           "--case",         "--strategy",    "--source",
        "--mode",       "--interval-ns",         "--capture-delay-ms", "--duration-s", "--warmup-s",
        "--scale",      "--internal-queue-size", "--stored-count", "--pool-size",  "--producer-cpu", "--consumer-cpu",
        "--count-allocations", "--seed", "--threads", "--scaling", "--out", "--help"};

std::vector<std::string> allocator_list() {
    std::vector<std::string> names;
    for (const AllocatorSpec& spec : allocator_specs) {
        names.emplace_back(spec.name);
    }
    return names;
}

// The options as given, by name: each known, none twice, each with a value (--name value or --name=value);
// help is set by --help or -h.
std::map<std::string, std::string> given_options(const std::vector<std::string>& args, bool& help) {
    std::map<std::string, std::string> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const std::size_t equals = arg.find('=');
        const std::string name = arg.substr(0, equals);
        if (name == "--help" || name == "-h") {
            help = true;
            continue;
        }
        if (!name.starts_with("--") || std::find(option_names.begin(), option_names.end(), name) == option_names.end()) {
            std::string list;
            for (const std::string& option : option_names) {
                list += (list.empty() ? "" : ", ") + option;
            }
            throw BadOption("unknown option " + quoted(arg) + "; valid options: " + list);
        }
        std::string value;
        if (equals != std::string::npos) {
            value = arg.substr(equals + 1);
        } else if (i + 1 < args.size()) {
            value = args[++i];
        } else {
            throw BadOption(name + " needs a value");
        }
        if (!given.emplace(name, value).second) {
            throw BadOption(name + " is given twice");
        }
    }
    return given;
}

// One option's value, checked, into options.
void apply(Options& options, const std::string& name, const std::string& value) {
    if (name == "--design") {
        options.design = choice(name, value, {"cpp", "flat"});
    } else if (name == "--allocator") {
        options.allocator = choice(name, value, allocator_list());
    } else if (name == "--case") {
        std::string upper = value;
        std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
        options.case_name = choice(name, upper, {"A", "B", "C"});
    } else if (name == "--strategy") {
        options.strategy = choice(name, value, {"dummy", "alloc", "mix", "pool", "pmr", "shared-pool", "pmr-synchronized"});
    } else if (name == "--source") {
        options.source = choice(name, value, {"counter", "random"});
    } else if (name == "--internal-queue-size") {
        options.sizes.internal_queue_size = count(name, value);
    } else if (name == "--stored-count") {
        options.sizes.stored_count = count(name, value);
    } else if (name == "--pool-size") {
        options.sizes.pool_size = count(name, value);
    } else if (name == "--mode") {
        options.mode = choice(name, value, {"batch", "realtime"}) == "batch" ? Mode::batch : Mode::realtime;
    } else if (name == "--interval-ns") {
        options.interval_ns = integer<std::uint64_t>(name, value, min_interval_ns, max_interval_ns,
                                                     std::to_string(min_interval_ns) + ".." +
                                                             std::to_string(max_interval_ns));
    } else if (name == "--capture-delay-ms") {
        options.capture_delay_ms = number(name, value, [](double ms) { return ms > 0 && ms <= max_capture_delay_ms; },
                                          "a number of milliseconds in (0, 10000] (default 100, the article's "
                                          "MAX_CAPTURING_DELAY_MS)");
    } else if (name == "--duration-s") {
        options.duration_s = number(name, value, [](double s) { return s > 0 && s <= max_duration_s; },
                                    "a number of seconds in (0, 86400]");
    } else if (name == "--warmup-s") {
        options.warmup_s = number(name, value, [](double s) { return s >= 0 && s <= max_duration_s; },
                                  "a number of seconds in [0, duration-s)");
    } else if (name == "--scale") {
        options.scale = number(name, value, [](double s) { return s > 0 && s <= 1; }, "a number in (0, 1]");
    } else if (name == "--producer-cpu") {
        options.producer_cpu = cpu(name, value);
    } else if (name == "--consumer-cpu") {
        options.consumer_cpu = cpu(name, value);
    } else if (name == "--count-allocations") {
        options.count_allocations = choice(name, value, {"yes", "no"}) == "yes";
    } else if (name == "--threads") {
        options.threads = integer<std::uint32_t>(name, value, 1, max_threads, "1.." + std::to_string(max_threads));
    } else if (name == "--scaling") {
        options.strong_scaling = choice(name, value, {"weak", "strong"}) == "strong";
    } else if (name == "--seed") {
        options.seed = integer<std::int64_t>(name, value, INT64_MIN, INT64_MAX, "any 64-bit integer");
    } else if (name == "--out") {
        if (value.empty()) {
            throw BadOption("--out: '' is not valid; valid: a file path or - for standard output");
        }
        options.out = value;
    }
}

// A threaded run (--threads N): a strategy each thread can run on its share, in real time a CPU of its own
// for each consumer (unless none is pinned), a packet in every share's FIFO and store, and a pool of each
// thread's own (pool) or of them all (shared-pool) that holds its packets; shared-pool is threaded only.
void check_threads(const Options& options) {
    if (options.threads == 0) {
        if (options.strong_scaling) {
            throw BadOption("--scaling: only with --threads N");
        }
        if (options.strategy == "shared-pool" || options.strategy == "pmr-synchronized") {
            throw BadOption("--strategy: " + options.strategy + " is the pool of a threaded run; valid: --threads 1.." +
                            std::to_string(max_threads) + " with it (1: one thread on the shared pool)");
        }
        return;
    }
    if (options.mode == Mode::realtime && options.consumer_cpu != -1) {
        // one consumer per CPU from --consumer-cpu on, none of them the clock's
        const int last = options.consumer_cpu + static_cast<int>(options.threads) - 1;
        if (!native_queue::cpu_exists(last) ||
            (options.producer_cpu >= options.consumer_cpu && options.producer_cpu <= last)) {
            throw BadOption("--consumer-cpu: " + std::to_string(options.threads) + " consumer threads need CPUs " +
                            std::to_string(options.consumer_cpu) + ".." + std::to_string(last) +
                            ", each existing and none the clock's (--producer-cpu " +
                            std::to_string(options.producer_cpu) + "); valid: a first CPU that leaves " +
                            std::to_string(options.threads) + " of " + native_queue::cpu_range_text() +
                            " to the consumers, or -1 (not pinned)");
        }
    }
    if (options.strategy != "alloc" && options.strategy != "pool" && options.strategy != "shared-pool" &&
        options.strategy != "pmr-synchronized") {
        throw BadOption("--strategy: " + quoted(options.strategy) + " does not run threaded; valid with --threads: " +
                        "alloc, pool, shared-pool, pmr-synchronized");
    }
    const CaseParams params = run_params(options);
    if (params.internal_queue_size < options.threads || params.stored_count < options.threads) {
        throw BadOption("--threads: " + std::to_string(options.threads) + " threads need at least as many packets in "
                        "the internal queue and the store, but case " + options.case_name + " has " +
                        std::to_string(params.internal_queue_size) + " and " + std::to_string(params.stored_count) +
                        "; valid: fewer threads or a larger --scale");
    }
    if (options.strategy != "pool") {
        return;
    }
    for (std::uint32_t i = 0; i < options.threads; ++i) {
        const CaseParams share = options.strong_scaling ? params.share(i, options.threads) : params;
        if (share.pool_size < std::uint64_t{share.internal_queue_size} + share.stored_count) {
            throw BadOption("--pool-size: pool with " + std::to_string(options.threads) + " threads needs each "
                            "thread's pool to hold its share, but thread " + std::to_string(i) + " gets " +
                            std::to_string(share.pool_size) + " < " + std::to_string(share.internal_queue_size) +
                            " + " + std::to_string(share.stored_count) + "; valid: a larger --pool-size");
        }
    }
}

// What no single option can check: the pool against the live packets, the warm-up against the duration,
// and the options of the other mode.
void check_together(const Options& options, const std::map<std::string, std::string>& given) {
    if (const CaseParams params = run_params(options);
        (options.strategy == "pool" || options.strategy == "shared-pool") && params.pool_size < std::uint64_t{params.internal_queue_size} + params.stored_count) {
        const std::uint64_t needed = std::uint64_t{params.internal_queue_size} + params.stored_count;
        throw BadOption("--pool-size: the " + options.strategy + " strategy needs pool_size >= internal_queue_size + stored_count, but " +
                        std::to_string(params.pool_size) + " < " + std::to_string(params.internal_queue_size) + " + " +
                        std::to_string(params.stored_count) + "; valid: --pool-size " + std::to_string(needed) + ".." +
                        std::to_string(max_override_count) + ", or a smaller --internal-queue-size / --stored-count");
    }
    check_threads(options);
    if (options.warmup_s >= options.duration_s) {
        throw BadOption("--warmup-s: " + seconds(options.warmup_s) + " is not valid; valid: a number of seconds in [0, " +
                        seconds(options.duration_s) + ") (below --duration-s)");
    }
    if (options.mode == Mode::realtime) {
        if (!options.interval_ns) {
            throw BadOption("--interval-ns is required in realtime mode; valid: " + std::to_string(min_interval_ns) +
                            ".." + std::to_string(max_interval_ns));
        }
        // The defaults (0 and 1) are checked here: a given value was checked when parsed.
        for (const auto& [name, cpu_number] : {std::pair{"--producer-cpu", options.producer_cpu},
                                               std::pair{"--consumer-cpu", options.consumer_cpu}}) {
            if (cpu_number != -1 && !native_queue::cpu_exists(cpu_number)) {
                throw BadOption(std::string(name) + ": the default " + std::to_string(cpu_number) +
                                " is not valid on this machine; valid: -1 (not pinned) or " +
                                native_queue::cpu_range_text());
            }
        }
        if (options.producer_cpu != -1 && options.producer_cpu == options.consumer_cpu) {
            throw BadOption("--producer-cpu and --consumer-cpu are both " + std::to_string(options.producer_cpu) +
                            "; they must differ (or be -1, not pinned)");
        }
    } else {
        for (const char* realtime_only : {"--interval-ns", "--capture-delay-ms"}) {
            if (given.contains(realtime_only)) {
                throw BadOption(std::string(realtime_only) + " applies to realtime mode only (--mode realtime)");
            }
        }
    }
}

Options parse(const std::vector<std::string>& args, bool& help) {
    const std::map<std::string, std::string> given = given_options(args, help);
    if (help) {
        return {};
    }
    for (const char* required : {"--design", "--case", "--strategy"}) {
        if (!given.contains(required)) {
            throw BadOption(std::string(required) + " is required; --help lists the options");
        }
    }

    Options options;
    for (const auto& [name, value] : given) {
        apply(options, name, value);
    }
    check_together(options, given);
    return options;
}

}  // namespace

CaseParams run_params(const Options& options) {
    return with_overrides(CaseParams::of(options.case_name, options.scale), options.sizes);
}

std::uint32_t input_queue_size(const Options& options) {
    if (options.mode != Mode::realtime || !options.interval_ns) {
        return 0;
    }
    constexpr double max_size = INT32_MAX / 8;  // Java's limit: 2 * size ints in one buffer
    const double slots = options.capture_delay_ms * 1e6 /
                         static_cast<double>(*options.interval_ns * std::max<std::uint32_t>(1, options.threads));
    return static_cast<std::uint32_t>(std::clamp(std::floor(slots), 1.0, max_size));
}

ParseResult parse_options(const std::vector<std::string>& args) {
    ParseResult result;
    try {
        Options options = parse(args, result.help);
        if (!result.help) {
            result.options = std::move(options);
        }
    } catch (const BadOption& error) {
        result.error = error.what();
    }
    return result;
}

std::string usage() {
    return "usage: cpp_engine --design cpp|flat --case A|B|C --strategy dummy|alloc|mix|pool|pmr|shared-pool|pmr-synchronized [options]\n"
           "\n"
           "The C++ engine of the packet-analyser model of \"To allocate or to pool?\".\n"
           "Writes JSON Lines records (header, periodic, summary) to --out and a human line\n"
           "per second to standard error.\n"
           "\n"
           "  --design cpp|flat          cpp: parsing allocates its objects; flat: they live in the packet\n"
           "  --case A|B|C               (or a|b|c) internal queue and store 1,000 / 100,000 / 495,000 (A as the\n"
           "                             published code ran it; the article's table says 10,000), pool 1,000,000,\n"
           "                             mix pool 200,000\n"
           "  --strategy dummy|alloc|mix|pool|pmr|shared-pool|pmr-synchronized   (the last two: with --threads only)\n"
           "  --source counter|random    counter: the published code's draws from one counter; random: independent\n"
           "                             hashed draws, uniform store index (default counter)\n"
           "  --internal-queue-size N    overrides the case's (scaled) internal queue size, 1..10000000\n"
           "  --stored-count N           overrides the case's (scaled) store size, 1..10000000\n"
           "  --pool-size N              overrides POOL_SIZE, 1..10000000; pool needs >= internal queue + store\n"
           "  --allocator glibc|jemalloc|mimalloc|tcmalloc   (default glibc)\n"
           "  --mode batch|realtime      (default batch)\n"
           "  --interval-ns N            realtime tick interval, 10..1000000 (required in realtime)\n"
           "  --capture-delay-ms MS      realtime: the input queue holds MS of ticks per array, (0, 10000] (default\n"
           "                             100, the article's MAX_CAPTURING_DELAY_MS)\n"
           "  --duration-s S             length of the timed phase (warm-up + measured window), (0, 86400] (default 30)\n"
           "  --warmup-s S               timed seconds left out of the summary, [0, duration) (default 5); a fill\n"
           "                             phase before them fills the FIFO and 99 % of the store\n"
           "  --scale F                  multiplies every count, (0, 1] (default 1)\n"
           "  --producer-cpu N           realtime: CPU of the clock thread, -1 = not pinned (default 0; unused in batch)\n"
           "  --consumer-cpu N           realtime: CPU of the processing thread (with --threads, the first of as many\n"
           "                             consecutive CPUs), -1 = not pinned (default 1; unused in batch)\n"
           "  --count-allocations yes|no allocs_per_packet in the summary, from a separate pass of the counting build\n"
           "                             (cpp_engine_counting) after the timed run; that build counts in the run itself\n"
           "                             (default yes)\n"
           "  --threads N                N processing threads (1..256), each processing its own packets with its own\n"
           "                             FIFO and store (real time: one clock feeds them in turn, each its own\n"
           "                             queue); alloc, pool (a pool each), shared-pool (one lock-free pool for all)\n"
           "                             or pmr-synchronized (one std::pmr::synchronized_pool_resource for all);\n"
           "                             times per packet are thread time (elapsed x N). Default: the main thread\n"
           "  --scaling weak|strong      with --threads: weak, each thread a live set of the case's size (default);\n"
           "                             strong, the case's live set split between the threads\n"
           "  --seed N                   seed of the random source, any 64-bit integer (default 1; counter ignores it)\n"
           "  --out FILE                 records file, - for standard output (default -)\n"
           "  --help                     this text\n"
           "\n"
           "Exit status: 0 ok, 1 the run failed (its summary says why), 2 bad command line or allocator.\n";
}

}  // namespace cpp_engine
