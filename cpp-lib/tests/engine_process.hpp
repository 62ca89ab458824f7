// The fixture of the tests that run cpp_engine as a process: it runs the binary with given
// arguments and environment in a folder of its own, reads its records, and names the fields
// docs/records.md gives each record of the C++ engine (and those only Java's have).
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace cpp_engine {


namespace fs = std::filesystem;
using nlohmann::json;

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string read_file(const fs::path& path) {
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

inline void expect_fields(const json& record, const std::vector<std::string>& present, const std::vector<std::string>& absent) {
    for (const std::string& field : present) {
        EXPECT_TRUE(record.contains(field)) << "missing " << field << " in " << record.dump();
    }
    for (const std::string& field : absent) {
        EXPECT_FALSE(record.contains(field)) << "unexpected " << field << " in " << record.dump();
    }
}

inline const std::vector<std::string> header_fields{
        "type",   "schema",        "engine",      "run_id",       "started_utc", "host",      "os",
        "cpu_model", "cpus",       "memory_bytes", "small_machine", "commit",     "case",      "strategy",
        "source", "mode",          "interval_ns", "duration_s",   "warmup_s",    "scale",     "params",
        "producer_cpu", "consumer_cpu", "collector", "design",    "allocator",   "allocator_version",
        "counting_build", "operator_new", "operator_delete_sized", "compiler", "cxx_flags", "engine_commit",
        "engine_source", "threads"};
inline const std::vector<std::string> header_java_only{"jdk_vendor", "jdk_version", "vm_name", "vm_flags", "gc_beans",
                                                "heap_max_bytes"};
inline const std::vector<std::string> params_fields{"pool_size",    "mix_pool_size",          "internal_queue_size",
                                             "stored_count", "max_capturing_delay_ms", "input_queue_size",
                                             "packet_bytes", "case_table"};
inline const std::vector<std::string> periodic_fields{"type", "t_s",        "period_s",      "packets", "packets_total",
                                               "lost", "lost_total", "ns_per_packet", "warmup",
                                               "latency_p50_ns", "latency_p99_ns", "latency_p999_ns",
                                               "latency_max_ns"};
inline const std::vector<std::string> summary_fields{
        "type",          "status",           "error",           "t_s",              "packets",
        "measured_packets", "measured_s",    "measured_cpu_s",  "ns_per_packet",   "lost",             "lost_measured",
        "lost_pct_measured", "measured_ticks_due", "producer_emitted", "producer_dropped", "trailing_dropped",
        "allocs_per_packet", "allocs_counted_packets", "peak_rss_bytes", "pool_capacity", "pool_free", "pool_in_use",
        "fill_packets",  "fill_s",           "timed_start_s",   "window_start_s",   "store_fill_at_window",
        "fifo_fill_at_window", "latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns",
        "latency_samples", "latency_sample_every", "thread_share_min"};
inline const std::vector<std::string> summary_java_only{"alloc_bytes_per_packet", "gc_pause_count", "gc_pause_total_ms",
                                                 "gc_pause_max_ms",        "gc_cycle_count", "gc_cycle_total_ms",
                                                 "live_objects",           "live_bytes"};

}  // namespace cpp_engine
