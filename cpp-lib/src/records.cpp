// Building and writing the header, periodic and summary records (see records.hpp).
#include "records.hpp"

#include <sys/resource.h>

#include "alloc_counter.hpp"
#include "build_info.hpp"
#include "packet.hpp"

namespace cpp_engine {

namespace {

template <class T>
Json optional_number(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

}  // namespace

Json header_record(const RunDescription& run) {
    const Options& options = run.options;
    const bool realtime = options.mode == Mode::realtime;
    Json params;
    params["pool_size"] = run.params.pool_size;
    params["mix_pool_size"] = run.params.mix_pool_size;
    params["internal_queue_size"] = run.params.internal_queue_size;
    params["stored_count"] = run.params.stored_count;
    params["max_capturing_delay_ms"] = realtime ? options.capture_delay_ms : double{max_capturing_delay_ms};
    params["input_queue_size"] = run.input_queue_size;
    params["packet_bytes"] = packet_bytes;
    params["case_table"] = {{"internal_queue_size", run.params.table_internal_queue_size},
                            {"stored_count", run.params.table_stored_count}};

    Json record;
    record["type"] = "header";
    record["schema"] = schema_version;
    record["engine"] = "cpp";
    record["run_id"] = run.run_id;
    record["started_utc"] = run.started_utc;
    record["host"] = run.host.host;
    record["os"] = run.host.os;
    record["cpu_model"] = run.host.cpu_model;
    record["cpus"] = run.host.cpus;
    record["memory_bytes"] = run.host.memory_bytes;
    record["small_machine"] = run.host.small_machine;
    record["commit"] = run.commit;
    record["engine_commit"] = build_info::engine_commit;
    record["engine_source"] = build_info::engine_source;
    record["case"] = options.case_name;
    record["strategy"] = options.strategy;
    record["source"] = options.source;
    record["mode"] = realtime ? "realtime" : "batch";
    record["interval_ns"] = realtime ? optional_number(options.interval_ns) : Json(nullptr);
    record["duration_s"] = options.duration_s;
    record["warmup_s"] = options.warmup_s;
    record["scale"] = options.scale;
    record["params"] = params;
    record["producer_cpu"] = realtime ? Json(options.producer_cpu) : Json(nullptr);
    record["consumer_cpu"] = realtime ? Json(options.consumer_cpu) : Json(nullptr);
    record["collector"] = nullptr;
    record["design"] = options.design;
    record["allocator"] = run.allocator.name;
    record["allocator_version"] = run.allocator.version;
    record["counting_build"] = alloc_counter::counting();
    record["operator_new"] = run.allocator.operator_new_provider;
    record["operator_delete_sized"] = run.allocator.sized_delete_provider;
    record["compiler"] = build_info::compiler;
    record["cxx_flags"] = build_info::cxx_flags;
    record["seed"] = options.seed;
    record["threads"] = options.threads != 0 ? Json(options.threads) : Json(nullptr);
    record["scaling"] = options.threads != 0 ? Json(options.strong_scaling ? "strong" : "weak") : Json(nullptr);
    record["handoff"] = options.threads != 0 ? Json(false) : Json(nullptr);  // no hand-off runs in C++
    return record;
}

namespace {

// The latency fields (docs/records.md), null where nothing was sampled.
void put_latency(Json& record, const std::optional<LatencyPercentiles>& latency) {
    record["latency_p50_ns"] = latency ? Json(latency->p50_ns) : Json(nullptr);
    record["latency_p99_ns"] = latency ? Json(latency->p99_ns) : Json(nullptr);
    record["latency_p999_ns"] = latency ? Json(latency->p999_ns) : Json(nullptr);
    record["latency_max_ns"] = latency ? Json(latency->max_ns) : Json(nullptr);
}

}  // namespace

Json periodic_record(const PeriodStats& period, std::uint32_t threads) {
    Json record;
    record["type"] = "periodic";
    record["t_s"] = period.t_s;
    record["period_s"] = period.period_s;
    record["packets"] = period.packets;
    record["packets_total"] = period.packets_total;
    record["lost"] = period.lost;
    record["lost_total"] = period.lost_total;
    record["ns_per_packet"] = period.packets != 0 ? Json(period.period_s * 1e9 * threads /
                                                         static_cast<double>(period.packets))
                                                  : Json(nullptr);
    record["warmup"] = period.warmup;
    put_latency(record, period.latency);
    return record;
}

Json summary_record(const SummaryInputs& summary) {
    const RunTotals& totals = summary.totals;
    const auto measured = static_cast<double>(totals.measured_packets);
    Json record;
    record["type"] = "summary";
    record["status"] = summary.error ? "error" : "ok";
    record["error"] = summary.error ? Json(*summary.error) : Json(nullptr);
    record["failure"] = summary.error ? Json(std::string(failure_code(summary.failure))) : Json(nullptr);
    record["t_s"] = totals.t_s;
    record["packets"] = totals.packets;
    record["measured_packets"] = totals.measured_packets;
    record["measured_s"] = totals.measured_s;
    record["measured_cpu_s"] = optional_number(totals.measured_cpu_s);
    if (totals.thread_cpu_s.empty()) {
        record["thread_cpu_s"] = nullptr;
    } else {
        Json each = Json::array();
        for (const double seconds : totals.thread_cpu_s) {
            each.push_back(seconds >= 0 ? Json(seconds) : Json(nullptr));
        }
        record["thread_cpu_s"] = each;
    }
    record["ns_per_packet"] =
            totals.measured_packets != 0 ? Json(totals.measured_s * 1e9 * summary.threads / measured) : Json(nullptr);
    record["lost"] = totals.lost;
    // Every tick lost after the window opened: the gaps seen until the end, those found
    // while draining the queue included, and the drops after the last tick received (a
    // consumer that fell behind never reaches the gap they leave).
    const std::uint64_t lost_measured =
            totals.lost_measured + (summary.ticks && totals.window_start_s ? summary.ticks->trailing_dropped : 0);
    record["lost_measured"] = lost_measured;
    const double seen = static_cast<double>(lost_measured) + measured;
    record["lost_pct_measured"] = seen != 0 ? Json(static_cast<double>(lost_measured) / seen * 100) : Json(nullptr);
    record["measured_ticks_due"] =
            summary.interval_ns && totals.window_start_s
                    ? Json(static_cast<std::uint64_t>(totals.measured_s * 1e9 / static_cast<double>(*summary.interval_ns)))
                    : Json(nullptr);
    record["producer_emitted"] = summary.ticks ? Json(summary.ticks->emitted) : Json(nullptr);
    record["producer_dropped"] = summary.ticks ? Json(summary.ticks->dropped) : Json(nullptr);
    record["trailing_dropped"] = summary.ticks ? Json(summary.ticks->trailing_dropped) : Json(nullptr);
    record["allocs_per_packet"] = summary.allocations ? Json(summary.allocations->per_packet) : Json(nullptr);
    record["allocs_counted_packets"] = summary.allocations ? Json(summary.allocations->packets) : Json(nullptr);
    record["peak_rss_bytes"] = summary.peak_rss_bytes;
    record["thread_share_min"] = optional_number(summary.thread_share_min);
    record["pool_capacity"] = summary.pool ? Json(summary.pool->capacity) : Json(nullptr);
    record["pool_free"] = summary.pool ? Json(summary.pool->free) : Json(nullptr);
    record["pool_in_use"] = summary.pool ? Json(summary.pool->in_use) : Json(nullptr);
    record["fill_packets"] = summary.fill ? Json(summary.fill->packets) : Json(nullptr);
    record["fill_s"] = summary.fill ? Json(summary.fill->seconds) : Json(nullptr);
    put_latency(record, totals.latency ? totals.latency->percentiles : std::nullopt);
    record["latency_samples"] = totals.latency ? Json(totals.latency->samples) : Json(nullptr);
    record["latency_sample_every"] = totals.latency ? Json(totals.latency->sample_every) : Json(nullptr);
    record["timed_start_s"] = optional_number(totals.timed_start_s);
    record["window_start_s"] = optional_number(totals.window_start_s);
    record["store_fill_at_window"] = totals.at_window ? Json(totals.at_window->store_fill()) : Json(nullptr);
    record["fifo_fill_at_window"] = totals.at_window ? Json(totals.at_window->fifo_fill()) : Json(nullptr);
    return record;
}

std::uint64_t peak_rss_bytes() {
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

void RecordWriter::write(const Json& record) {
    out_ << record.dump() << '\n';
    out_.flush();
}

}  // namespace cpp_engine
