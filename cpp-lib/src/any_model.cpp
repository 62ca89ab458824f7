// make_model: the instantiations of the model and its run loops (twenty on one thread, twelve
// threaded).
#include "any_model.hpp"

#include <stdexcept>
#include <type_traits>
#include <vector>

#include "model.hpp"
#include "packet.hpp"
#include "packet_source.hpp"
#include "threaded_run.hpp"

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

// A run by N threads (batch or real time), a model each with the case's live set (weak scaling) or its share of
// it (strong); for shared-pool and pmr-synchronized the one pool (or resource) they share, made before the models
// and destroyed after them (their packets go back to it). A shared pool holds every thread's pool.
// The pool a strategy's threads share (its Shared), or nothing.
template <class S>
struct SharedOfT {
    using type = int;
};
template <class S>
    requires requires { typename S::Shared; }
struct SharedOfT<S> {
    using type = typename S::Shared;
};
template <class S>
using SharedOf = typename SharedOfT<S>::type;

template <class P, template <class> class StrategyT, class Source>
class ThreadedHolder final : public AnyModel {
public:
    using M = Model<P, StrategyT, Source>;
    static constexpr bool shared = std::is_same_v<StrategyT<P>, SharedPoolView<P>>;
    static constexpr bool has_shared = requires { typename StrategyT<P>::Shared; };

    ThreadedHolder(const CaseParams& params, std::uint64_t seed, std::uint32_t threads, bool strong) {
        std::uint64_t pool_size = 0;
        for (std::uint32_t i = 0; i < threads; ++i) {
            pool_size += (strong ? params.share(i, threads) : params).pool_size;
        }
        if constexpr (has_shared) {
            pool_ = std::make_unique<typename StrategyT<P>::Shared>(static_cast<std::uint32_t>(pool_size));
        }
        for (std::uint32_t i = 0; i < threads; ++i) {
            const CaseParams share = strong ? params.share(i, threads) : params;
            if constexpr (has_shared) {
                models_.push_back(std::make_unique<M>(share, seed + i, *pool_));
            } else {
                models_.push_back(std::make_unique<M>(share, seed + i));
            }
        }
        run_ = std::make_unique<ThreadedRun<M>>(models_);
    }

    ~ThreadedHolder() override { run_.reset(); }  // the threads end before their models go

    FillResult fill(Clock::time_point origin, Clock::time_point deadline) override {
        return run_->fill(origin, deadline);
    }

    void run_batch(RunTimeline& timeline) override { run_->run(timeline); }

    TickAccounting run_realtime(const RealtimeConfig& config, RunTimeline& timeline) override {
        return run_->run_realtime(config, timeline);
    }

    // Every thread's strategy's counts summed; with a shared pool its capacity and free packets.
    PoolCounts counts() const override {
        PoolCounts all;
        for (const auto& model : models_) {
            const PoolCounts one = model->strategy().counts();
            all.capacity += one.capacity;
            all.free += one.free;
            all.in_use += one.in_use;
        }
        if constexpr (shared) {
            all.capacity = pool_->capacity();
            all.free = pool_->count_free();
        }
        return all;
    }

    Occupancy occupancy() const override {
        Occupancy all;
        for (const auto& model : models_) {
            const Occupancy one = model->occupancy();
            all.fifo_size += one.fifo_size;
            all.fifo_capacity += one.fifo_capacity;
            all.stored += one.stored;
            all.stored_count += one.stored_count;
        }
        return all;
    }

    bool is_pool() const override { return StrategyT<P>::is_pool; }

    // Each thread's accounting (its packets in use are those its processor holds), then the pool's
    // as a whole (a shared pool's free and in-use packets add up to what it made).
    std::optional<std::string> conservation_error() const override {
        for (std::size_t i = 0; i < models_.size(); ++i) {
            if (auto broken = models_[i]->conservation_error()) {
                return "thread " + std::to_string(i) + ": " + *broken;
            }
        }
        if (const PoolCounts all = counts(); !all.balanced()) {
            return "packet accounting broken over the threads: free " + std::to_string(all.free) + " + in use " +
                   std::to_string(all.in_use) + " != capacity " + std::to_string(all.capacity);
        }
        return std::nullopt;
    }

    std::optional<double> thread_share_min() const override { return run_->smallest_share(); }

private:
    std::unique_ptr<SharedOf<StrategyT<P>>> pool_;
    std::vector<std::unique_ptr<M>> models_;
    std::unique_ptr<ThreadedRun<M>> run_;
};

template <class P, class Source>
std::unique_ptr<AnyModel> make_threaded(const std::string& strategy, const CaseParams& params, std::uint64_t seed,
                                        std::uint32_t threads, bool strong) {
    if (strategy == "alloc") {
        return std::make_unique<ThreadedHolder<P, AllocStrategy, Source>>(params, seed, threads, strong);
    }
    if (strategy == "pool") {
        return std::make_unique<ThreadedHolder<P, PoolStrategy, Source>>(params, seed, threads, strong);
    }
    if (strategy == "shared-pool") {
        return std::make_unique<ThreadedHolder<P, SharedPoolView, Source>>(params, seed, threads, strong);
    }
    if (strategy == "pmr-synchronized") {
        return std::make_unique<ThreadedHolder<P, SyncPmrView, Source>>(params, seed, threads, strong);
    }
    throw std::invalid_argument("no threaded strategy " + strategy + "; valid: " + thread_strategies);
}

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
    throw std::invalid_argument("no strategy " + strategy + " on one thread; valid: dummy, alloc, mix, pool, pmr" +
                                (strategy == "shared-pool" ? " (shared-pool needs --threads)" : ""));
}

template <class P>
std::unique_ptr<AnyModel> make_for_design(const std::string& strategy, const std::string& source,
                                          const CaseParams& params, std::uint64_t seed, std::uint32_t threads,
                                          bool strong) {
    if (source == "counter") {
        return threads != 0 ? make_threaded<P, CounterSource>(strategy, params, seed, threads, strong)
                            : make_for_source<P, CounterSource>(strategy, params, seed);
    }
    if (source == "random") {
        return threads != 0 ? make_threaded<P, RandomSource>(strategy, params, seed, threads, strong)
                            : make_for_source<P, RandomSource>(strategy, params, seed);
    }
    throw std::invalid_argument("no source " + source + "; valid: counter, random");
}

}  // namespace

std::unique_ptr<AnyModel> make_model(const std::string& design, const std::string& strategy, const std::string& source,
                                     const CaseParams& params, std::uint64_t seed, std::uint32_t threads,
                                     bool strong_scaling) {
    if (design == "cpp") {
        return make_for_design<cpp_design::Packet>(strategy, source, params, seed, threads, strong_scaling);
    }
    if (design == "flat") {
        return make_for_design<flat_design::Packet>(strategy, source, params, seed, threads, strong_scaling);
    }
    throw std::invalid_argument("no design " + design + "; valid: cpp, flat");
}

}  // namespace cpp_engine
