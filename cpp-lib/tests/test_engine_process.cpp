// cpp_engine as a process: exit statuses, the records it writes (every field of
// docs/records.md for the C++ engine, none of the Java-only ones; the clock, the fill
// phase and the window; the overrides), and the allocator axis
// (the named allocator really serves malloc, or the run stops with exit 2 and says what
// to install). The allocator switch preloads another malloc, which a sanitizer build
// cannot do: those tests are skipped there.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "allocator_select.hpp"
#include "build_info.hpp"

extern char** environ;

namespace cpp_engine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class EngineProcess : public ::testing::Test {
protected:
    void SetUp() override {
        directory_ = fs::temp_directory_path() /
                     ("cpp_lib_tests_" + std::to_string(::getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(directory_);
    }

    void TearDown() override { fs::remove_all(directory_); }

    // Runs `program` (cpp_engine unless given) with `args`; `env` sets (or, with nullopt,
    // removes) variables.
    ProcessResult run(const std::vector<std::string>& args,
                      const std::map<std::string, std::optional<std::string>>& env = {},
                      const std::string& program = CPP_ENGINE_PATH) {
        std::vector<std::string> environment;
        for (char** entry = environ; *entry != nullptr; ++entry) {
            const std::string variable = *entry;
            if (!env.contains(variable.substr(0, variable.find('=')))) {
                environment.push_back(variable);
            }
        }
        for (const auto& [name, value] : env) {
            if (value) {
                environment.push_back(name + "=" + *value);
            }
        }
        std::vector<std::string> argv_strings{program};
        argv_strings.insert(argv_strings.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (std::string& arg : argv_strings) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        std::vector<char*> envp;
        for (std::string& variable : environment) {
            envp.push_back(variable.data());
        }
        envp.push_back(nullptr);

        const fs::path out = directory_ / "stdout";
        const fs::path err = directory_ / "stderr";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        ProcessResult result;
        if (spawned != 0) {
            ADD_FAILURE() << "cannot start " << program;
            return result;
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        result.out = read_file(out);
        result.err = read_file(err);
        return result;
    }

    fs::path records_path() const { return directory_ / "run.jsonl"; }

    std::vector<json> records() const {
        std::vector<json> parsed;
        std::ifstream in(records_path());
        for (std::string line; std::getline(in, line);) {
            parsed.push_back(json::parse(line));
        }
        return parsed;
    }

    // Records of a run that must have succeeded: header first, periodic records, summary last.
    std::vector<json> good_run(const std::vector<std::string>& args,
                               const std::map<std::string, std::optional<std::string>>& env = {},
                               const std::string& program = CPP_ENGINE_PATH) {
        std::vector<std::string> all = args;
        all.insert(all.end(), {"--out", records_path().string()});
        const ProcessResult result = run(all, env, program);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        std::vector<json> parsed = records();
        EXPECT_GE(parsed.size(), 3U) << result.err;
        if (parsed.size() >= 3) {
            EXPECT_EQ(parsed.front()["type"], "header");
            EXPECT_EQ(parsed.back()["type"], "summary");
            EXPECT_EQ(parsed.back()["status"], "ok") << parsed.back().dump();
            for (std::size_t i = 1; i + 1 < parsed.size(); ++i) {
                EXPECT_EQ(parsed[i]["type"], "periodic");
            }
        }
        return parsed;
    }

    fs::path directory_;
};

void expect_fields(const json& record, const std::vector<std::string>& present, const std::vector<std::string>& absent) {
    for (const std::string& field : present) {
        EXPECT_TRUE(record.contains(field)) << "missing " << field << " in " << record.dump();
    }
    for (const std::string& field : absent) {
        EXPECT_FALSE(record.contains(field)) << "unexpected " << field << " in " << record.dump();
    }
}

const std::vector<std::string> header_fields{
        "type",   "schema",        "engine",      "run_id",       "started_utc", "host",      "os",
        "cpu_model", "cpus",       "memory_bytes", "small_machine", "commit",     "case",      "strategy",
        "source", "mode",          "interval_ns", "duration_s",   "warmup_s",    "scale",     "params",
        "producer_cpu", "consumer_cpu", "collector", "design",    "allocator",   "allocator_version",
        "counting_build", "operator_new", "operator_delete_sized", "compiler", "cxx_flags", "engine_commit",
        "engine_source"};
const std::vector<std::string> header_java_only{"jdk_vendor", "jdk_version", "vm_name", "vm_flags", "gc_beans",
                                                "heap_max_bytes"};
const std::vector<std::string> params_fields{"pool_size",    "mix_pool_size",          "internal_queue_size",
                                             "stored_count", "max_capturing_delay_ms", "input_queue_size",
                                             "packet_bytes", "case_table"};
const std::vector<std::string> periodic_fields{"type", "t_s",        "period_s",      "packets", "packets_total",
                                               "lost", "lost_total", "ns_per_packet", "warmup",
                                               "latency_p50_ns", "latency_p99_ns", "latency_p999_ns",
                                               "latency_max_ns"};
const std::vector<std::string> summary_fields{
        "type",          "status",           "error",           "t_s",              "packets",
        "measured_packets", "measured_s",    "measured_cpu_s",  "ns_per_packet",   "lost",             "lost_measured",
        "lost_pct_measured", "measured_ticks_due", "producer_emitted", "producer_dropped", "trailing_dropped",
        "allocs_per_packet", "allocs_counted_packets", "peak_rss_bytes", "pool_capacity", "pool_free", "pool_in_use",
        "fill_packets",  "fill_s",           "timed_start_s",   "window_start_s",   "store_fill_at_window",
        "fifo_fill_at_window", "latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns",
        "latency_samples", "latency_sample_every"};
const std::vector<std::string> summary_java_only{"alloc_bytes_per_packet", "gc_pause_count", "gc_pause_total_ms",
                                                 "gc_pause_max_ms",        "gc_cycle_count", "gc_cycle_total_ms",
                                                 "live_objects",           "live_bytes"};

TEST_F(EngineProcess, HelpExitsZero) {
    const ProcessResult result = run({"--help"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_NE(result.out.find("usage: cpp_engine"), std::string::npos);
}

TEST_F(EngineProcess, BadValueExitsTwoListingValidValues) {
    const ProcessResult result = run({"--design", "cpp", "--case", "A", "--strategy", "native-pool"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("valid: dummy, alloc, mix, pool"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty());
    const ProcessResult interval =
            run({"--design", "cpp", "--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns", "5"});
    EXPECT_EQ(interval.exit_code, 2);
    EXPECT_NE(interval.err.find("valid: 10..1000000"), std::string::npos) << interval.err;
}

TEST_F(EngineProcess, BatchRecordsFollowTheSchema) {
    const std::vector<json> parsed =
            good_run({"--design", "flat", "--case", "A", "--strategy", "pool", "--duration-s", "1.5", "--warmup-s",
                      "0.5", "--scale", "0.01", "--seed", "5"},
                     {{"ALLOC_OR_POOL_COMMIT", "abc123-dirty"}});
    ASSERT_GE(parsed.size(), 3U);
    const json& header = parsed.front();
    expect_fields(header, header_fields, header_java_only);
    expect_fields(header["params"], params_fields, {});
    EXPECT_EQ(header["schema"], 1);
    EXPECT_EQ(header["engine"], "cpp");
    EXPECT_EQ(header["design"], "flat");
    EXPECT_EQ(header["strategy"], "pool");
    EXPECT_EQ(header["source"], "counter");  // the default
    EXPECT_EQ(header["case"], "A");
    EXPECT_EQ(header["mode"], "batch");
    EXPECT_EQ(header["allocator"], "glibc");
    EXPECT_EQ(header["commit"], "abc123-dirty");
    EXPECT_TRUE(header["interval_ns"].is_null());
    EXPECT_TRUE(header["producer_cpu"].is_null());
    EXPECT_TRUE(header["collector"].is_null());
    EXPECT_EQ(header["params"]["pool_size"], 10'000);
    EXPECT_EQ(header["params"]["internal_queue_size"], 10);  // case A is 1,000 / 1,000, at 1 %
    EXPECT_EQ(header["params"]["case_table"], json({{"internal_queue_size", 1'000}, {"stored_count", 1'000}}));
    EXPECT_EQ(header["params"]["input_queue_size"], 0);
    EXPECT_EQ(header["params"]["packet_bytes"], 1024);
    EXPECT_EQ(header["small_machine"], header["cpus"].get<int>() < 4);
    EXPECT_EQ(header["compiler"].get<std::string>().rfind("gcc ", 0) == 0 ||
                      header["compiler"].get<std::string>().rfind("clang ", 0) == 0,
              true);
    EXPECT_FALSE(header["cxx_flags"].get<std::string>().empty());

    const json& summary = parsed.back();
    // t = 0 is the header; the fill phase, then the timed phase (warm-up, window) follow.
    const double timed_start_s = summary["timed_start_s"].get<double>();
    EXPECT_GT(summary["fill_packets"].get<std::uint64_t>(), 10U);
    EXPECT_GE(timed_start_s, summary["fill_s"].get<double>());
    EXPECT_NEAR(summary["window_start_s"].get<double>() - timed_start_s, 0.5, 0.05);
    EXPECT_GE(summary["store_fill_at_window"].get<double>(), 0.99);
    EXPECT_EQ(summary["fifo_fill_at_window"], 0.9);  // 9 of 10 between two packets
    EXPECT_NEAR(summary["t_s"].get<double>(), timed_start_s + 1.5, 0.05);
    EXPECT_TRUE(summary["measured_ticks_due"].is_null());

    std::uint64_t periodic_packets = 0;
    std::uint64_t measured_periodic_packets = 0;
    bool saw_warmup = false;
    for (std::size_t i = 1; i + 1 < parsed.size(); ++i) {
        expect_fields(parsed[i], periodic_fields, {});
        EXPECT_GT(parsed[i]["t_s"].get<double>(), timed_start_s);
        const auto packets = parsed[i]["packets"].get<std::uint64_t>();
        periodic_packets += packets;
        EXPECT_EQ(parsed[i]["packets_total"], periodic_packets);
        EXPECT_EQ(parsed[i]["lost"], 0);
        EXPECT_LE(parsed[i]["period_s"].get<double>(), 1.01);
        if (parsed[i]["warmup"].get<bool>()) {
            EXPECT_EQ(measured_periodic_packets, 0U) << "a warm-up period after the warm-up";
            saw_warmup = true;
        } else {
            measured_periodic_packets += packets;
        }
    }
    EXPECT_TRUE(saw_warmup);

    expect_fields(summary, summary_fields, summary_java_only);
    EXPECT_TRUE(summary["error"].is_null());
    EXPECT_EQ(summary["packets"], periodic_packets);
    EXPECT_GT(summary["measured_packets"].get<std::uint64_t>(), 0U);
    EXPECT_EQ(summary["measured_packets"], measured_periodic_packets);  // periods split at the warm-up's end
    EXPECT_NEAR(summary["measured_s"].get<double>(), 1.0, 0.1);
    // A batch loop keeps a core busy in its window, and no process outruns its cores.
    const double cpu_s = summary["measured_cpu_s"].get<double>();
    EXPECT_GT(cpu_s, 0.5 * summary["measured_s"].get<double>());
    EXPECT_LT(cpu_s, std::thread::hardware_concurrency() * summary["measured_s"].get<double>() + 0.05);
    EXPECT_GT(summary["ns_per_packet"].get<double>(), 0);
    EXPECT_EQ(summary["lost"], 0);
    EXPECT_TRUE(summary["producer_emitted"].is_null());
    EXPECT_TRUE(summary["trailing_dropped"].is_null());
    EXPECT_EQ(summary["allocs_per_packet"], 0.0);  // flat + pool: nothing after warm-up
    EXPECT_GT(summary["allocs_counted_packets"].get<std::uint64_t>(), 0U);
    EXPECT_EQ(header["counting_build"], false);
    EXPECT_GT(summary["peak_rss_bytes"].get<std::uint64_t>(), 0U);
    EXPECT_EQ(summary["pool_capacity"], 10'000);
    EXPECT_EQ(summary["pool_free"].get<std::uint64_t>() + summary["pool_in_use"].get<std::uint64_t>(), 10'000U);
    EXPECT_LE(summary["pool_in_use"].get<std::uint64_t>(), 20U);
}

TEST_F(EngineProcess, CppAllocCountsSixAllocationsPerPacket) {
    const std::vector<json> parsed = good_run({"--design", "cpp", "--case", "B", "--strategy", "alloc",
                                               "--duration-s", "1", "--warmup-s", "0.3", "--scale", "0.01"});
    ASSERT_FALSE(parsed.empty());
    const json& summary = parsed.back();
    EXPECT_EQ(summary["allocs_per_packet"], 6.0);  // packet, buffer, header, two addresses, IP packet
    EXPECT_TRUE(summary["pool_capacity"].is_null());
}

TEST_F(EngineProcess, CountingBuildCountsInTheRunItself) {
    const std::vector<json> parsed = good_run({"--design", "cpp", "--case", "B", "--strategy", "alloc",
                                               "--duration-s", "1", "--warmup-s", "0.3", "--scale", "0.01"},
                                              {}, CPP_ENGINE_COUNTING_PATH);
    ASSERT_FALSE(parsed.empty());
    EXPECT_EQ(parsed.front()["counting_build"], true);
    EXPECT_EQ(parsed.front()["operator_new"], CPP_ENGINE_COUNTING_PATH);  // its own replacement
    EXPECT_EQ(parsed.front()["operator_delete_sized"], CPP_ENGINE_COUNTING_PATH);
    EXPECT_EQ(parsed.back()["allocs_per_packet"], 6.0);
    EXPECT_EQ(parsed.back()["allocs_counted_packets"], parsed.back()["measured_packets"]);
}

TEST_F(EngineProcess, AllocationCountingCanBeLeftOut) {
    const std::vector<json> parsed = good_run({"--design", "cpp", "--case", "A", "--strategy", "alloc",
                                               "--duration-s", "0.3", "--warmup-s", "0", "--scale", "0.01",
                                               "--count-allocations", "no"});
    ASSERT_FALSE(parsed.empty());
    EXPECT_TRUE(parsed.back()["allocs_per_packet"].is_null());
    EXPECT_TRUE(parsed.back()["allocs_counted_packets"].is_null());
}

TEST_F(EngineProcess, MissingCountingBuildIsAnError) {
    // The timed build alone, without the counting build beside it.
    const fs::path alone = directory_ / "cpp_engine";
    fs::copy_file(CPP_ENGINE_PATH, alone);
    const ProcessResult result = run({"--design", "flat", "--case", "A", "--strategy", "pool", "--scale", "0.01",
                                      "--duration-s", "0.3", "--warmup-s", "0", "--out", records_path().string()},
                                     {}, alone.string());
    EXPECT_EQ(result.exit_code, 1);
    const std::vector<json> parsed = records();
    ASSERT_FALSE(parsed.empty());
    EXPECT_EQ(parsed.back()["status"], "error");
    EXPECT_NE(parsed.back()["error"].get<std::string>().find("the allocation counting pass needs " +
                                                             (directory_ / "cpp_engine_counting").string()),
              std::string::npos)
            << parsed.back().dump();
}

TEST_F(EngineProcess, RealtimeRecordsBalanceTheTickAccounts) {
    const std::vector<json> parsed =
            good_run({"--design", "flat", "--case", "A", "--strategy", "mix", "--mode", "realtime", "--interval-ns",
                      "2000", "--producer-cpu", "-1", "--consumer-cpu", "-1", "--duration-s", "1.2", "--warmup-s",
                      "0.2", "--scale", "0.01"});
    ASSERT_GE(parsed.size(), 3U);
    const json& header = parsed.front();
    EXPECT_EQ(header["mode"], "realtime");
    EXPECT_EQ(header["interval_ns"], 2000);
    EXPECT_EQ(header["producer_cpu"], -1);
    EXPECT_EQ(header["params"]["input_queue_size"], 50'000);  // 100 ms of 2 us ticks
    EXPECT_EQ(header["params"]["max_capturing_delay_ms"], 100.0);
    const json& summary = parsed.back();
    expect_fields(summary, summary_fields, summary_java_only);
    const auto emitted = summary["producer_emitted"].get<std::uint64_t>();
    EXPECT_NEAR(static_cast<double>(emitted), 600'000.0, 60'000.0);
    EXPECT_EQ(summary["lost"].get<std::uint64_t>() + summary["trailing_dropped"].get<std::uint64_t>(),
              summary["producer_dropped"].get<std::uint64_t>());
    EXPECT_EQ(summary["packets"].get<std::uint64_t>() + summary["producer_dropped"].get<std::uint64_t>(), emitted);
    // The ticks due in the window: measured_s / interval, rounded down. Every one of them
    // was processed or lost, up to what the queue (two arrays of 50,000) held at either end.
    const auto due = static_cast<std::uint64_t>(summary["measured_s"].get<double>() * 1e9 / 2000.0);
    EXPECT_EQ(summary["measured_ticks_due"], due);
    const auto accounted =
            summary["measured_packets"].get<std::uint64_t>() + summary["lost_measured"].get<std::uint64_t>();
    EXPECT_NEAR(static_cast<double>(accounted), static_cast<double>(due), 100'000.0);
    // The metered latency: one packet in 64 of the window, percentiles in order.
    EXPECT_EQ(summary["latency_sample_every"], 64);
    const auto measured = summary["measured_packets"].get<std::uint64_t>();
    EXPECT_NEAR(static_cast<double>(summary["latency_samples"].get<std::uint64_t>()), measured / 64.0, 2.0 * 64)
            << summary.dump();
    EXPECT_LE(summary["latency_p50_ns"].get<std::int64_t>(), summary["latency_p99_ns"].get<std::int64_t>());
    EXPECT_LE(summary["latency_p99_ns"].get<std::int64_t>(), summary["latency_p999_ns"].get<std::int64_t>());
    EXPECT_LE(summary["latency_p999_ns"].get<std::int64_t>(), summary["latency_max_ns"].get<std::int64_t>());
    // Every sampled packet of the window was also sampled in a period but those the consumer
    // took while draining the queue after the last period (docs/records.md, "Metered latency"):
    // with none of them sampled, the periods hold the window's max. The converse does not hold:
    // a period holds the packets made in it, the window those whose ticks were due in it, so the
    // first measured period can show a stall that straddled the warm-up's end.
    std::int64_t periods_max = 0;
    for (std::size_t i = 1; i + 1 < parsed.size(); ++i) {
        if (!parsed[i]["latency_max_ns"].is_null()) {
            periods_max = std::max(periods_max, parsed[i]["latency_max_ns"].get<std::int64_t>());
        }
    }
    const auto packets = summary["packets"].get<std::uint64_t>();
    const auto before_drain = parsed[parsed.size() - 2]["packets_total"].get<std::uint64_t>();
    ASSERT_LE(before_drain, packets);
    const bool sampled_draining = packets / 64 > before_drain / 64;  // packet n is sampled when 64 divides n
    if (!sampled_draining) {
        EXPECT_LE(summary["latency_max_ns"].get<std::int64_t>(), periods_max) << summary.dump();
    }
}

// A small profile scales the input queue's time with the live set (--capture-delay-ms):
// the queue the consumer reads is that many ms of ticks, and the header says so.
TEST_F(EngineProcess, CaptureDelaySizesTheInputQueue) {
    const std::vector<json> parsed =
            good_run({"--design", "flat", "--case", "A", "--strategy", "pool", "--mode", "realtime", "--interval-ns",
                      "2000", "--capture-delay-ms", "2.5", "--producer-cpu", "-1", "--consumer-cpu", "-1",
                      "--duration-s", "0.6", "--warmup-s", "0.1", "--scale", "0.01"});
    ASSERT_GE(parsed.size(), 3U);
    EXPECT_EQ(parsed.front()["params"]["max_capturing_delay_ms"], 2.5);
    EXPECT_EQ(parsed.front()["params"]["input_queue_size"], 1'250);  // 2.5 ms of 2 us ticks
    EXPECT_EQ(parsed.back()["status"], "ok") << parsed.back().dump();
    const ProcessResult batch = run({"--design", "flat", "--case", "A", "--strategy", "pool", "--capture-delay-ms", "10"});
    EXPECT_EQ(batch.exit_code, 2);
    EXPECT_NE(batch.err.find("--capture-delay-ms applies to realtime mode only"), std::string::npos) << batch.err;
}

// The build's ids reach every header: the study keys its cells with engine_source and
// refuses a run whose engine was built from other sources.
TEST_F(EngineProcess, HeaderCarriesTheBuildsSourceId) {
    const std::vector<json> parsed = good_run({"--design", "flat", "--case", "A", "--strategy", "dummy",
                                               "--duration-s", "0.3", "--warmup-s", "0.1", "--scale", "0.01"});
    ASSERT_GE(parsed.size(), 2U);
    EXPECT_EQ(parsed.front()["engine_source"], build_info::engine_source);
    EXPECT_EQ(parsed.front()["engine_commit"], build_info::engine_commit);
}

TEST_F(EngineProcess, OverridesAndRandomSourceReachTheHeader) {
    const std::vector<json> parsed =
            good_run({"--design", "cpp", "--case", "a", "--strategy", "pool", "--source", "random",
                      "--internal-queue-size", "300", "--stored-count", "200", "--pool-size", "500",
                      "--duration-s", "0.6", "--warmup-s", "0.1"});
    ASSERT_GE(parsed.size(), 3U);
    const json& header = parsed.front();
    EXPECT_EQ(header["source"], "random");
    EXPECT_EQ(header["params"]["internal_queue_size"], 300);
    EXPECT_EQ(header["params"]["stored_count"], 200);
    EXPECT_EQ(header["params"]["pool_size"], 500);
    EXPECT_EQ(header["params"]["mix_pool_size"], 200'000);
    EXPECT_EQ(header["params"]["case_table"], json({{"internal_queue_size", 1'000}, {"stored_count", 1'000}}));
    const json& summary = parsed.back();
    EXPECT_GE(summary["store_fill_at_window"].get<double>(), 0.99);
    EXPECT_EQ(summary["fifo_fill_at_window"], 299.0 / 300.0);
    EXPECT_EQ(summary["pool_capacity"], 500);
}

TEST_F(EngineProcess, PoolTooSmallForTheQueueAndStoreIsAUsageError) {
    // The pool must hold internal_queue_size + stored_count packets (10 + 10 here).
    const ProcessResult result = run({"--design", "flat", "--case", "A", "--strategy", "pool", "--scale", "0.01",
                                      "--pool-size", "19", "--out", records_path().string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("needs pool_size >= internal_queue_size + stored_count, but 19 < 10 + 10; "
                              "valid: --pool-size 20..10000000"),
              std::string::npos)
            << result.err;
    EXPECT_TRUE(records().empty());
    // Mix grows when empty: no such rule.
    EXPECT_EQ(run({"--design", "flat", "--case", "A", "--strategy", "mix", "--scale", "0.01", "--pool-size", "19",
                   "--duration-s", "0.2", "--warmup-s", "0", "--out", records_path().string()})
                      .exit_code,
              0);
}

TEST_F(EngineProcess, EachAllocatorIsReallyActive) {
    if (build_info::sanitized) {
        GTEST_SKIP() << "a sanitizer build cannot preload another malloc";
    }
    for (const AllocatorSpec& spec : allocator_specs) {
        if (!spec.library.empty() && !find_library(spec.library, library_directories())) {
            ADD_FAILURE() << spec.library << " is not installed: apt-get install " << spec.package;
            continue;
        }
        const std::vector<json> parsed =
                good_run({"--design", "flat", "--case", "A", "--strategy", "alloc", "--allocator",
                          std::string(spec.name), "--duration-s", "0.4", "--warmup-s", "0.1", "--scale", "0.01"});
        ASSERT_FALSE(parsed.empty());
        EXPECT_EQ(parsed.front()["allocator"], spec.name);
        const std::string version = parsed.front()["allocator_version"];
        EXPECT_NE(version.find_first_of("0123456789"), std::string::npos) << spec.name << ": " << version;
        // The timed build: the model's new and (sized) delete are the allocator's own;
        // glibc's come from libstdc++ (which calls malloc and free).
        const std::string owner = spec.library.empty() ? "libstdc++" : std::string(spec.library);
        EXPECT_EQ(parsed.front()["counting_build"], false);
        EXPECT_NE(parsed.front()["operator_new"].get<std::string>().find(owner), std::string::npos)
                << parsed.front()["operator_new"];
        EXPECT_NE(parsed.front()["operator_delete_sized"].get<std::string>().find(owner), std::string::npos)
                << parsed.front()["operator_delete_sized"];
        EXPECT_EQ(parsed.back()["allocs_per_packet"], 2.0) << spec.name;  // by the counting pass, same allocator
    }
}

TEST_F(EngineProcess, ForeignPreloadUnderGlibcIsRefused) {
    if (build_info::sanitized) {
        GTEST_SKIP() << "a sanitizer build cannot preload another malloc";
    }
    const auto jemalloc = find_library("libjemalloc.so.2", library_directories());
    if (!jemalloc) {
        GTEST_SKIP() << "libjemalloc2 is not installed";
    }
    const ProcessResult result =
            run({"--design", "flat", "--case", "A", "--strategy", "pool"}, {{"LD_PRELOAD", *jemalloc}});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("allocator glibc is not the active allocator"), std::string::npos) << result.err;
}

TEST_F(EngineProcess, FailedVerificationIsAnErrorNotAFallback) {
    // Marked as already preloaded, but nothing was: verification must fail.
    const ProcessResult result = run({"--design", "flat", "--case", "A", "--strategy", "pool", "--allocator",
                                      "jemalloc"},
                                     {{"ALLOC_OR_POOL_PRELOADED", "jemalloc"}, {"LD_PRELOAD", std::nullopt}});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("allocator jemalloc is not the active allocator"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("libjemalloc2"), std::string::npos) << result.err;
}

TEST_F(EngineProcess, MissingLibraryNamesThePackage) {
    const ProcessResult result = run({"--design", "flat", "--case", "A", "--strategy", "pool", "--allocator",
                                      "tcmalloc"},
                                     {{std::string(library_dirs_variable), "/nonexistent"}});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("allocator tcmalloc: libtcmalloc_minimal.so.4 not found"), std::string::npos)
            << result.err;
    EXPECT_NE(result.err.find("apt-get install libtcmalloc-minimal4"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace cpp_engine
