// CaseParams: the case table, the scaling rule and the overrides.
#include "case_params.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cpp_engine {

namespace {

constexpr std::uint32_t article_pool_size = 1'000'000;
constexpr std::uint32_t article_mix_pool_size = 200'000;

std::uint32_t scaled(std::uint32_t count, double scale) {
    return static_cast<std::uint32_t>(std::max<long long>(1, std::llround(count * scale)));
}

}  // namespace

CaseParams CaseParams::of(const std::string& name, double scale) {
    if (!(scale > 0 && scale <= 1)) {
        throw std::invalid_argument("scale " + std::to_string(scale) + " is outside (0, 1]");
    }
    std::uint32_t queue_and_store;
    if (name == "A") {
        queue_and_store = 1'000;
    } else if (name == "B") {
        queue_and_store = 100'000;
    } else if (name == "C") {
        queue_and_store = 495'000;
    } else {
        throw std::invalid_argument("no case " + name + "; valid: A, B, C");
    }
    return {name,
            scale,
            scaled(article_pool_size, scale),
            scaled(article_mix_pool_size, scale),
            scaled(queue_and_store, scale),
            scaled(queue_and_store, scale),
            queue_and_store,
            queue_and_store};
}

namespace {

std::uint32_t share_of(std::uint32_t count, std::uint32_t index, std::uint32_t threads) {
    return count / threads + (index < count % threads ? 1 : 0);
}

}  // namespace

CaseParams CaseParams::share(std::uint32_t index, std::uint32_t threads) const {
    if (threads < 1 || index >= threads) {
        throw std::invalid_argument("share " + std::to_string(index) + " of " + std::to_string(threads) + " threads");
    }
    if (internal_queue_size < threads || stored_count < threads) {
        throw std::invalid_argument(std::to_string(threads) + " threads need at least " + std::to_string(threads) +
                                    " packets in the internal queue and the store (" +
                                    std::to_string(internal_queue_size) + " and " + std::to_string(stored_count) + ")");
    }
    CaseParams out = *this;
    out.pool_size = share_of(pool_size, index, threads);
    out.mix_pool_size = share_of(mix_pool_size, index, threads);
    out.internal_queue_size = share_of(internal_queue_size, index, threads);
    out.stored_count = share_of(stored_count, index, threads);
    return out;
}

CaseParams with_overrides(CaseParams params, const SizeOverrides& overrides) {
    params.internal_queue_size = overrides.internal_queue_size.value_or(params.internal_queue_size);
    params.stored_count = overrides.stored_count.value_or(params.stored_count);
    params.pool_size = overrides.pool_size.value_or(params.pool_size);
    return params;
}

}  // namespace cpp_engine
