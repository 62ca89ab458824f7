// cpp_engine as a process: exit statuses, the records it writes (every field of
// docs/records.md for the C++ engine, none of the Java-only ones; the clock, the fill
// phase and the window; the overrides), and the allocator axis
// (the named allocator really serves malloc, or the run stops with exit 2 and says what
// to install). The allocator switch preloads another malloc, which a sanitizer build
// cannot do: those tests are skipped there.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "allocator_select.hpp"
#include "build_info.hpp"
#include "engine_process.hpp"

namespace cpp_engine {
namespace {

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

// The header of a flat + pool batch run of case A at 1 %, seed 5, commit abc123-dirty.
void expect_batch_header(const json& header) {
    expect_record(header);
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
}

struct PeriodSums {
    std::uint64_t packets = 0;
    std::uint64_t measured_packets = 0;  // of the periods after the warm-up
};

// The periods of a batch run follow one another from the timed phase's start, adding up their
// packets: the warm-up's last ends where the window starts, the last where the run ends.
PeriodSums expect_periods_follow_one_another(const std::vector<json>& parsed) {
    const json& summary = parsed.back();
    PeriodSums sums;
    double period_end_s = summary["timed_start_s"].get<double>();
    std::optional<double> warmup_end_s;
    for (std::size_t i = 1; i + 1 < parsed.size(); ++i) {
        expect_record(parsed[i]);
        const double t_s = parsed[i]["t_s"].get<double>();
        EXPECT_NEAR(parsed[i]["period_s"].get<double>(), t_s - period_end_s, 1e-6);
        EXPECT_GT(t_s, period_end_s);
        period_end_s = t_s;
        const auto packets = parsed[i]["packets"].get<std::uint64_t>();
        sums.packets += packets;
        EXPECT_EQ(parsed[i]["packets_total"], sums.packets);
        EXPECT_EQ(parsed[i]["lost"], 0);
        if (parsed[i]["warmup"].get<bool>()) {
            EXPECT_EQ(sums.measured_packets, 0U) << "a warm-up period after the warm-up";
            warmup_end_s = t_s;
        } else {
            sums.measured_packets += packets;
        }
    }
    EXPECT_TRUE(warmup_end_s.has_value()) << "no warm-up period";
    EXPECT_NEAR(warmup_end_s.value_or(-1), summary["window_start_s"].get<double>(), 1e-6);
    EXPECT_NEAR(period_end_s, summary["t_s"].get<double>(), 1e-6);
    return sums;
}

TEST_F(EngineProcess, BatchRecordsFollowTheSchema) {
    const std::vector<json> parsed =
            good_run({"--design", "flat", "--case", "A", "--strategy", "pool", "--duration-s", "1.5", "--warmup-s",
                      "0.5", "--scale", "0.01", "--seed", "5"},
                     {{"ALLOC_OR_POOL_COMMIT", "abc123-dirty"}});
    ASSERT_GE(parsed.size(), 3U);
    const json& header = parsed.front();
    expect_batch_header(header);

    const json& summary = parsed.back();
    // t = 0 is the header; the fill phase, then the timed phase (warm-up, window) follow. The
    // window opens, and the run ends, at the first look at the clock once the warm-up, and the
    // duration, are over: how much later depends on the machine (RunTimeline's tests time it
    // on a clock of their own), but never earlier.
    const double timed_start_s = summary["timed_start_s"].get<double>();
    const double window_start_s = summary["window_start_s"].get<double>();
    EXPECT_GT(summary["fill_packets"].get<std::uint64_t>(), 10U);
    EXPECT_GE(timed_start_s, summary["fill_s"].get<double>());
    EXPECT_GE(window_start_s - timed_start_s, 0.5 - 1e-9);
    EXPECT_GE(summary["store_fill_at_window"].get<double>(), 0.99);
    EXPECT_EQ(summary["fifo_fill_at_window"], 0.9);  // 9 of 10 between two packets
    EXPECT_GE(summary["t_s"].get<double>() - timed_start_s, 1.5 - 1e-9);
    EXPECT_TRUE(summary["measured_ticks_due"].is_null());

    const PeriodSums periods = expect_periods_follow_one_another(parsed);
    expect_record(summary);
    EXPECT_TRUE(summary["error"].is_null());
    EXPECT_TRUE(summary["failure"].is_null());
    EXPECT_EQ(summary["packets"], periods.packets);
    EXPECT_GT(summary["measured_packets"].get<std::uint64_t>(), 0U);
    EXPECT_EQ(summary["measured_packets"], periods.measured_packets);  // periods split at the warm-up's end
    EXPECT_NEAR(summary["measured_s"].get<double>(), summary["t_s"].get<double>() - window_start_s, 1e-6);
    // A batch loop spends CPU time in its window (how much of a core it gets is the machine's
    // business), and no process outruns its cores.
    const double cpu_s = summary["measured_cpu_s"].get<double>();
    EXPECT_GT(cpu_s, 0.0);
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

TEST_F(EngineProcess, AThreadedRunRecordsItsThreadsAndThreadTime) {
    const std::vector<json> parsed =
            good_run({"--design", "flat", "--case", "B", "--strategy", "shared-pool", "--threads", "2", "--duration-s",
                      "0.6", "--warmup-s", "0.2", "--scale", "0.01"});
    ASSERT_GE(parsed.size(), 3U);
    EXPECT_EQ(parsed.front()["threads"], 2);
    const json& summary = parsed.back();
    EXPECT_EQ(summary["status"], "ok");
    const auto packets = summary["measured_packets"].get<double>();
    ASSERT_GT(packets, 0);
    // thread time: the window's length times the threads, per packet
    EXPECT_NEAR(summary["ns_per_packet"].get<double>(), summary["measured_s"].get<double>() * 1e9 * 2 / packets, 1e-6);
    const double share = summary["thread_share_min"].get<double>();
    EXPECT_GE(share, 0.0);
    EXPECT_LE(share, 1.0);
    EXPECT_EQ(parsed.front()["scaling"], "weak");
    EXPECT_EQ(summary["pool_capacity"], 20'000);  // one pool for both, each thread's live set the case's
    EXPECT_EQ(summary["pool_free"].get<std::uint64_t>() + summary["pool_in_use"].get<std::uint64_t>(), 20'000U);
    ASSERT_EQ(summary["thread_cpu_s"].size(), 2U);  // each thread's CPU time in the window
    for (const json& seconds : summary["thread_cpu_s"]) {
        EXPECT_GE(seconds.get<double>(), 0.0);
    }
    EXPECT_EQ(summary["allocs_per_packet"], 0.0);  // counted by the counting build's threads, not its main one
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
    EXPECT_EQ(parsed.back()["failure"], "counting_pass");
    expect_record(parsed.back());
    EXPECT_NE(parsed.back()["error"].get<std::string>().find("the allocation counting pass needs " +
                                                             (directory_ / "cpp_engine_counting").string()),
              std::string::npos)
            << parsed.back().dump();
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
