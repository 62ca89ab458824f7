// LatencyMeter over HdrHistogram_c (see latency_meter.hpp).
#include "latency_meter.hpp"

#include <hdr_histogram.h>
#include <hdr_interval_recorder.h>

#include <algorithm>
#include <new>

namespace cpp_engine {
namespace {

constexpr std::int64_t highest_ns = 3'600'000'000'000;
constexpr int significant_digits = 2;

hdr_histogram* make_histogram() {
    hdr_histogram* histogram = nullptr;
    if (hdr_init(1, highest_ns, significant_digits, &histogram) != 0) {
        throw std::bad_alloc();
    }
    return histogram;
}

std::optional<LatencyPercentiles> percentiles(const hdr_histogram* histogram) noexcept {
    if (histogram->total_count == 0) {
        return std::nullopt;
    }
    return LatencyPercentiles{hdr_value_at_percentile(histogram, 50.0), hdr_value_at_percentile(histogram, 99.0),
                              hdr_value_at_percentile(histogram, 99.9), hdr_max(histogram)};
}

}  // namespace

void LatencyMeter::Close::operator()(hdr_histogram* histogram) const noexcept { hdr_close(histogram); }

LatencyMeter::LatencyMeter() : period_(make_histogram()), window_(make_histogram()) {}

// An interval recorder and the histogram it last handed back, kept for the next swap.
struct LatencyRecorder::Recorder {
    Recorder() {
        if (hdr_interval_recorder_init_all(&recorder, 1, highest_ns, significant_digits) != 0) {
            throw std::bad_alloc();
        }
    }
    ~Recorder() {
        hdr_interval_recorder_destroy(&recorder);
        if (spare != nullptr) {
            hdr_close(spare);
        }
    }
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // The samples since the last call, added to `into`.
    void drain_into(hdr_histogram* into) noexcept {
        spare = hdr_interval_recorder_sample_and_recycle(&recorder, spare);
        hdr_add(into, spare);
    }

    hdr_interval_recorder recorder{};
    hdr_histogram* spare = nullptr;
};

LatencyRecorder::LatencyRecorder() : all_(std::make_unique<Recorder>()), window_(std::make_unique<Recorder>()) {}
LatencyRecorder::~LatencyRecorder() = default;

void LatencyRecorder::record(std::int64_t lateness_ns, bool in_window) noexcept {
    const std::int64_t value = std::clamp<std::int64_t>(lateness_ns, 0, highest_ns);
    hdr_interval_recorder_record_value(&all_->recorder, value);
    if (in_window) {
        hdr_interval_recorder_record_value(&window_->recorder, value);
    }
}

void LatencyRecorder::drain_into(LatencyMeter& meter) noexcept {
    all_->drain_into(meter.period_.get());
    window_->drain_into(meter.window_.get());
}

void LatencyMeter::record(std::int64_t lateness_ns, bool in_window) noexcept {
    const std::int64_t value = std::clamp<std::int64_t>(lateness_ns, 0, highest_ns);
    hdr_record_value(period_.get(), value);
    if (in_window) {
        hdr_record_value(window_.get(), value);
    }
}

std::optional<LatencyPercentiles> LatencyMeter::end_period() noexcept {
    std::optional<LatencyPercentiles> result = percentiles(period_.get());
    hdr_reset(period_.get());
    return result;
}

LatencySummary LatencyMeter::window() const noexcept {
    return {percentiles(window_.get()), static_cast<std::uint64_t>(window_->total_count), latency_sample_every};
}

}  // namespace cpp_engine
