// One instance of the model: a strategy, the data source and the processor. step() is
// the unit every measurement counts (acquire, fill, hand to the processor); both modes
// run this and only this per packet.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "case_params.hpp"
#include "hot_path.hpp"
#include "packet_source.hpp"
#include "processor.hpp"
#include "strategies.hpp"

namespace cpp_engine {

template <class P, template <class> class StrategyT, class SourceT = CounterSource>
class Model {
public:
    using Packet = P;
    using Strategy = StrategyT<P>;
    using Source = SourceT;

    // strategy_args: what a strategy needs beyond the case (a shared pool's view, its pool).
    template <class... StrategyArgs>
    Model(const CaseParams& params, std::uint64_t seed, StrategyArgs&... strategy_args)
        : strategy_(params, strategy_args...), source_(seed), processor_(strategy_, source_, params) {}

    CPP_ENGINE_HOT void step() {
        P* packet = strategy_.acquire();
        source_.fill(*packet);
        processor_.accept(packet);
    }

    const Strategy& strategy() const noexcept { return strategy_; }
    const Processor<P, Strategy, Source>& processor() const noexcept { return processor_; }
    Occupancy occupancy() const noexcept { return processor_.occupancy(); }

    // Null when the accounting holds (every owned packet free or in use, and those in use
    // exactly the ones the processor holds), else what is wrong.
    std::optional<std::string> conservation_error() const {
        const PoolCounts counts = strategy_.counts();
        if (!counts.balanced()) {
            return "packet accounting broken: free " + std::to_string(counts.free) + " + in use " +
                   std::to_string(counts.in_use) + " != capacity " + std::to_string(counts.capacity);
        }
        if (!Strategy::shares_one_packet && counts.in_use != processor_.held()) {
            return "packet leak: " + std::to_string(counts.in_use) + " packets in use but the processor holds " +
                   std::to_string(processor_.held());
        }
        return std::nullopt;
    }

private:
    // Declared first so that it is destroyed last: the processor gives its packets back.
    Strategy strategy_;
    Source source_;
    Processor<P, Strategy, Source> processor_;
};

}  // namespace cpp_engine
