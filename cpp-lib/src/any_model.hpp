// The model chosen on the command line behind one interface: the design, strategy and
// packet source are picked once, and each run loop is instantiated for that triple
// (twenty in all), so the per-packet path has no virtual call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "case_params.hpp"
#include "processor.hpp"
#include "runner.hpp"
#include "strategies.hpp"

namespace cpp_engine {

class AnyModel {
public:
    virtual ~AnyModel() = default;
    virtual FillResult fill(Clock::time_point origin, Clock::time_point deadline) = 0;
    virtual void run_batch(RunTimeline& timeline) = 0;
    virtual TickAccounting run_realtime(const RealtimeConfig& config, RunTimeline& timeline) = 0;
    virtual PoolCounts counts() const = 0;
    virtual Occupancy occupancy() const = 0;
    // True for the pooled strategies (mix, pool), whose counts the summary reports.
    virtual bool is_pool() const = 0;
    virtual std::optional<std::string> conservation_error() const = 0;
};

// design: cpp | flat; strategy: dummy | alloc | mix | pool | pmr; source: counter | random.
// Throws std::invalid_argument for other names.
std::unique_ptr<AnyModel> make_model(const std::string& design, const std::string& strategy, const std::string& source,
                                     const CaseParams& params, std::uint64_t seed);

}  // namespace cpp_engine
