// The fixture of the tests that run cpp_engine as a process: it runs the binary with given
// arguments and environment in a folder of its own, reads its records, and checks them against
// the fields and types engine-facts.json gives each record of the C++ engine.
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace cpp_engine {


namespace fs = std::filesystem;
using nlohmann::json;

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class EngineProcess : public ::testing::Test {
protected:
    void SetUp() override {
        directory_ = fs::temp_directory_path() /
                     ("cpp_lib_tests_" + std::to_string(::getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(directory_);
    }

    void TearDown() override { fs::remove_all(directory_); }

    // Runs `program` (cpp_engine unless given) with `args`; `env` sets (or, with nullopt,
    // removes) variables.
    ProcessResult run(const std::vector<std::string>& args,
                      const std::map<std::string, std::optional<std::string>>& env = {},
                      const std::string& program = CPP_ENGINE_PATH) {
        std::vector<std::string> environment;
        for (char** entry = environ; *entry != nullptr; ++entry) {
            const std::string variable = *entry;
            if (!env.contains(variable.substr(0, variable.find('=')))) {
                environment.push_back(variable);
            }
        }
        for (const auto& [name, value] : env) {
            if (value) {
                environment.push_back(name + "=" + *value);
            }
        }
        std::vector<std::string> argv_strings{program};
        argv_strings.insert(argv_strings.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (std::string& arg : argv_strings) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        std::vector<char*> envp;
        for (std::string& variable : environment) {
            envp.push_back(variable.data());
        }
        envp.push_back(nullptr);

        const fs::path out = directory_ / "stdout";
        const fs::path err = directory_ / "stderr";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        ProcessResult result;
        if (spawned != 0) {
            ADD_FAILURE() << "cannot start " << program;
            return result;
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        result.out = read_file(out);
        result.err = read_file(err);
        return result;
    }

    fs::path records_path() const { return directory_ / "run.jsonl"; }

    std::vector<json> records() const {
        std::vector<json> parsed;
        std::ifstream in(records_path());
        for (std::string line; std::getline(in, line);) {
            parsed.push_back(json::parse(line));
        }
        return parsed;
    }

    // Records of a run that must have succeeded: header first, periodic records, summary last.
    std::vector<json> good_run(const std::vector<std::string>& args,
                               const std::map<std::string, std::optional<std::string>>& env = {},
                               const std::string& program = CPP_ENGINE_PATH) {
        std::vector<std::string> all = args;
        all.insert(all.end(), {"--out", records_path().string()});
        const ProcessResult result = run(all, env, program);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        std::vector<json> parsed = records();
        EXPECT_GE(parsed.size(), 3U) << result.err;
        if (parsed.size() >= 3) {
            EXPECT_EQ(parsed.front()["type"], "header");
            EXPECT_EQ(parsed.back()["type"], "summary");
            EXPECT_EQ(parsed.back()["status"], "ok") << parsed.back().dump();
            for (std::size_t i = 1; i + 1 < parsed.size(); ++i) {
                EXPECT_EQ(parsed[i]["type"], "periodic");
            }
        }
        return parsed;
    }

    fs::path directory_;
};

// engine-facts.json, which gives each record type's fields and their types.
inline const json& engine_facts() {
    static const json facts = [] {
        std::ifstream file(ENGINE_FACTS_PATH);
        EXPECT_TRUE(file.good()) << "cannot read " << ENGINE_FACTS_PATH;
        return json::parse(file);
    }();
    return facts;
}

// The fields the C++ engine writes in a record of this type ("header", "periodic", "summary", or
// "header.params" for the header's params object), each with its type ("int", "number|null", ...):
// those every engine writes and the cpp ones.
inline std::map<std::string, std::string> cpp_fields(const std::string& record_type) {
    const json& records = engine_facts().at("records");
    std::map<std::string, std::string> fields;
    if (record_type == "header.params") {
        for (const auto& [name, type] : records.at("header").at("params").items()) {
            fields[name] = type.get<std::string>();
        }
        return fields;
    }
    for (const char* part : {"fields", "cpp"}) {
        if (records.at(record_type).contains(part)) {
            for (const auto& [name, type] : records.at(record_type).at(part).items()) {
                fields[name] = type.get<std::string>();
            }
        }
    }
    return fields;
}

// Whether a value is of a type engine-facts.json names: int, number, string, bool, list, object, |null.
inline bool is_of_type(const json& value, const std::string& type) {
    const bool nullable = type.ends_with("|null");
    const std::string base = nullable ? type.substr(0, type.size() - 5) : type;
    if (value.is_null()) {
        return nullable;
    }
    if (base == "int") return value.is_number_integer();
    if (base == "number") return value.is_number();
    if (base == "string") return value.is_string();
    if (base == "bool") return value.is_boolean();
    if (base == "list") return value.is_array();
    if (base == "object") return value.is_object();
    ADD_FAILURE() << "engine-facts.json: no type " << type;
    return false;
}

// A record has exactly the fields engine-facts.json gives the C++ engine for its type, each of its type.
inline void expect_record(const json& record, const std::string& record_type = "") {
    const std::string type = record_type.empty() ? record.at("type").get<std::string>() : record_type;
    const std::map<std::string, std::string> fields = cpp_fields(type);
    for (const auto& [name, kind] : fields) {
        EXPECT_TRUE(record.contains(name)) << type << ": missing " << name << " in " << record.dump();
        if (record.contains(name)) {
            EXPECT_TRUE(is_of_type(record[name], kind)) << type << "." << name << " = " << record[name] << " is not "
                                                        << kind;
        }
    }
    for (const auto& [name, value] : record.items()) {
        EXPECT_TRUE(fields.contains(name)) << type << ": unexpected " << name << " in " << record.dump();
    }
    if (type == "header") {
        expect_record(record.at("params"), "header.params");
    }
}

}  // namespace cpp_engine
