// The model's facts the C++ engine shares with the Java engine and the Python study (engine-facts.json at
// the checkout's root): the engine's own constants are checked against it, so that a change in one
// language and not the others fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <vector>
#include <nlohmann/json.hpp>
#include <string>

#include "case_params.hpp"
#include "engine.hpp"
#include "failure.hpp"
#include "strategies.hpp"

namespace cpp_engine {
namespace {

nlohmann::json facts() {
    std::ifstream file(ENGINE_FACTS_PATH);
    EXPECT_TRUE(file.good()) << "cannot read " << ENGINE_FACTS_PATH;
    return nlohmann::json::parse(file);
}

TEST(EngineFacts, TheCasesAndPoolsAreTheSharedOnes) {
    const nlohmann::json shared = facts();
    for (const std::string name : {"A", "B", "C"}) {
        const CaseParams params = CaseParams::of(name, 1.0);
        const nlohmann::json& sizes = shared.at("cases").at(name);
        EXPECT_EQ(sizes.at("internal_queue_size").get<std::uint32_t>(), params.internal_queue_size) << name;
        EXPECT_EQ(sizes.at("stored_count").get<std::uint32_t>(), params.stored_count) << name;
        EXPECT_EQ(shared.at("pool_size").get<std::uint32_t>(), params.pool_size) << name;
        EXPECT_EQ(shared.at("mix_pool_size").get<std::uint32_t>(), params.mix_pool_size) << name;
    }
}

TEST(EngineFacts, TheLimitsAreTheSharedOnes) {
    const nlohmann::json shared = facts();
    EXPECT_EQ(shared.at("max_capturing_delay_ms").get<std::uint32_t>(), max_capturing_delay_ms);
    EXPECT_EQ(shared.at("max_override_count").get<std::uint32_t>(), max_override_count);
    EXPECT_EQ(shared.at("fill_limit_s").get<double>(), fill_grace_s);
}

TEST(EngineFacts, TheFailureCodesAreTheSharedOnes) {
    const nlohmann::json all = facts();
    std::set<std::string> shared;
    for (const auto& [code, failure] : all.at("failures").items()) {
        const auto engines = failure.at("engines").get<std::vector<std::string>>();
        if (std::find(engines.begin(), engines.end(), "cpp") != engines.end()) {
            shared.insert(code);
        }
    }
    const std::set<std::string> own(failure_codes.begin(), failure_codes.end());
    EXPECT_EQ(own, shared);
}

TEST(EngineFacts, AFailureIsReadFromTheExceptionsTypeNotItsText) {
    EXPECT_EQ(failure_of(PoolExhausted("pool exhausted")), Failure::pool_exhausted);
    EXPECT_EQ(failure_of(DoubleRelease("pool: double release")), Failure::pool_accounting);
    EXPECT_EQ(failure_of(std::bad_alloc()), Failure::out_of_memory);
    EXPECT_EQ(failure_of(std::runtime_error("the fill phase did not finish in time")), Failure::engine_error);
    EXPECT_EQ(failure_code(Failure::fill_timeout), "fill_timeout");
}

}  // namespace
}  // namespace cpp_engine
