// Command-line validation: good command lines parse with the documented defaults, and
// every bad, unknown or out-of-range value is rejected with a message that lists the
// valid ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "native_queue/cpu_affinity.hpp"
#include "counting_pass.hpp"
#include "options.hpp"

namespace cpp_engine {
namespace {

const std::vector<std::string> required{"--design", "cpp", "--case", "A", "--strategy", "pool"};

std::vector<std::string> with(std::vector<std::string> extra, std::vector<std::string> base = required) {
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
}

// The error for `args`, which must not parse.
std::string rejected(const std::vector<std::string>& args) {
    const ParseResult result = parse_options(args);
    EXPECT_FALSE(result.options.has_value());
    EXPECT_FALSE(result.error.empty());
    return result.error;
}

TEST(Options, DefaultsAndBothSyntaxes) {
    const ParseResult result = parse_options({"--design=flat", "--case", "c", "--strategy=mix"});
    ASSERT_TRUE(result.options.has_value()) << result.error;
    const Options& options = *result.options;
    EXPECT_EQ(options.design, "flat");
    EXPECT_EQ(options.case_name, "C");
    EXPECT_EQ(options.strategy, "mix");
    EXPECT_EQ(options.allocator, "glibc");
    EXPECT_EQ(options.mode, Mode::batch);
    EXPECT_FALSE(options.interval_ns.has_value());
    EXPECT_EQ(options.duration_s, 30);  // java-lib's defaults
    EXPECT_EQ(options.warmup_s, 5);
    EXPECT_EQ(options.scale, 1);
    EXPECT_EQ(options.out, "-");
    EXPECT_EQ(options.source, "counter");
    EXPECT_FALSE(options.sizes.internal_queue_size || options.sizes.stored_count || options.sizes.pool_size);
}

TEST(Options, SourceAndSizeOverrides) {
    const ParseResult result = parse_options(with({"--source", "random", "--internal-queue-size", "10000",
                                                   "--stored-count=10000", "--pool-size", "10000000"}));
    ASSERT_TRUE(result.options.has_value()) << result.error;
    EXPECT_EQ(result.options->source, "random");
    const CaseParams params = run_params(*result.options);
    EXPECT_EQ(params.internal_queue_size, 10'000U);
    EXPECT_EQ(params.stored_count, 10'000U);
    EXPECT_EQ(params.pool_size, 10'000'000U);
    EXPECT_EQ(params.table_internal_queue_size, 1'000U);

    EXPECT_NE(rejected(with({"--source", "xorshift"})).find("valid: counter, random"), std::string::npos);
    for (const char* option : {"--internal-queue-size", "--stored-count", "--pool-size"}) {
        for (const char* count : {"0", "10000001", "-1", "1e3", ""}) {
            EXPECT_NE(rejected(with({option, count})).find(std::string(option) + ": '" + count +
                                                           "' is not valid; valid: 1..10000000"),
                      std::string::npos)
                    << option << " " << count;
        }
    }
    // pool (the required strategy here) needs pool_size >= queue + store: 1,000,000 < 600,000 + 600,000.
    EXPECT_NE(rejected(with({"--internal-queue-size", "600000", "--stored-count", "600000"}))
                      .find("1000000 < 600000 + 600000; valid: --pool-size 1200000..10000000"),
              std::string::npos);
    EXPECT_TRUE(parse_options(with({"--internal-queue-size", "600000", "--stored-count", "600000", "--pool-size",
                                    "1200000"}))
                        .options.has_value());
}

TEST(Options, FullRealtimeCommandLine) {
    const int last_cpu = native_queue::configured_cpu_count() - 1;
    const ParseResult result = parse_options(with({"--allocator", "jemalloc", "--mode", "realtime", "--interval-ns",
                                                   "50", "--duration-s", "3.5", "--warmup-s", "0.5", "--scale",
                                                   "0.05", "--producer-cpu", "-1", "--consumer-cpu",
                                                   std::to_string(last_cpu), "--seed", "-99", "--out", "run.jsonl"}));
    ASSERT_TRUE(result.options.has_value()) << result.error;
    EXPECT_EQ(result.options->mode, Mode::realtime);
    EXPECT_EQ(result.options->interval_ns, 50U);
    EXPECT_EQ(result.options->duration_s, 3.5);
    EXPECT_EQ(result.options->scale, 0.05);
    EXPECT_EQ(result.options->producer_cpu, -1);
    EXPECT_EQ(result.options->consumer_cpu, last_cpu);
    EXPECT_EQ(result.options->seed, -99);
}

TEST(Options, CaptureDelaySizesTheRealtimeQueue) {
    const ParseResult result = parse_options(with({"--mode", "realtime", "--interval-ns", "1000"}));
    ASSERT_TRUE(result.options.has_value()) << result.error;
    EXPECT_EQ(result.options->capture_delay_ms, 100);  // the article's MAX_CAPTURING_DELAY_MS
    EXPECT_EQ(input_queue_size(*result.options), 100'000U);
    const ParseResult scaled = parse_options(with({"--mode", "realtime", "--interval-ns", "1000", "--capture-delay-ms",
                                                   "10"}));
    ASSERT_TRUE(scaled.options.has_value()) << scaled.error;
    EXPECT_EQ(input_queue_size(*scaled.options), 10'000U);
    const ParseResult tiny = parse_options(with({"--mode", "realtime", "--interval-ns", "1000000", "--capture-delay-ms",
                                                 "0.0001"}));
    ASSERT_TRUE(tiny.options.has_value()) << tiny.error;
    EXPECT_EQ(input_queue_size(*tiny.options), 1U);  // never an empty queue
    EXPECT_EQ(input_queue_size(*parse_options(required).options), 0U);  // batch
    for (const char* delay : {"0", "-1", "10001", "x", "nan"}) {
        EXPECT_NE(rejected(with({"--mode", "realtime", "--interval-ns", "1000", "--capture-delay-ms", delay}))
                          .find("valid: a number of milliseconds in (0, 10000]"),
                  std::string::npos)
                << delay;
    }
    EXPECT_NE(rejected(with({"--capture-delay-ms", "10"})).find("applies to realtime mode only"), std::string::npos);
}

TEST(Options, HelpIsNotAnError) {
    const ParseResult result = parse_options({"--help"});
    EXPECT_TRUE(result.help);
    EXPECT_TRUE(result.error.empty());
}

TEST(Options, BadChoicesListTheValidOnes) {
    EXPECT_NE(rejected({"--design", "java", "--case", "A", "--strategy", "pool"}).find("valid: cpp, flat"),
              std::string::npos);
    EXPECT_NE(rejected(with({"--allocator", "hoard"})).find("valid: glibc, jemalloc, mimalloc, tcmalloc"),
              std::string::npos);
    EXPECT_NE(rejected({"--design", "cpp", "--case", "D", "--strategy", "pool"}).find("valid: A, B, C"),
              std::string::npos);
    EXPECT_NE(rejected({"--design", "cpp", "--case", "A", "--strategy", "native-pool"})
                      .find("valid: dummy, alloc, mix, pool"),
              std::string::npos);
    EXPECT_NE(rejected(with({"--mode", "stream"})).find("valid: batch, realtime"), std::string::npos);
}

TEST(Options, OutOfRangeNumbersListTheValidRange) {
    for (const char* interval : {"9", "1000001", "abc", "", "-5", "100ns"}) {
        EXPECT_NE(rejected(with({"--mode", "realtime", "--interval-ns", interval})).find("valid: 10..1000000"),
                  std::string::npos)
                << interval;
    }
    for (const char* scale : {"0", "1.5", "-0.1", "nan", "inf", "x"}) {
        EXPECT_NE(rejected(with({"--scale", scale})).find("(0, 1]"), std::string::npos) << scale;
    }
    for (const char* duration : {"0", "-1", "86401", "ten"}) {
        EXPECT_NE(rejected(with({"--duration-s", duration})).find("(0, 86400]"), std::string::npos) << duration;
    }
    EXPECT_NE(rejected(with({"--duration-s", "3", "--warmup-s", "3"})).find("[0, 3)"), std::string::npos);
    EXPECT_NE(rejected(with({"--warmup-s", "-1"})).find("valid"), std::string::npos);
    EXPECT_NE(rejected(with({"--seed", "9223372036854775808"})).find("valid: any 64-bit integer"), std::string::npos);
    const std::string bad_cpu = std::to_string(native_queue::configured_cpu_count());
    EXPECT_NE(rejected(with({"--mode", "realtime", "--interval-ns", "100", "--producer-cpu", bad_cpu}))
                      .find("valid: -1 (not pinned) or a CPU number 0.."),
              std::string::npos);
}

TEST(Options, ModeRules) {
    EXPECT_NE(rejected(with({"--mode", "realtime"})).find("--interval-ns is required"), std::string::npos);
    EXPECT_NE(rejected(with({"--interval-ns", "100"})).find("realtime mode only"), std::string::npos);
    // As in java-lib, the CPU options are accepted (and unused) in batch mode.
    EXPECT_TRUE(parse_options(with({"--producer-cpu", "0", "--consumer-cpu", "1"})).options.has_value());
    if (native_queue::configured_cpu_count() >= 1) {
        EXPECT_NE(rejected(with({"--mode", "realtime", "--interval-ns", "100", "--producer-cpu", "0",
                                 "--consumer-cpu", "0"}))
                          .find("must differ"),
                  std::string::npos);
    }
}

TEST(Options, UnknownMissingAndRepeatedOptions) {
    EXPECT_NE(rejected(with({"--colour", "red"})).find("valid options: --design"), std::string::npos);
    EXPECT_NE(rejected(with({"positional"})).find("unknown option"), std::string::npos);
    EXPECT_NE(rejected({"--design", "cpp", "--case", "A"}).find("--strategy is required"), std::string::npos);
    EXPECT_NE(rejected(with({"--case", "B"})).find("given twice"), std::string::npos);
    EXPECT_NE(rejected(with({"--seed"})).find("needs a value"), std::string::npos);
    EXPECT_NE(rejected(with({"--out", ""})).find("valid: a file path"), std::string::npos);
}

TEST(Options, TheCountingPassLastsASecondOrTheRunsOwnDurationWhereShorter) {
    Options options;
    options.duration_s = 0.4;
    EXPECT_DOUBLE_EQ(counting_pass_seconds(options), 0.4);
    options.duration_s = 20;
    EXPECT_DOUBLE_EQ(counting_pass_seconds(options), counting_pass_s);
}

}  // namespace
}  // namespace cpp_engine
