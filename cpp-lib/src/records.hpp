// The run records (schema 1) as the C++ engine writes them: one header, a periodic record a
// second, one summary; JSON Lines, flushed record by record so that a run that dies keeps what it
// wrote. engine-facts.json's records give their fields and types (docs/records.md what they mean):
// the fields every engine writes and the cpp ones are present (null where they do not apply), the
// java ones are left out; the EngineProcess tests check the records against it.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "allocator_select.hpp"
#include "case_params.hpp"
#include "counting_pass.hpp"
#include "failure.hpp"
#include "host_info.hpp"
#include "options.hpp"
#include "runner.hpp"
#include "strategies.hpp"

namespace cpp_engine {

using Json = nlohmann::ordered_json;

inline constexpr int schema_version = 1;

struct RunDescription {
    Options options;
    CaseParams params;
    AllocatorInfo allocator;
    HostInfo host;
    std::string run_id;
    std::string started_utc;
    std::string commit;
    std::uint32_t input_queue_size = 0;  // slots per array of the tick queue; 0 in batch
};

Json header_record(const RunDescription& run);

// threads: the run's processing threads (1 unless --threads), by which a time per packet is
// multiplied (thread time per packet).
Json periodic_record(const PeriodStats& period, std::uint32_t threads = 1);

struct SummaryInputs {
    std::optional<std::string> error;  // null: status ok
    Failure failure = Failure::engine_error;  // why, as a code, where error is set
    std::optional<FillResult> fill;    // null: the fill phase did not finish
    std::optional<std::uint64_t> interval_ns;  // real-time runs
    RunTotals totals;
    std::optional<TickAccounting> ticks;  // real-time runs
    std::optional<PoolCounts> pool;       // pooled strategies
    std::optional<AllocationCount> allocations;  // null: not counted
    std::uint64_t peak_rss_bytes = 0;
    std::uint32_t threads = 1;  // processing threads: times per packet are thread time
    std::optional<double> thread_share_min;  // threaded runs (AnyModel::thread_share_min)
};

Json summary_record(const SummaryInputs& summary);

// getrusage's maximum resident set size, in bytes.
std::uint64_t peak_rss_bytes();

class RecordWriter {
public:
    explicit RecordWriter(std::ostream& out) : out_(out) {}
    void write(const Json& record);

private:
    std::ostream& out_;
};

}  // namespace cpp_engine
