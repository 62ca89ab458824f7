// Metered latency of a real-time run: how late a packet was made, from the moment its tick
// was due on the clock thread's schedule (native_queue::TickProducer::lateness_ns), so a
// packet that waited in the input queue counts the whole wait. One packet in
// latency_sample_every is timed (a clock read costs about as much as the finest intervals
// probed; the packets queued behind a stall are late by amounts that fall off evenly, so the
// tail survives the sampling). Lost ticks were never made and are not here: the loss counts
// them. HdrHistogram_c at two significant digits (1 %) up to an hour: a period's histogram,
// reset each second, and the measured window's (the periods inside it). The Java engine's
// measure/LatencyMeter does the same.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

struct hdr_histogram;
struct hdr_interval_recorder;

namespace cpp_engine {

inline constexpr std::uint64_t latency_sample_every = 64;
static_assert((latency_sample_every & (latency_sample_every - 1)) == 0, "a power of two: the loop masks");

struct LatencyPercentiles {
    std::int64_t p50_ns = 0;
    std::int64_t p99_ns = 0;
    std::int64_t p999_ns = 0;
    std::int64_t max_ns = 0;
};

// The window's figures for the summary.
struct LatencySummary {
    std::optional<LatencyPercentiles> percentiles;  // none when no packet was sampled
    std::uint64_t samples = 0;
    std::uint64_t sample_every = latency_sample_every;
};

class LatencyMeter {
public:
    LatencyMeter();

    // One sampled packet's lateness, clamped to [0, an hour], in its period, and in the window
    // when its tick was due in it.
    void record(std::int64_t lateness_ns, bool in_window) noexcept;

    // The period's percentiles (none if it sampled nothing); starts the next period.
    std::optional<LatencyPercentiles> end_period() noexcept;

    LatencySummary window() const noexcept;

private:
    friend class LatencyRecorder;
    struct Close {
        void operator()(hdr_histogram* histogram) const noexcept;
    };
    std::unique_ptr<hdr_histogram, Close> period_;
    std::unique_ptr<hdr_histogram, Close> window_;
};

// One consumer thread's samples in a run of several (threaded_run.hpp), handed to the run's
// LatencyMeter by the thread that watches the run: HdrHistogram's interval recorders, so that
// the consumer never waits for the watcher (it swaps the histograms the consumer records into).
class LatencyRecorder {
public:
    LatencyRecorder();
    ~LatencyRecorder();
    LatencyRecorder(const LatencyRecorder&) = delete;
    LatencyRecorder& operator=(const LatencyRecorder&) = delete;

    // The consumer's thread: as LatencyMeter::record.
    void record(std::int64_t lateness_ns, bool in_window) noexcept;

    // The watcher's thread: adds the samples recorded since its last call to `meter`.
    void drain_into(LatencyMeter& meter) noexcept;

private:
    struct Recorder;
    std::unique_ptr<Recorder> all_;
    std::unique_ptr<Recorder> window_;
};

}  // namespace cpp_engine
