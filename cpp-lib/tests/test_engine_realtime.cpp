// cpp_engine's real-time mode as a process: the header names the clock and the input queue,
// and the summary's tick accounts balance, with bounds on the window's figures that hold
// however the machine schedules the clock thread and the consumer (the exact figures of
// scripted runs are test_realtime.cpp's).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine_process.hpp"

namespace cpp_engine {
namespace {

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
    expect_record(summary);
    // What the run lost and how late it was depend on the machine; the books do not. The
    // exact figures of scripted runs are the Realtime tests'.
    const auto emitted = summary["producer_emitted"].get<std::uint64_t>();
    const auto packets = summary["packets"].get<std::uint64_t>();
    const auto trailing = summary["trailing_dropped"].get<std::uint64_t>();
    EXPECT_EQ(summary["lost"].get<std::uint64_t>() + trailing, summary["producer_dropped"].get<std::uint64_t>());
    EXPECT_EQ(packets + summary["producer_dropped"].get<std::uint64_t>(), emitted);
    // The ticks due in the window: measured_s / interval, rounded down. The clock thread emitted
    // every one of them, and each was processed or lost in the window, or still queued at its end
    // (two arrays of 50,000 at most), or dropped after those (and a tick either way for the
    // rounding at either end).
    const auto due = static_cast<std::uint64_t>(summary["measured_s"].get<double>() * 1e9 / 2000.0);
    EXPECT_EQ(summary["measured_ticks_due"], due);
    EXPECT_GE(emitted, due);
    const auto measured = summary["measured_packets"].get<std::uint64_t>();
    const auto accounted = measured + summary["lost_measured"].get<std::uint64_t>();
    EXPECT_GE(accounted + 2 * 50'000 + trailing + 2, due) << summary.dump();
    // The window's losses: gaps found draining and the drops after the last tick the consumer took
    // (trailing, not in `lost`): at most every drop, whatever the share of each.
    EXPECT_LE(summary["lost_measured"].get<std::uint64_t>(), summary["producer_dropped"].get<std::uint64_t>())
            << summary.dump();
    // The metered latency: one packet in 64 of those whose ticks were due in the window, which
    // are the window's packets but for those queued at either end (two arrays at most);
    // percentiles in order.
    EXPECT_EQ(summary["latency_sample_every"], 64);
    const auto samples = summary["latency_samples"].get<std::uint64_t>();
    EXPECT_GE(64 * (samples + 1) + 2 * 50'000, measured) << summary.dump();
    EXPECT_LE(64 * samples, packets) << summary.dump();
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

}  // namespace
}  // namespace cpp_engine
