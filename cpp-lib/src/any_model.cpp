// make_model: the twenty instantiations of the model and its run loops.
#include "any_model.hpp"

#include <stdexcept>

#include "model.hpp"
#include "packet.hpp"
#include "packet_source.hpp"

namespace cpp_engine {

namespace {

template <class P, template <class> class StrategyT, class Source>
class ModelHolder final : public AnyModel {
public:
    ModelHolder(const CaseParams& params, std::uint64_t seed) : model_(params, seed) {}

    FillResult fill(Clock::time_point origin, Clock::time_point deadline) override {
        return run_fill(model_, origin, deadline);
    }

    void run_batch(RunTimeline& timeline) override { cpp_engine::run_batch(model_, timeline); }

    TickAccounting run_realtime(const RealtimeConfig& config, RunTimeline& timeline) override {
        return cpp_engine::run_realtime(model_, config, timeline);
    }

    PoolCounts counts() const override { return model_.strategy().counts(); }
    Occupancy occupancy() const override { return model_.occupancy(); }
    bool is_pool() const override { return StrategyT<P>::is_pool; }
    std::optional<std::string> conservation_error() const override { return model_.conservation_error(); }

private:
    Model<P, StrategyT, Source> model_;
};

template <class P, class Source>
std::unique_ptr<AnyModel> make_for_source(const std::string& strategy, const CaseParams& params, std::uint64_t seed) {
    if (strategy == "dummy") {
        return std::make_unique<ModelHolder<P, DummyStrategy, Source>>(params, seed);
    }
    if (strategy == "alloc") {
        return std::make_unique<ModelHolder<P, AllocStrategy, Source>>(params, seed);
    }
    if (strategy == "mix") {
        return std::make_unique<ModelHolder<P, MixStrategy, Source>>(params, seed);
    }
    if (strategy == "pool") {
        return std::make_unique<ModelHolder<P, PoolStrategy, Source>>(params, seed);
    }
    if (strategy == "pmr") {
        return std::make_unique<ModelHolder<P, PmrStrategy, Source>>(params, seed);
    }
    throw std::invalid_argument("no strategy " + strategy + "; valid: dummy, alloc, mix, pool, pmr");
}

template <class P>
std::unique_ptr<AnyModel> make_for_design(const std::string& strategy, const std::string& source,
                                          const CaseParams& params, std::uint64_t seed) {
    if (source == "counter") {
        return make_for_source<P, CounterSource>(strategy, params, seed);
    }
    if (source == "random") {
        return make_for_source<P, RandomSource>(strategy, params, seed);
    }
    throw std::invalid_argument("no source " + source + "; valid: counter, random");
}

}  // namespace

std::unique_ptr<AnyModel> make_model(const std::string& design, const std::string& strategy, const std::string& source,
                                     const CaseParams& params, std::uint64_t seed) {
    if (design == "cpp") {
        return make_for_design<cpp_design::Packet>(strategy, source, params, seed);
    }
    if (design == "flat") {
        return make_for_design<flat_design::Packet>(strategy, source, params, seed);
    }
    throw std::invalid_argument("no design " + design + "; valid: cpp, flat");
}

}  // namespace cpp_engine
