// The model chosen on the command line behind one interface: the design, strategy and
// packet source are picked once, and each run loop is instantiated for that triple
// (twenty on one thread, twelve threaded), so the per-packet path has no virtual call.
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
    // A threaded run's (--threads): the slowest thread's share of the timed phase's packets, times
    // the threads (1: an even split); null for one thread.
    virtual std::optional<double> thread_share_min() const { return std::nullopt; }
};

// design: cpp | flat; strategy: dummy | alloc | mix | pool | pmr | shared-pool; source: counter | random.
// threads: 0 for the model on the calling thread; N (1 or more) for a run by N processing
// threads, each on its share of the case (threaded_run.hpp), with alloc, pool or shared-pool
// (THREAD_STRATEGIES). shared-pool needs threads. Throws std::invalid_argument for other names.
inline constexpr const char* thread_strategies = "alloc, pool, shared-pool, pmr-synchronized";
std::unique_ptr<AnyModel> make_model(const std::string& design, const std::string& strategy, const std::string& source,
                                     const CaseParams& params, std::uint64_t seed, std::uint32_t threads = 0,
                                     bool strong_scaling = false);

}  // namespace cpp_engine
