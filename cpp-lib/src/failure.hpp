// Why a run failed, as its summary's `failure` field says it: a code the study matches, never the
// error's text (engine-facts.json lists the codes and what each means; the EngineFacts tests check
// these against it). The engine throws a RunFailure where it knows the reason; failure_of reads any
// exception.
#pragma once

#include <array>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cpp_engine {

enum class Failure {
    fill_timeout,
    out_of_memory,
    pool_exhausted,
    pool_accounting,
    tick_imbalance,
    interrupted,
    counting_pass,
    engine_error,
};

// Every failure with its code, in the enum's order.
inline constexpr std::array<std::string_view, 8> failure_codes{
        "fill_timeout",   "out_of_memory", "pool_exhausted", "pool_accounting",
        "tick_imbalance", "interrupted",   "counting_pass",  "engine_error"};

inline std::string_view failure_code(Failure failure) noexcept {
    return failure_codes[static_cast<std::size_t>(failure)];
}

// An error whose reason the engine knows: its message for the reader, its Failure for the summary.
class RunFailure : public std::runtime_error {
public:
    RunFailure(Failure failure, const std::string& message) : std::runtime_error(message), failure_(failure) {}
    Failure failure() const noexcept { return failure_; }

private:
    Failure failure_;
};

// The failure an exception stands for: a RunFailure's own, out_of_memory for std::bad_alloc, else engine_error.
inline Failure failure_of(const std::exception& error) noexcept {
    if (const auto* known = dynamic_cast<const RunFailure*>(&error)) {
        return known->failure();
    }
    return dynamic_cast<const std::bad_alloc*>(&error) != nullptr ? Failure::out_of_memory : Failure::engine_error;
}

}  // namespace cpp_engine
